package org.fleetmesh.compute.nip90;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Pattern;

import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.nostr.Event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A NIP-90 job request of kind 5600 as benthecarman/wasm-dvm writes it (docs/spec/compute-agent.md, "NIP-90
 * bridge"): one {@code ["i", "<JSON>", "text"]} tag whose JSON is {@code {url, function, input, time, checksum}},
 * optional {@code ["param", "arg"|"fuel"|"memory_pages", value]} tags and a {@code ["bid", msat]} tag. Only WASI
 * command modules run here, so {@code function} is {@code _start} or absent.
 */
public record DvmRequest(Event event, String url, String checksum, String input, long timeMillis, List<String> args,
        OptionalLong fuel, OptionalInt memoryPages, OptionalLong bidMsat, List<String> providers, String inputTag) {
    public static final int KIND = 5600;
    /** The result kind: request kind + 1000 (NIP-90). */
    public static final int RESULT_KIND = 6600;
    public static final int FEEDBACK_KIND = 7000;
    /** The {@code i} JSON is at most this many characters (the relay bounds the event as a whole too). */
    public static final int MAX_INPUT_TAG = 262_144;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern HEX32 = Pattern.compile("[0-9a-f]{64}");

    public DvmRequest {
        args = List.copyOf(args);
        providers = List.copyOf(providers);
    }

    /** Whether the request names service providers ({@code p} tags) and {@code pubkeyHex} is not one of them. */
    public boolean forSomeoneElse(String pubkeyHex) {
        return !providers.isEmpty() && !providers.contains(pubkeyHex);
    }

    public byte[] stdin() {
        return input.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads a kind 5600 event.
     *
     * @throws DvmException with the reason the customer is told
     */
    public static DvmRequest parse(Event e) throws DvmException {
        if (e.kind() != KIND) {
            throw new DvmException("kind " + e.kind() + " is not a WASM job request (" + KIND + ")");
        }
        String inputTag = null;
        List<String> args = new ArrayList<>();
        List<String> providers = new ArrayList<>();
        OptionalLong fuel = OptionalLong.empty();
        OptionalInt pages = OptionalInt.empty();
        OptionalLong bid = OptionalLong.empty();
        for (List<String> t : e.tags()) {
            if (t.isEmpty()) {
                continue;
            }
            switch (t.get(0)) {
                case "i" -> {
                    if (t.size() < 2 || t.size() >= 3 && !t.get(2).equals("text")) {
                        throw new DvmException("the i tag is [\"i\", \"<job JSON>\", \"text\"]");
                    }
                    if (inputTag != null) {
                        throw new DvmException("one i tag: the job JSON {url, function, input, time, checksum}");
                    }
                    inputTag = t.get(1);
                }
                case "param" -> {
                    if (t.size() != 3) {
                        throw new DvmException("a param tag is [\"param\", name, value]");
                    }
                    switch (t.get(1)) {
                        case "arg" -> args.add(t.get(2));
                        case "fuel" -> fuel = OptionalLong.of(positive(t.get(2), "param fuel"));
                        case "memory_pages" -> {
                            long p = positive(t.get(2), "param memory_pages");
                            if (p > JobSpec.MAX_PAGES) {
                                throw new DvmException("param memory_pages: 1.." + JobSpec.MAX_PAGES);
                            }
                            pages = OptionalInt.of((int) p);
                        }
                        default -> throw new DvmException("unknown param " + quoted(t.get(1))
                                + " (known: arg, fuel, memory_pages)");
                    }
                }
                case "bid" -> {
                    if (t.size() < 2) {
                        throw new DvmException("the bid tag is [\"bid\", msat]");
                    }
                    bid = OptionalLong.of(nonNegative(t.get(1), "bid"));
                }
                case "p" -> {
                    if (t.size() >= 2) {
                        providers.add(t.get(1));
                    }
                }
                case "encrypted" -> throw new DvmException("encrypted params are not supported here");
                default -> {
                    // other tags (output, relays, alt, ...) do not change the job
                }
            }
        }
        if (inputTag == null) {
            throw new DvmException("no i tag: [\"i\", \"{\\\"url\\\",\\\"function\\\",\\\"input\\\",\\\"time\\\","
                    + "\\\"checksum\\\"}\", \"text\"]");
        }
        if (inputTag.length() > MAX_INPUT_TAG) {
            throw new DvmException("the i tag's JSON is over " + MAX_INPUT_TAG + " characters");
        }
        JsonNode j;
        try {
            j = JSON.readTree(inputTag);
        } catch (java.io.IOException ex) {
            j = null;
        }
        if (j == null || !j.isObject()) {
            throw new DvmException("the i tag's value is a JSON object {url, function, input, time, checksum}");
        }
        String function = text(j, "function", "_start");
        if (!function.equals("_start") && !function.isEmpty()) {
            throw new DvmException("function " + quoted(function) + ": modules here are WASI commands; "
                    + "only _start (or no function) runs");
        }
        String checksum = text(j, "checksum", null);
        if (checksum == null || !HEX32.matcher(checksum.toLowerCase(Locale.ROOT)).matches()) {
            throw new DvmException("checksum: the SHA-256 of the module, 64 hex characters");
        }
        String url = text(j, "url", "");
        String input = text(j, "input", "");
        JsonNode time = j.get("time");
        if (time == null || !time.isIntegralNumber() || !time.canConvertToLong() || time.longValue() <= 0) {
            throw new DvmException("time: the most milliseconds the job may take, a positive integer");
        }
        return new DvmRequest(e, url, checksum.toLowerCase(Locale.ROOT), input, time.longValue(), args, fuel, pages,
                bid, providers, inputTag);
    }

    private static String text(JsonNode j, String name, String absent) throws DvmException {
        JsonNode v = j.get(name);
        if (v == null || v.isNull()) {
            return absent;
        }
        if (!v.isTextual()) {
            throw new DvmException(name + ": a string");
        }
        return v.textValue();
    }

    private static long positive(String v, String what) throws DvmException {
        long n = nonNegative(v, what);
        if (n == 0) {
            throw new DvmException(what + ": a positive integer");
        }
        return n;
    }

    private static long nonNegative(String v, String what) throws DvmException {
        try {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException ex) {
            throw new DvmException(what + ": an integer, not negative, got " + quoted(v));
        }
    }

    private static String quoted(String s) {
        return "\"" + (s.length() > 64 ? s.substring(0, 64) + "..." : s) + "\"";
    }
}
