package org.fleetmesh.shards;

/**
 * The detection math of sampling (docs/spec/sampling.md): a peer asserts a set of {@code n} events of which it
 * withholds {@code w}; a round draws {@code k} distinct events uniformly and asks for each. The round misses the
 * withholder when every sample is one it serves: {@code C(n−w, k) / C(n, k)} (hypergeometric), at most
 * {@code (1 − w/n)^k} (drawing with replacement). Computed in log space, so that {@code n} in the millions and
 * probabilities near 0 or 1 stay exact to double precision.
 */
public final class Detection {
    private Detection() {
    }

    /** ln P(a round of {@code k} samples misses all {@code w} withheld events of {@code n}): ln C(n−w,k) − ln C(n,k). */
    public static double logMiss(long n, long w, long k) {
        check(n, w, k);
        if (w == 0) {
            return 0;
        }
        if (k > n - w) {
            return Double.NEGATIVE_INFINITY; // some sample must be a withheld one
        }
        // C(n−w,k)/C(n,k) = Π_{i<k} (n−w−i)/(n−i) = Π (1 − w/(n−i)); log1p keeps small w/(n−i) exact
        double sum = 0;
        for (long i = 0; i < k; i++) {
            sum += Math.log1p(-(double) w / (double) (n - i));
        }
        return sum;
    }

    /** P(a round of {@code k} samples misses): {@code C(n−w, k) / C(n, k)}. */
    public static double miss(long n, long w, long k) {
        return Math.exp(logMiss(n, w, k));
    }

    /** P(a round of {@code k} samples draws at least one withheld event): {@code 1 − C(n−w, k) / C(n, k)}. */
    public static double detect(long n, long w, long k) {
        return 0.0 - Math.expm1(logMiss(n, w, k)); // 0.0 − x: no −0.0
    }

    /** The lower bound {@code 1 − (1 − f)^k} on {@link #detect} for a withheld fraction {@code f = w/n}. */
    public static double detectBound(double fraction, long k) {
        if (!(fraction >= 0 && fraction <= 1) || k < 0) {
            throw new IllegalArgumentException("fraction is in [0, 1] and k >= 0");
        }
        if (fraction == 1) {
            return k == 0 ? 0 : 1;
        }
        return -Math.expm1(k * Math.log1p(-fraction));
    }

    /**
     * The fewest samples a round needs so that {@link #detectBound} reaches {@code probability} for a withheld
     * fraction {@code fraction}, whatever the set's size: {@code ⌈ln(1 − p) / ln(1 − f)⌉} (459 for f = 1%, p = 99%).
     */
    public static long samplesFor(double fraction, double probability) {
        checkTarget(fraction, probability);
        if (fraction == 1) {
            return 1;
        }
        long k = (long) Math.ceil(Math.log1p(-probability) / Math.log1p(-fraction));
        // floating point can land one either side of an exact integer ratio
        while (k > 0 && detectBound(fraction, k - 1) >= probability) {
            k--;
        }
        while (detectBound(fraction, k) < probability) {
            k++;
        }
        return Math.max(k, 1);
    }

    /**
     * The fewest samples a round needs so that the exact {@link #detect} reaches {@code probability} in a set of
     * {@code n} with {@code w} withheld: never more than {@link #samplesFor(double, double)}, and at most
     * {@code n − w + 1}.
     */
    public static long samplesFor(long n, long w, double probability) {
        check(n, w, 0);
        if (w == 0) {
            throw new IllegalArgumentException("nothing withheld is never detected");
        }
        checkTarget((double) w / n, probability);
        double target = Math.log1p(-probability); // ln P(miss) allowed
        double sum = 0;
        for (long k = 1; k <= n - w; k++) {
            sum += Math.log1p(-(double) w / (double) (n - k + 1));
            if (sum <= target) {
                return k;
            }
        }
        return n - w + 1;
    }

    /**
     * The fewest independent rounds, each missing with probability {@code missPerRound}, after which the chance that
     * all of them missed is at most {@code maxMiss}: {@code ⌈ln(maxMiss) / ln(missPerRound)⌉}.
     */
    public static long roundsFor(double missPerRound, double maxMiss) {
        if (!(missPerRound >= 0 && missPerRound < 1) || !(maxMiss > 0 && maxMiss < 1)) {
            throw new IllegalArgumentException("missPerRound is in [0, 1) and maxMiss in (0, 1)");
        }
        if (missPerRound == 0) {
            return 1;
        }
        long r = (long) Math.ceil(Math.log(maxMiss) / Math.log(missPerRound));
        while (r > 1 && Math.pow(missPerRound, r - 1) <= maxMiss) {
            r--;
        }
        while (Math.pow(missPerRound, r) > maxMiss) {
            r++;
        }
        return Math.max(r, 1);
    }

    /** {@link #roundsFor(double, double)} for rounds of {@code k} samples of a set of {@code n} with {@code w} withheld. */
    public static long roundsFor(long n, long w, long k, double maxMiss) {
        if (w == 0) {
            throw new IllegalArgumentException("nothing withheld is never detected");
        }
        return roundsFor(miss(n, w, k), maxMiss);
    }

    private static void check(long n, long w, long k) {
        if (n < 0 || w < 0 || w > n || k < 0 || k > n) {
            throw new IllegalArgumentException("need 0 <= w <= n and 0 <= k <= n, got n=" + n + " w=" + w + " k=" + k);
        }
    }

    private static void checkTarget(double fraction, double probability) {
        if (!(fraction > 0 && fraction <= 1)) {
            throw new IllegalArgumentException("the withheld fraction is in (0, 1]");
        }
        if (!(probability > 0 && probability < 1)) {
            throw new IllegalArgumentException("the target probability is in (0, 1)");
        }
    }
}
