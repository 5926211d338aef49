package org.fleetmesh.compute.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

/** Which jobs a buyer re-executes, and the catch probabilities (docs/spec/compute-runtimes.md). */
class SamplingTest {
    private static byte[] secret(int b) {
        byte[] s = new byte[32];
        Arrays.fill(s, (byte) b);
        return s;
    }

    @Test
    void theChoiceIsAFunctionOfTheSecretAndTheJob() {
        Sampling a = new Sampling(secret(1));
        Sampling again = new Sampling(secret(1));
        Sampling other = new Sampling(secret(2));
        int differ = 0;
        for (int i = 0; i < 200; i++) {
            String id = "job " + i;
            assertEquals(a.decide(id, 0.5), again.decide(id, 0.5));
            if (a.decide(id, 0.5) != other.decide(id, 0.5)) {
                differ++;
            }
        }
        // with another secret about half the choices change: the worker cannot compute them without it
        assertTrue(differ > 60 && differ < 140, "choices that changed with the secret: " + differ);
    }

    @Test
    void theDrawIsTheFirstEightBytesOfTheHmac() {
        // printf job | openssl dgst -sha256 -mac HMAC -macopt hexkey:$(printf '01%.0s' $(seq 32))
        String hmac = "0f4d7bc27d7b002201004bd2656000fee2075ebda75de22f8b3f9373c8c0dd99";
        assertEquals(Long.parseUnsignedLong(hmac.substring(0, 16), 16), new Sampling(secret(1)).draw("job"));
    }

    @Test
    void ratesZeroAndOneAndTheAlwaysRule() {
        Sampling s = new Sampling(secret(3));
        for (int i = 0; i < 100; i++) {
            assertFalse(s.decide("j" + i, 0.0));
            assertTrue(s.decide("j" + i, 1.0));
            assertTrue(s.decide("j" + i, 0.0, true), "a Tier 0 worker's jobs are always re-executed");
        }
        assertThrows(IllegalArgumentException.class, () -> s.decide("j", 1.5));
        assertThrows(IllegalArgumentException.class, () -> s.decide("j", Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new Sampling(new byte[15]));
    }

    @Test
    void thresholdsAreRateTimesTwoToThe64() {
        assertEquals(Long.MIN_VALUE, Sampling.threshold(0.5));
        assertEquals(1L << 62, Sampling.threshold(0.25));
        assertEquals(0xC000000000000000L, Sampling.threshold(0.75));
    }

    /**
     * Over 100 000 job ids the share chosen at rate s is within 4.5 binomial standard deviations of s (with the fixed
     * secret the outcome is fixed: this checks the mapping, it cannot flake).
     */
    @Test
    void theShareChosenIsTheRate() {
        Sampling s = new Sampling(secret(4));
        int n = 100_000;
        for (double rate : new double[] {0.01, 0.1, 0.25, 0.5, 0.9}) {
            int chosen = 0;
            for (int i = 0; i < n; i++) {
                if (s.decide("job-" + i, rate)) {
                    chosen++;
                }
            }
            double sd = Math.sqrt(n * rate * (1 - rate));
            assertTrue(Math.abs(chosen - n * rate) < 4.5 * sd, "rate " + rate + ": " + chosen + " of " + n);
        }
    }

    @Test
    void catchProbabilities() {
        assertEquals(0.1, Sampling.catchPerCheat(0.1));
        // 1 − (1 − 0.01)^100
        assertEquals(0.6339676587267709, Sampling.catchWithin(0.1, 0.1, 100), 1e-12);
        assertEquals(0.0, Sampling.catchWithin(0.0, 0.5, 1000));
        assertEquals(1.0, Sampling.catchWithin(1.0, 1.0, 1));
        assertEquals(100.0, Sampling.expectedJobsToCatch(0.1, 0.1), 1e-9);
        assertEquals(Double.POSITIVE_INFINITY, Sampling.expectedJobsToCatch(0.0, 0.1));
        // ⌈ln 0.05 / ln 0.99⌉ = ⌈298.07⌉
        assertEquals(299, Sampling.jobsForConfidence(0.1, 0.1, 0.95));
        assertTrue(Sampling.catchWithin(0.1, 0.1, 299) >= 0.95);
        assertTrue(Sampling.catchWithin(0.1, 0.1, 298) < 0.95);
        assertNotEquals(Sampling.catchWithin(0.2, 0.1, 10), Sampling.catchWithin(0.1, 0.1, 10));
    }
}
