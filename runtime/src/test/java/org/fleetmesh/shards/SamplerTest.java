package org.fleetmesh.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;

import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Item;
import org.fleetmesh.negentropy.SortedVector;
import org.junit.jupiter.api.Test;

/**
 * The Sampler meets the detection math: over many trials the rate at which a round of k draws at least one of w
 * withheld items of n lies within a few standard deviations of {@link Detection#detect}; every item is drawn equally
 * often; draws are distinct and respect the claim's time bound. Seeded, so a failure reproduces.
 */
class SamplerTest {

    @Test
    void empiricalDetectionRateMatchesTheExactProbability() {
        int[][] cases = { { 100, 1, 10 }, { 100, 5, 20 }, { 1000, 10, 46 }, { 1000, 10, 459 }, { 5000, 50, 46 },
                { 200, 100, 3 }, { 60, 2, 58 } };
        Random random = new Random(20261201L);
        Sampler sampler = new Sampler(random);
        int trials = 20_000;
        for (int[] c : cases) {
            int n = c[0], w = c[1], k = c[2];
            int caught = 0;
            for (int t = 0; t < trials; t++) {
                // a fresh withheld set each trial, independent of the sampler's draws
                Set<Integer> withheld = new HashSet<>();
                while (withheld.size() < w) {
                    withheld.add(random.nextInt(n));
                }
                for (int i : sampler.indices(0, n, k)) {
                    if (withheld.contains(i)) {
                        caught++;
                        break;
                    }
                }
            }
            double p = Detection.detect(n, w, k);
            double rate = (double) caught / trials;
            double sigma = Math.sqrt(p * (1 - p) / trials);
            System.out.printf("Sampler n=%d w=%d k=%d: %d trials, empirical %.4f, exact %.4f, bound %.4f, sigma %.4f%n", n,
                    w, k, trials, rate, p, Detection.detectBound((double) w / n, k), sigma);
            assertTrue(Math.abs(rate - p) <= 5 * sigma + 1e-9,
                    "n=" + n + " w=" + w + " k=" + k + ": rate " + rate + ", exact " + p + ", sigma " + sigma);
        }
    }

    @Test
    void everyItemIsDrawnEquallyOften() {
        Sampler sampler = new Sampler(new Random(7));
        int n = 50, k = 5, trials = 40_000;
        int[] hits = new int[n];
        int[] pairsWithZero = new int[n];
        for (int t = 0; t < trials; t++) {
            int[] drawn = sampler.indices(0, n, k);
            boolean zero = drawn[0] == 0;
            for (int i : drawn) {
                hits[i]++;
                if (zero) {
                    pairsWithZero[i]++;
                }
            }
        }
        double p = (double) k / n;
        double sigma = Math.sqrt(trials * p * (1 - p));
        for (int i = 0; i < n; i++) {
            assertTrue(Math.abs(hits[i] - trials * p) <= 5 * sigma, "item " + i + ": " + hits[i]);
        }
        // pairs: P(0 and i) = k(k−1)/(n(n−1)) for every i ≠ 0 (catches a draw that favours neighbours)
        double pp = (double) k * (k - 1) / ((double) n * (n - 1));
        double sp = Math.sqrt(trials * pp * (1 - pp));
        for (int i = 1; i < n; i++) {
            assertTrue(Math.abs(pairsWithZero[i] - trials * pp) <= 5 * sp, "pair 0," + i + ": " + pairsWithZero[i]);
        }
    }

    @Test
    void drawsAreDistinctAscendingAndWithinTheRange() {
        Sampler sampler = new Sampler(new Random(1));
        for (int t = 0; t < 1000; t++) {
            int[] d = sampler.indices(10, 30, 7);
            assertEquals(7, d.length);
            for (int i = 0; i < d.length; i++) {
                assertTrue(d[i] >= 10 && d[i] < 30);
                assertTrue(i == 0 || d[i] > d[i - 1]);
            }
        }
        assertArrayEquals(new int[] { 3, 4, 5 }, sampler.indices(3, 6, 10));
        assertEquals(0, sampler.indices(3, 3, 10).length);
        assertEquals(List.of("a", "b"), sampler.draw(List.of("a", "b"), 5));
    }

    @Test
    void aRoundDrawsOnlyItemsAtOrBeforeTheTimeBound() {
        SplittableRandom r = new SplittableRandom(3);
        SortedVector.Builder b = SortedVector.builder();
        for (int i = 0; i < 300; i++) {
            byte[] id = new byte[32];
            r.nextBytes(id);
            b.insert(1000 + i / 3, Id.of(id)); // three items a second, 1000..1099
        }
        SortedVector items = b.seal();
        assertEquals(150, Sampler.eligible(items, 1049));
        assertEquals(0, Sampler.eligible(items, 999));
        assertEquals(300, Sampler.eligible(items, Long.MAX_VALUE));
        Sampler sampler = new Sampler(new Random(5));
        for (int t = 0; t < 200; t++) {
            List<Item> drawn = sampler.draw(items, 1049, 20);
            assertEquals(20, drawn.size());
            assertEquals(20, new HashSet<>(drawn).size());
            for (Item i : drawn) {
                assertTrue(i.timestamp() <= 1049);
            }
        }
        assertEquals(3, sampler.draw(items, 1000, 20).size());
    }
}
