package org.fleetmesh.relay.limits;

import java.util.Collection;
import java.util.function.BooleanSupplier;

import org.fleetmesh.peering.budget.Bucket;
import org.fleetmesh.peering.grant.Tier;
import org.fleetmesh.peering.grant.TierPolicy;

/**
 * The budgets plain clients are held to: one {@link Standing} per source address and one per pubkey, each in a
 * {@link BoundedKeys} map of at most {@code maxKeys}. The address pays for every EVENT and REQ it sends (it cannot be
 * forged); the author's pubkey pays only for events that are stored, and a refusal counts against it only when the
 * event's signature is good, so nobody can spend or spoil another author's standing. Answers are NIP-01 reasons
 * ({@code rate-limited: ...}) or null when the work may go ahead.
 */
public final class ClientLimits {
    /** No limits: every check passes (private deployments, benchmarks). */
    public static final ClientLimits OFF = new ClientLimits(TierPolicy.DEFAULT, 1, false);

    private final TierPolicy policy;
    private final boolean on;
    private final BoundedKeys<Standing> addresses;
    private final BoundedKeys<Standing> pubkeys;

    public ClientLimits(TierPolicy policy, int maxKeys) {
        this(policy, maxKeys, true);
    }

    private ClientLimits(TierPolicy policy, int maxKeys, boolean on) {
        this.policy = policy;
        this.on = on;
        this.addresses = new BoundedKeys<>(maxKeys);
        this.pubkeys = new BoundedKeys<>(maxKeys);
    }

    public boolean isOn() {
        return on;
    }

    public TierPolicy policy() {
        return policy;
    }

    /** What an EVENT was charged, to settle once its outcome is known. */
    public static final class EventCharge {
        static final EventCharge FREE = new EventCharge(null, null, 0);

        private final String refusal;
        private final Standing author;
        private final long size;

        EventCharge(String refusal, Standing author, long size) {
            this.refusal = refusal;
            this.author = author;
            this.size = size;
        }

        /** Why the event must be refused now ({@code rate-limited: ...}), or null. */
        public String refusal() {
            return refusal;
        }

        /** The event was not stored (refused, or a duplicate): the author gets its share back. */
        public void notStored(long now) {
            if (author != null) {
                author.releaseEvent(size, now);
            }
        }
    }

    /**
     * An EVENT of {@code size} UTF-8 bytes from {@code address} by {@code pubkey}, before any verification or
     * storage. {@code signatureValid} is asked only when the author's budget refuses, to decide whether that counts
     * against the author (the address's budget bounds how often).
     */
    public EventCharge event(String address, String pubkey, long size, BooleanSupplier signatureValid, long now) {
        if (!on) {
            return EventCharge.FREE;
        }
        Standing a = addresses.get(address, k -> new Standing(policy, now));
        long wait = a.reserveEvent(size, now);
        if (wait != 0) {
            Tier t = a.tier(now);
            a.violation(now);
            return new EventCharge(eventRefusal("this address", t, size, wait), null, 0);
        }
        Standing p = pubkeys.get(pubkey, k -> new Standing(policy, now));
        wait = p.reserveEvent(size, now);
        if (wait != 0) {
            Tier t = p.tier(now);
            if (signatureValid.getAsBoolean()) {
                p.violation(now);
            }
            return new EventCharge(eventRefusal("this pubkey", t, size, wait), null, 0);
        }
        return new EventCharge(null, p, size);
    }

    /** A NIP-42 AUTH event of {@code size} bytes from {@code address}: from the address's event budget only. */
    public String auth(String address, long size, long now) {
        if (!on) {
            return null;
        }
        Standing a = addresses.get(address, k -> new Standing(policy, now));
        long wait = a.reserveEvent(size, now);
        if (wait != 0) {
            Tier t = a.tier(now);
            a.violation(now);
            return eventRefusal("this address", t, size, wait);
        }
        return null;
    }

    /** A REQ or COUNT from {@code address}, whose connection authenticated {@code pubkeys} (NIP-42; may be empty). */
    public String req(String address, Collection<String> authenticated, long now) {
        if (!on) {
            return null;
        }
        Standing a = addresses.get(address, k -> new Standing(policy, now));
        long wait = a.reserveReq(now);
        if (wait != 0) {
            Tier t = a.tier(now);
            a.violation(now);
            return reqRefusal("this address", t, wait);
        }
        for (String pk : authenticated) {
            Standing p = pubkeys.get(pk, k -> new Standing(policy, now));
            wait = p.reserveReq(now);
            if (wait != 0) {
                Tier t = p.tier(now);
                p.violation(now);
                return reqRefusal("this pubkey", t, wait);
            }
        }
        return null;
    }

    /** Whether {@code address} may open one more subscription; a refusal counts as a violation. */
    public String subscription(String address, long now) {
        if (!on) {
            return null;
        }
        Standing a = addresses.get(address, k -> new Standing(policy, now));
        if (a.subscriptionFits(now)) {
            return null;
        }
        Tier t = a.tier(now);
        a.violation(now);
        return "rate-limited: this address holds its " + t.subscriptions() + " concurrent subscriptions (tier "
                + t.level() + "); close one first";
    }

    /** Subscriptions {@code address} opened (positive) or ended (negative). */
    public void subscriptionsChanged(String address, int delta, long now) {
        if (!on || delta == 0) {
            return;
        }
        Standing a = delta > 0 ? addresses.get(address, k -> new Standing(policy, now)) : addresses.peek(address);
        if (a != null) {
            a.subscriptionsChanged(delta);
        }
    }

    /** The standing of a source address, for status and tests; null when the address is not remembered. */
    public Standing address(String address) {
        return addresses.peek(address);
    }

    public Standing pubkey(String pubkey) {
        return pubkeys.peek(pubkey);
    }

    /** Keys remembered: {addresses, pubkeys}. */
    public int[] remembered() {
        return new int[] { addresses.size(), pubkeys.size() };
    }

    private String eventRefusal(String who, Tier t, long size, long wait) {
        String budget = " (tier " + t.level() + ": " + t.eventsPerWindow() + " events and " + t.bytesPerWindow()
                + " bytes per " + policy.windowSeconds() + " s)";
        if (wait == Bucket.NEVER) {
            return "rate-limited: this event's " + size + " bytes are more than " + who + " may send in a window" + budget;
        }
        return "rate-limited: " + who + " sent too many events" + budget + "; try again in " + millis(wait) + " ms";
    }

    private String reqRefusal(String who, Tier t, long wait) {
        return "rate-limited: " + who + " sent too many REQs and COUNTs (tier " + t.level() + ": " + t.reqsPerWindow()
                + " per " + policy.windowSeconds() + " s); try again in " + millis(wait) + " ms";
    }

    private static long millis(long nanos) {
        return Math.max(1, (nanos + 999_999) / 1_000_000);
    }
}
