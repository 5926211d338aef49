package org.fleetmesh.peering.link;

import org.fleetmesh.peering.budget.Direction;
import org.fleetmesh.spi.peers.PeerRecord;

/**
 * What each side of a link consumed from the other, per direction: bytes, events, nanoseconds of verification and of
 * queries, each decaying exponentially with one half-life, so old load fades and recent load shows (docs/spec/
 * link-events.md, "Strain"). Thread-safe; times are nanoseconds of a monotonic clock.
 */
public final class StrainLedger {
    public enum Measure {
        BYTES, EVENTS, VERIFY_NANOS, QUERY_NANOS
    }

    private static final int MEASURES = Measure.values().length;
    private final double[] values = new double[2 * MEASURES];
    private final double halfLifeNanos;
    private long at;

    public StrainLedger(long halfLifeNanos, long now) {
        if (halfLifeNanos < 1) {
            throw new IllegalArgumentException("a half-life must be positive");
        }
        this.halfLifeNanos = halfLifeNanos;
        this.at = now;
    }

    /** A ledger holding {@code s} as it stood {@code ageNanos} before {@code now}, decayed to now. */
    public static StrainLedger restore(PeerRecord.Strain s, long ageNanos, long halfLifeNanos, long now) {
        StrainLedger l = new StrainLedger(halfLifeNanos, now - Math.max(0, ageNanos));
        long[] v = { s.inBytes(), s.inEvents(), s.inVerifyNanos(), s.inQueryNanos(), s.outBytes(), s.outEvents(),
                s.outVerifyNanos(), s.outQueryNanos() };
        for (int i = 0; i < v.length; i++) {
            l.values[i] = v[i];
        }
        l.decayTo(now);
        return l;
    }

    /** Adds what one exchange cost in direction {@code d}. */
    public synchronized void add(Direction d, long bytes, long events, long verifyNanos, long queryNanos, long now) {
        decayTo(now);
        int o = d.ordinal() * MEASURES;
        values[o] += bytes;
        values[o + 1] += events;
        values[o + 2] += verifyNanos;
        values[o + 3] += queryNanos;
    }

    /** The decayed figure of {@code m} in {@code d} at {@code now}, rounded down. */
    public synchronized long get(Direction d, Measure m, long now) {
        decayTo(now);
        return (long) values[d.ordinal() * MEASURES + m.ordinal()];
    }

    /** Every figure at {@code now}, for the ledger. */
    public synchronized PeerRecord.Strain snapshot(long now) {
        decayTo(now);
        long[] v = new long[values.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = (long) values[i];
        }
        return new PeerRecord.Strain(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    }

    private void decayTo(long now) {
        long elapsed = now - at;
        if (elapsed <= 0) {
            return;
        }
        double factor = Math.pow(0.5, elapsed / halfLifeNanos);
        for (int i = 0; i < values.length; i++) {
            values[i] *= factor;
        }
        at = now;
    }
}
