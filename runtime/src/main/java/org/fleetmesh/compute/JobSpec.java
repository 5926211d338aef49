package org.fleetmesh.compute;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * What determines a job's result (docs/spec/compute.md, "The job"): the module and the input by SHA-256, the
 * arguments, the fuel limit, the memory cap, the pinned clock and the random seed. Two runs of the same spec on any
 * conforming runtime give the same stdout, stderr, exit code and {@code fuel_used}. {@link #digest()} is SHA-256 over
 * {@link #canonicalJson()}, which job records carry in their {@code job} tag.
 */
public record JobSpec(String module, String input, List<String> args, long fuelLimit, int memoryPages, long time,
        String seed) {
    private static final Pattern HEX32 = Pattern.compile("[0-9a-f]{64}");
    private static final JsonFactory JSON = new JsonFactory();
    /** At most this many arguments, each at most {@link #MAX_ARG_BYTES} UTF-8 bytes. */
    public static final int MAX_ARGS = 64;
    public static final int MAX_ARG_BYTES = 4096;
    /** The latest job time: its clocks read time × 10⁹ ns, which must fit a signed 64-bit count (year 2262). */
    public static final long MAX_TIME = Long.MAX_VALUE / 1_000_000_000L;
    /** The memory cap is 1..65536 pages (4 GiB, the whole 32-bit address space). */
    public static final int MAX_PAGES = 65536;

    public JobSpec {
        args = List.copyOf(args);
        if (!HEX32.matcher(module).matches()) {
            throw new IllegalArgumentException("module: 64 lowercase hex characters (SHA-256 of the module)");
        }
        if (!HEX32.matcher(input).matches()) {
            throw new IllegalArgumentException("input: 64 lowercase hex characters (SHA-256 of stdin)");
        }
        if (!HEX32.matcher(seed).matches()) {
            throw new IllegalArgumentException("seed: 64 lowercase hex characters (32 bytes)");
        }
        if (args.size() > MAX_ARGS) {
            throw new IllegalArgumentException("args: at most " + MAX_ARGS);
        }
        for (String a : args) {
            if (a.getBytes(StandardCharsets.UTF_8).length > MAX_ARG_BYTES || a.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("args: each at most " + MAX_ARG_BYTES + " bytes, without NUL");
            }
            if (!StandardCharsets.UTF_8.newEncoder().canEncode(a)) {
                // a lone surrogate has no UTF-8: getBytes would make it "?", other runtimes U+FFFD
                throw new IllegalArgumentException("args: each text with a UTF-8 encoding (no lone surrogate)");
            }
        }
        if (fuelLimit <= 0) {
            throw new IllegalArgumentException("fuel_limit: a positive integer");
        }
        if (memoryPages < 1 || memoryPages > MAX_PAGES) {
            throw new IllegalArgumentException("memory_pages: 1.." + MAX_PAGES);
        }
        if (time < 0 || time > MAX_TIME) {
            throw new IllegalArgumentException("time: seconds since 1970, 0.." + MAX_TIME);
        }
    }

    /** SHA-256 hex of {@code bytes}: how modules and inputs are named. */
    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code {"module":..,"input":..,"args":[..],"fuel_limit":N,"memory_pages":N,"time":N,"seed":..}}: exactly these
     * members in this order, no whitespace, strings escaped as Jackson writes them (only {@code "}, {@code \} and
     * control characters escaped; non-ASCII as UTF-8).
     */
    public String canonicalJson() {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            g.writeStringField("module", module);
            g.writeStringField("input", input);
            g.writeArrayFieldStart("args");
            for (String a : args) {
                g.writeString(a);
            }
            g.writeEndArray();
            g.writeNumberField("fuel_limit", fuelLimit);
            g.writeNumberField("memory_pages", memoryPages);
            g.writeNumberField("time", time);
            g.writeStringField("seed", seed);
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return w.toString();
    }

    public String digest() {
        return sha256(canonicalJson().getBytes(StandardCharsets.UTF_8));
    }

    /** Reads the object {@link #canonicalJson()} writes (members in any order); IllegalArgumentException says why not. */
    public static JobSpec fromJson(JsonNode n) {
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("job: a JSON object");
        }
        JsonNode a = n.get("args");
        List<String> args = new ArrayList<>();
        if (a != null && !a.isNull()) {
            if (!a.isArray()) {
                throw new IllegalArgumentException("args: an array of strings");
            }
            for (JsonNode x : a) {
                if (!x.isTextual()) {
                    throw new IllegalArgumentException("args: an array of strings");
                }
                args.add(x.textValue());
            }
        }
        return new JobSpec(text(n, "module"), text(n, "input"), args, integer(n, "fuel_limit"),
                Math.toIntExact(Math.min(integer(n, "memory_pages"), Integer.MAX_VALUE)), integer(n, "time"),
                text(n, "seed"));
    }

    private static String text(JsonNode n, String name) {
        JsonNode v = n.get(name);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException(name + ": a string");
        }
        return v.textValue();
    }

    private static long integer(JsonNode n, String name) {
        JsonNode v = n.get(name);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new IllegalArgumentException(name + ": an integer");
        }
        return v.longValue();
    }
}
