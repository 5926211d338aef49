package org.fleetmesh.shards;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * When a shard's claim is (re)published (docs/spec/shards.md §5): at once when the shard has none, then only when its
 * figures changed and at least {@code interval} after the last one, and always with a {@code created_at} later than the
 * last (an addressable event with an equal {@code created_at} would not reliably replace it). Thread-safe.
 */
public final class ClaimSchedule {
    private final long intervalSeconds;
    private final Map<String, Claim> last = new HashMap<>(); // guarded by this
    private final Map<String, Long> withdrawnAt = new HashMap<>(); // guarded by this

    public ClaimSchedule(Duration interval) {
        this.intervalSeconds = Math.max(0, interval.toSeconds());
    }

    /**
     * Whether a claim of {@code shard} with figures {@code now} at time {@code nowSeconds} is due. The count and
     * fingerprint decide "changed" (the root follows from the same set), so a caller can ask before computing the root.
     */
    public synchronized boolean due(Shard shard, long count, byte[] fingerprint, long nowSeconds) {
        Long withdrawn = withdrawnAt.get(shard.id());
        if (withdrawn != null && nowSeconds <= withdrawn) {
            return false; // the NIP-09 deletion of the address refuses claims up to its created_at
        }
        Claim c = last.get(shard.id());
        if (c == null || !c.sameShard(shard) || c.shard().mode() != shard.mode()) {
            return c == null || nowSeconds > c.createdAt();
        }
        if (c.figures().count() == count && java.util.Arrays.equals(c.figures().fingerprint(), fingerprint)) {
            return false;
        }
        return nowSeconds > c.createdAt() && nowSeconds - c.createdAt() >= intervalSeconds;
    }

    /** Records the claim now published (or found stored at start) as the shard's last. */
    public synchronized void published(Claim c) {
        Claim old = last.get(c.shard().id());
        if (old == null || c.createdAt() >= old.createdAt()) {
            last.put(c.shard().id(), c);
        }
    }

    /** The last claim of the shard with this id, if any. */
    public synchronized Optional<Claim> last(String id) {
        return Optional.ofNullable(last.get(id));
    }

    /**
     * Forgets a shard no longer declared, whose claims a NIP-09 deletion of their address made at {@code atSeconds}
     * withdrew: a later declaration of the id is claimed only after that second.
     */
    public synchronized void withdrawn(String id, long atSeconds) {
        last.remove(id);
        withdrawnAt.merge(id, atSeconds, Math::max);
    }
}
