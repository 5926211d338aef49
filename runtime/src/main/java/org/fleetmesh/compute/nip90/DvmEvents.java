package org.fleetmesh.compute.nip90;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import org.fleetmesh.compute.JobResult;

/**
 * The tags of what the bridge publishes (NIP-90): job feedback (kind 7000) and the job result (kind 6600).
 * Both tag the request ({@code e}) and the customer ({@code p}); an {@code amount} tag carries the msat asked and the
 * bolt11 to pay.
 */
public final class DvmEvents {
    public static final String PAYMENT_REQUIRED = "payment-required";
    public static final String PROCESSING = "processing";
    public static final String ERROR = "error";
    public static final String SUCCESS = "success";

    private DvmEvents() {
    }

    /** {@code ["status", status, extra]}, {@code ["amount", msat, bolt11]} (when asked), {@code e}, {@code p}. */
    public static List<List<String>> feedback(DvmRequest r, String status, String extra, long amountMsat, String bolt11) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(extra == null ? List.of("status", status) : List.of("status", status, extra));
        if (amountMsat > 0) {
            tags.add(bolt11 == null ? List.of("amount", Long.toString(amountMsat))
                    : List.of("amount", Long.toString(amountMsat), bolt11));
        }
        tags.add(List.of("e", r.event().id().hex()));
        tags.add(List.of("p", r.event().pubkey().hex()));
        return tags;
    }

    /**
     * {@code request} (the request event's JSON), {@code e}, {@code i}, {@code p}, {@code amount} when paid, and what
     * names the run: {@code exit_code}, {@code fuel}, {@code module}, {@code output} (stdout's SHA-256), and
     * {@code ["encoding", "base64"]} when stdout is not UTF-8.
     */
    public static List<List<String>> result(DvmRequest r, JobResult res, long amountMsat, String bolt11) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("request", r.event().json()));
        tags.add(List.of("e", r.event().id().hex()));
        tags.add(List.of("i", r.inputTag(), "text"));
        tags.add(List.of("p", r.event().pubkey().hex()));
        if (amountMsat > 0) {
            tags.add(bolt11 == null ? List.of("amount", Long.toString(amountMsat))
                    : List.of("amount", Long.toString(amountMsat), bolt11));
        }
        tags.add(List.of("exit_code", Integer.toString(res.exitCode())));
        tags.add(List.of("fuel", Long.toString(res.fuelUsed())));
        tags.add(List.of("module", res.moduleHash()));
        tags.add(List.of("output", res.outputDigest()));
        if (utf8(res.stdout()) == null) {
            tags.add(List.of("encoding", "base64"));
        }
        return tags;
    }

    /** The result's content: stdout as text, or base64 when it is not UTF-8. */
    public static String content(JobResult res) {
        String s = utf8(res.stdout());
        return s != null ? s : Base64.getEncoder().encodeToString(res.stdout());
    }

    private static String utf8(byte[] b) {
        try {
            String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
            // NUL is valid UTF-8 but Nostr clients' JSON handling of it varies
            return s.indexOf('\0') >= 0 ? null : s;
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
