package org.fleetmesh.identity.capability;

import java.util.Objects;
import java.util.Optional;

import org.fleetmesh.peering.budget.Bucket;
import org.fleetmesh.relay.limits.BoundedKeys;

/**
 * Which token checks an HTTP surface runs (docs/spec/capabilities.md, "Checking tokens over HTTP"): a check is
 * signature verifications and Datalog, so a request that carries a token is admitted to one only when
 * <ul>
 * <li>its address has refused tokens left: each token refused (401 or 403) takes one of {@code refusals} allowed per
 * {@code windowNanos}, refilled continuously; an address without any left is answered {@code 429} at once, with
 * when to try again, and its token is not checked;</li>
 * <li>its address has fewer than {@code perAddress} checks running;</li>
 * <li>fewer than {@code slots} checks run node-wide.</li>
 * </ul>
 * A token that holds costs its address nothing, so a holder is never slowed by its own successes. Addresses are the
 * callers' keys (IPv6 by its /64); at most {@code addresses} are remembered, the least recently refused forgotten
 * first. Pure and thread-safe; times are {@link System#nanoTime()}-style values.
 */
public final class CheckAdmission {
    /** Why a check was not admitted: an HTTP status, a reason, and seconds to wait (0: none to say). */
    public record Refusal(int status, String reason, long retryAfterSeconds) {
    }

    private final int slots;
    private final int perAddress;
    private final long refusals;
    private final long windowNanos;
    private final BoundedKeys<Bucket> refused;
    private final java.util.Map<String, Integer> running = new java.util.HashMap<>(); // guarded by this
    private int runningAll; // guarded by this

    public CheckAdmission(int slots, int perAddress, long refusals, long windowNanos, int addresses) {
        if (slots < 1 || perAddress < 1 || refusals < 1 || addresses < 1) {
            throw new IllegalArgumentException("slots, per-address, refusals and addresses are at least 1");
        }
        this.slots = slots;
        this.perAddress = perAddress;
        this.refusals = refusals;
        this.windowNanos = windowNanos;
        this.refused = new BoundedKeys<>(addresses);
    }

    /** The node's defaults: 4 checks at once, 2 from one address, 30 refused tokens a minute from one address. */
    public static CheckAdmission defaults() {
        return new CheckAdmission(4, 2, 30, java.time.Duration.ofMinutes(1).toNanos(), 16_384);
    }

    /**
     * Admits a check for {@code address} at {@code now}: empty when it may run (then call {@link #done} exactly once),
     * otherwise why not.
     */
    public Optional<Refusal> admit(String address, long now) {
        Objects.requireNonNull(address, "address");
        Bucket b = refused.peek(address);
        long w = b == null ? 0 : b.reserve(1, now);
        if (w == 0 && b != null) {
            b.release(1, now); // only a refused token takes one
        } else if (w > 0) {
            long wait = Math.max(1, (w + 999_999_999L) / 1_000_000_000L);
            return Optional.of(new Refusal(429, "rate-limited: too many refused tokens from your address ("
                    + refusals + " in " + windowNanos / 1_000_000_000L + " s); try again in " + wait + " s", wait));
        }
        synchronized (this) {
            int mine = running.getOrDefault(address, 0);
            if (mine >= perAddress) {
                return Optional.of(new Refusal(503, "busy: " + perAddress
                        + " tokens from your address are being checked; try again", 1));
            }
            if (runningAll >= slots) {
                return Optional.of(new Refusal(503, "busy: too many tokens being checked at once; try again", 1));
            }
            running.put(address, mine + 1);
            runningAll++;
        }
        return Optional.empty();
    }

    /** Ends a check {@link #admit admitted} for {@code address}; {@code tokenRefused}: it answered 401 or 403. */
    public void done(String address, boolean tokenRefused, long now) {
        synchronized (this) {
            Integer mine = running.get(address);
            if (mine == null) {
                throw new IllegalStateException("no check running for " + address);
            }
            if (mine == 1) {
                running.remove(address);
            } else {
                running.put(address, mine - 1);
            }
            runningAll--;
        }
        if (tokenRefused) {
            refused.get(address, k -> new Bucket(refusals, windowNanos, now)).reserve(1, now);
        }
    }

    /** Checks running now, node-wide. */
    public synchronized int running() {
        return runningAll;
    }
}
