package org.fleetmesh.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;

import org.junit.jupiter.api.Test;

/** The detection math of docs/spec/sampling.md against exact binomials, the bound, and the worked example. */
class DetectionTest {

    private static BigInteger choose(int n, int k) {
        BigInteger r = BigInteger.ONE;
        for (int i = 0; i < k; i++) {
            r = r.multiply(BigInteger.valueOf(n - i)).divide(BigInteger.valueOf(i + 1));
        }
        return r;
    }

    private static double exactDetect(int n, int w, int k) {
        BigDecimal miss = new BigDecimal(choose(n - w, k)).divide(new BigDecimal(choose(n, k)), MathContext.DECIMAL128);
        return BigDecimal.ONE.subtract(miss).doubleValue();
    }

    @Test
    void detectEqualsOneMinusTheBinomialRatio() {
        for (int n : new int[] { 1, 2, 7, 50, 300 }) {
            for (int w = 0; w <= n; w += Math.max(1, n / 7)) {
                for (int k = 0; k <= n; k += Math.max(1, n / 11)) {
                    double expected = exactDetect(n, w, k);
                    assertEquals(expected, Detection.detect(n, w, k), 1e-12, "n=" + n + " w=" + w + " k=" + k);
                }
            }
        }
    }

    @Test
    void theBoundNeverExceedsTheExactProbability() {
        for (long n : new long[] { 10, 100, 1000, 1_000_000 }) {
            for (long w : new long[] { 1, n / 100, n / 10, n / 2 }) {
                if (w == 0) {
                    continue;
                }
                for (long k : new long[] { 1, 5, 46, 459, n / 2, n }) {
                    if (k > n) {
                        continue;
                    }
                    double exact = Detection.detect(n, w, k);
                    double bound = Detection.detectBound((double) w / n, k);
                    assertTrue(bound <= exact + 1e-15, "n=" + n + " w=" + w + " k=" + k + ": " + bound + " > " + exact);
                }
            }
        }
    }

    @Test
    void fourHundredFiftyNineSamplesCatchAOnePercentWithholderWithNinetyNinePercent() {
        assertEquals(459, Detection.samplesFor(0.01, 0.99));
        assertTrue(Detection.detectBound(0.01, 459) >= 0.99);
        assertTrue(Detection.detectBound(0.01, 458) < 0.99);
        // exact, in a set of a million: no more than the bound asks
        long exact = Detection.samplesFor(1_000_000, 10_000, 0.99);
        assertTrue(exact <= 459 && exact >= 457, "exact " + exact);
        // in a small set sampling without replacement needs fewer
        assertTrue(Detection.samplesFor(1000, 10, 0.99) < 459);
    }

    @Test
    void samplesForIsTheSmallestThatReachesTheTarget() {
        for (long n : new long[] { 100, 1000, 50_000 }) {
            for (long w : new long[] { 1, n / 100, n / 20 }) {
                for (double p : new double[] { 0.5, 0.9, 0.99, 0.999999 }) {
                    long k = Detection.samplesFor(n, w, p);
                    assertTrue(Detection.detect(n, w, k) >= p - 1e-12, "n=" + n + " w=" + w + " p=" + p);
                    if (k > 1) {
                        assertTrue(Detection.detect(n, w, k - 1) < p, "n=" + n + " w=" + w + " p=" + p);
                    }
                }
            }
        }
    }

    @Test
    void moreSamplesThanServedEventsAlwaysDetect() {
        assertEquals(1.0, Detection.detect(100, 10, 91));
        assertEquals(0.0, Detection.detect(100, 0, 100));
        assertEquals(0.0, Detection.detect(100, 10, 0));
    }

    @Test
    void roundsForMeetsTheMissTarget() {
        // the default round of 46 samples against 1% withheld of 1,000: 30 rounds for P(miss) <= 1e-6
        double miss = Detection.miss(1000, 10, 46);
        long rounds = Detection.roundsFor(1000, 10, 46, 1e-6);
        assertTrue(Math.pow(miss, rounds) <= 1e-6);
        assertTrue(Math.pow(miss, rounds - 1) > 1e-6);
        assertEquals(30, rounds);
        assertEquals(1, Detection.roundsFor(0.0, 1e-6));
        assertEquals(1, Detection.roundsFor(0.5, 0.5));
        assertEquals(2, Detection.roundsFor(0.5, 0.25));
    }

    @Test
    void nonsenseIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Detection.detect(10, 11, 1));
        assertThrows(IllegalArgumentException.class, () -> Detection.detect(10, 1, 11));
        assertThrows(IllegalArgumentException.class, () -> Detection.samplesFor(0, 0.9));
        assertThrows(IllegalArgumentException.class, () -> Detection.samplesFor(0.1, 1.0));
        assertThrows(IllegalArgumentException.class, () -> Detection.roundsFor(1.0, 1e-6));
    }
}
