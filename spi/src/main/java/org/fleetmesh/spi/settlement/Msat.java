package org.fleetmesh.spi.settlement;

/**
 * Millisatoshi amounts are plain {@code long}s; these are the checks every boundary applies.
 * There is no floating point anywhere on the money path.
 */
public final class Msat {
    /** 21 million BTC in msat (2.1e18): no real amount is larger, and it still fits a long. */
    public static final long MAX = 2_100_000_000_000_000_000L;

    private Msat() {
    }

    /** {@code msat} if 0 ≤ msat ≤ {@link #MAX}; otherwise an {@link IllegalArgumentException} naming {@code what}. */
    public static long checked(long msat, String what) {
        if (msat < 0 || msat > MAX) {
            throw new IllegalArgumentException(what + " must be between 0 and " + MAX + " msat, got " + msat);
        }
        return msat;
    }

    /** {@code msat} if 1 ≤ msat ≤ {@link #MAX}. */
    public static long positive(long msat, String what) {
        if (msat <= 0 || msat > MAX) {
            throw new IllegalArgumentException(what + " must be between 1 and " + MAX + " msat, got " + msat);
        }
        return msat;
    }

    /** a + b, refusing overflow ({@link ArithmeticException}) instead of wrapping. */
    public static long add(long a, long b) {
        return Math.addExact(a, b);
    }

    /** Whole satoshis, rounding down (a rail that only speaks sat must not overcharge). */
    public static long toSatFloor(long msat) {
        return Math.floorDiv(msat, 1000L);
    }

    public static long ofSat(long sat) {
        return Math.multiplyExact(sat, 1000L);
    }
}
