package org.fleetmesh.peering.budget;

/**
 * What one direction may spend per window: bytes, events and REQs, each at least 1, or 0 for a resource this
 * allowance does not meter.
 */
public record Allowance(long bytes, long events, long reqs, long windowSeconds) {
    /** The longest window a budget supports: one day. */
    public static final long MAX_WINDOW_SECONDS = 86_400;

    public Allowance {
        if (windowSeconds < 1 || windowSeconds > MAX_WINDOW_SECONDS) {
            throw new IllegalArgumentException("a window must be 1.." + MAX_WINDOW_SECONDS + " s, was " + windowSeconds);
        }
        long windowNanos = windowSeconds * 1_000_000_000L;
        for (long v : new long[] { bytes, events, reqs }) {
            if (v < 0 || v > windowNanos) {
                throw new IllegalArgumentException("an allowance must be 0..(window in ns), was " + v);
            }
        }
    }

    public long of(Resource r) {
        return switch (r) {
            case BYTES -> bytes;
            case EVENTS -> events;
            case REQS -> reqs;
        };
    }

    public long windowNanos() {
        return windowSeconds * 1_000_000_000L;
    }
}
