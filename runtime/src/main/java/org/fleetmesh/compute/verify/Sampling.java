package org.fleetmesh.compute.verify;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Which jobs a buyer re-executes (docs/spec/compute-runtimes.md, "Sampled re-execution"). The choice is a pure function
 * of a secret only the buyer holds and the job's id: the same job gets the same answer after a restart (with the same
 * secret), and the worker, which does not know the secret, cannot tell which of its jobs will be checked, so it cannot
 * cheat only on unchecked ones. A job is chosen when HMAC-SHA256(secret, id)'s first 8 bytes, read as an unsigned
 * integer, are below {@code rate · 2^64}.
 */
public final class Sampling {
    private static final double TWO_64 = 18446744073709551616.0;
    private final byte[] secret;

    /** @param secret at least 16 bytes, kept by the buyer and never sent */
    public Sampling(byte[] secret) {
        if (secret.length < 16) {
            throw new IllegalArgumentException("the sampling secret is at least 16 bytes");
        }
        this.secret = secret.clone();
    }

    /** A sampler with a fresh random secret (its choices do not survive a restart). */
    public static Sampling random() {
        byte[] s = new byte[32];
        new SecureRandom().nextBytes(s);
        return new Sampling(s);
    }

    /** Whether job {@code jobId} is re-executed at sampling rate {@code rate} (0..1). */
    public boolean decide(String jobId, double rate) {
        checkRate(rate);
        if (rate >= 1.0) {
            return true;
        }
        if (rate <= 0.0) {
            return false;
        }
        return Long.compareUnsigned(draw(jobId), threshold(rate)) < 0;
    }

    /**
     * Whether job {@code jobId} is re-executed: always when {@code always} (a Tier 0 worker, or one whose compute
     * standing is below the buyer's threshold), otherwise at {@code rate}.
     */
    public boolean decide(String jobId, double rate, boolean always) {
        return always || decide(jobId, rate);
    }

    /** The job's uniform 64-bit draw: the first 8 bytes of HMAC-SHA256(secret, UTF-8 of the id), big-endian. */
    long draw(String jobId) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            byte[] h = mac.doFinal(jobId.getBytes(StandardCharsets.UTF_8));
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | (h[i] & 0xff);
            }
            return v;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** rate · 2^64 as an unsigned 64-bit integer (0 < rate < 1). */
    static long threshold(double rate) {
        double t = rate * TWO_64;
        // values ≥ 2^63 do not fit a signed long: subtract 2^63 and set the top bit
        return t >= TWO_64 / 2 ? ((long) (t - TWO_64 / 2)) | Long.MIN_VALUE : (long) t;
    }

    /** P(a cheated job is re-executed) = s: each job is chosen independently of what the worker did. */
    public static double catchPerCheat(double rate) {
        checkRate(rate);
        return rate;
    }

    /**
     * P(at least one catch over {@code n} jobs) = 1 − (1 − f·s)^n, for a worker that cheats on each job independently
     * with probability {@code f} and a buyer sampling at rate {@code s}.
     */
    public static double catchWithin(double f, double s, long n) {
        checkRate(f);
        checkRate(s);
        if (n < 0) {
            throw new IllegalArgumentException("n is not negative");
        }
        return -Math.expm1(n * Math.log1p(-f * s));
    }

    /** Expected number of jobs until the first catch, 1/(f·s) (geometric); infinite when f·s = 0. */
    public static double expectedJobsToCatch(double f, double s) {
        checkRate(f);
        checkRate(s);
        return f * s == 0 ? Double.POSITIVE_INFINITY : 1.0 / (f * s);
    }

    /** The fewest jobs n with P(caught within n) ≥ {@code confidence}: ⌈ln(1 − c) / ln(1 − f·s)⌉. */
    public static long jobsForConfidence(double f, double s, double confidence) {
        checkRate(f);
        checkRate(s);
        if (!(confidence > 0 && confidence < 1)) {
            throw new IllegalArgumentException("confidence is in (0, 1)");
        }
        double p = f * s;
        if (p == 0) {
            return Long.MAX_VALUE;
        }
        if (p >= 1) {
            return 1;
        }
        return (long) Math.ceil(Math.log1p(-confidence) / Math.log1p(-p));
    }

    private static void checkRate(double r) {
        if (!(r >= 0 && r <= 1)) {
            throw new IllegalArgumentException("a rate is in [0, 1]: " + r);
        }
    }
}
