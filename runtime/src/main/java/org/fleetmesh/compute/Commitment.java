package org.fleetmesh.compute;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/**
 * The worker's commitment to a result (docs/spec/compute.md, "Sealed result"): SHA-256 over the 32-byte key k followed
 * by the UTF-8 of the result's summary {@code {"exit_code":N,"fuel_used":N,"output_digest":"..","stderr_digest":".."}}
 * (exactly these members in this order, no whitespace). It hides the result until k is released (k is the payment
 * preimage) and binds the worker to it afterwards: with k public, anyone can check a summary against the worker's
 * signed commitment.
 */
public final class Commitment {
    private static final JsonFactory JSON = new JsonFactory();

    private Commitment() {
    }

    /** The summary of a result, as the commitment covers it. */
    public record Summary(int exitCode, long fuelUsed, String outputDigest, String stderrDigest) {
        public static Summary of(JobResult r) {
            return new Summary(r.exitCode(), r.fuelUsed(), r.outputDigest(), JobSpec.sha256(r.stderr()));
        }

        public String canonicalJson() {
            StringWriter w = new StringWriter();
            try (JsonGenerator g = JSON.createGenerator(w)) {
                g.writeStartObject();
                g.writeNumberField("exit_code", exitCode);
                g.writeNumberField("fuel_used", fuelUsed);
                g.writeStringField("output_digest", outputDigest);
                g.writeStringField("stderr_digest", stderrDigest);
                g.writeEndObject();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return w.toString();
        }
    }

    /** SHA-256(k ‖ summary JSON), hex. */
    public static String of(byte[] key, Summary s) {
        if (key.length != 32) {
            throw new IllegalArgumentException("k is 32 bytes");
        }
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(key);
            d.update(s.canonicalJson().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
