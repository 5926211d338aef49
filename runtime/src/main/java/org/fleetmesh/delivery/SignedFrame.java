package org.fleetmesh.delivery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.fleetmesh.identity.Multikey;
import org.fleetmesh.identity.SecretKey;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.peering.Ed25519Signature;
import org.fleetmesh.peering.link.EventFrame;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The header of a signed {@code MESH-EVENTS} frame (docs/spec/delivery.md, "Frames"): the pair's frame sequence, the
 * sender's and receiver's DIDs (short form), the time, per event the links it crossed before this one, and the
 * sender's Ed25519 transport-key signature over {@link #signingBytes}. The events themselves travel as the frame's
 * third element; only their ids are signed.
 *
 * @param ids the events' {@code id} members in frame order, 64 lower-case hex each
 */
public record SignedFrame(long seq, String from, String to, long time, List<Integer> hops, List<String> ids,
        Ed25519Signature sig) {
    /** The domain of the signed bytes; a later version changes it. */
    public static final String DOMAIN = "fleetmesh.frame/1";

    public SignedFrame {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(sig, "sig");
        hops = List.copyOf(hops);
        ids = List.copyOf(ids);
        if (hops.size() != ids.size()) {
            throw new IllegalArgumentException("one hops value per event");
        }
    }

    public int count() {
        return ids.size();
    }

    /** The bytes the sender signs: the header lines, then one {@code <id> <hops>} line per event. */
    public static byte[] signingBytes(String from, String to, long seq, long time, List<String> ids, List<Integer> hops) {
        StringBuilder sb = new StringBuilder(96 + from.length() + to.length() + ids.size() * 68);
        sb.append(DOMAIN).append('\n').append(from).append('\n').append(to).append('\n').append(seq).append('\n')
                .append(time).append('\n').append(ids.size()).append('\n');
        for (int i = 0; i < ids.size(); i++) {
            sb.append(ids.get(i)).append(' ').append(hops.get(i)).append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    public byte[] signingBytes() {
        return signingBytes(from, to, seq, time, ids, hops);
    }

    /** Signs a frame with the sender's transport key (the Ed25519 seed). */
    public static SignedFrame sign(SecretKey transport, String from, String to, long seq, long time, List<String> ids,
            List<Integer> hops) {
        Ed25519Signature sig = Ed25519Signature.sign(signingBytes(from, to, seq, time, ids, hops), transport);
        return new SignedFrame(seq, from, to, time, hops, ids, sig);
    }

    /** Whether {@link #sig} signs this header under the sender's transport key. */
    public boolean verifies(Multikey transportKey) {
        return sig.verifies(signingBytes(), transportKey);
    }

    /** The header object, {@code {"seq","count","from","to","time","hops","sig"}}. */
    public String headerJson() {
        StringBuilder sb = new StringBuilder(256 + hops.size() * 3);
        sb.append("{\"seq\":").append(seq).append(",\"count\":").append(ids.size()).append(",\"from\":")
                .append(NostrJson.quote(from)).append(",\"to\":").append(NostrJson.quote(to)).append(",\"time\":")
                .append(time).append(",\"hops\":[");
        for (int i = 0; i < hops.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(hops.get(i));
        }
        return sb.append("],\"sig\":\"").append(sig.hex()).append("\"}").toString();
    }

    /** The whole message: {@code ["MESH-EVENTS", <header>, [<event>, ...]]}, the events as given (their JSON texts). */
    public String encode(List<String> events) {
        if (events.size() != ids.size()) {
            throw new IllegalArgumentException("the frame signs " + ids.size() + " events, " + events.size() + " given");
        }
        String header = headerJson();
        StringBuilder sb = new StringBuilder(header.length() + 24 + events.stream().mapToInt(String::length).sum()
                + events.size());
        sb.append("[\"").append(EventFrame.EVENTS).append("\",").append(header).append(",[");
        for (int i = 0; i < events.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(events.get(i));
        }
        return sb.append("]]").toString();
    }

    /** What a receiver read from an unverified header, before it matched the ids to the events. */
    public record Header(long seq, long count, String from, String to, long time, List<Integer> hops, String sig) {
    }

    /**
     * Reads a header object as sent. Unknown members are skipped (a later version may add some).
     *
     * @throws FrameException {@code invalid: ...}, naming the first rule broken
     */
    public static Header parseHeader(String headerJson) throws FrameException {
        JsonNode h = DeliveryJson.read(headerJson, "the MESH-EVENTS header");
        if (!h.isObject()) {
            throw new FrameException("invalid: the MESH-EVENTS header is an object");
        }
        long seq = DeliveryJson.count(h.get("seq"));
        long count = DeliveryJson.count(h.get("count"));
        if (seq < 0 || count < 0) {
            throw new FrameException("invalid: the MESH-EVENTS header needs \"seq\" and \"count\"");
        }
        JsonNode sig = h.get("sig");
        if (sig == null || sig.isNull()) {
            throw new FrameException("invalid: a frame must be signed (docs/spec/delivery.md)");
        }
        if (!sig.isTextual() || !Hex.isLowerHex(sig.textValue(), 2 * Ed25519Signature.LENGTH)) {
            throw new FrameException("invalid: the frame's \"sig\" is 128 lower-case hex characters");
        }
        String from = text(h, "from");
        String to = text(h, "to");
        long time = DeliveryJson.count(h.get("time"));
        if (time < 0) {
            throw new FrameException("invalid: the frame's \"time\" is unix milliseconds");
        }
        JsonNode hopsNode = h.get("hops");
        if (hopsNode == null || !hopsNode.isArray()) {
            throw new FrameException("invalid: the frame's \"hops\" is an array of integers");
        }
        if (hopsNode.size() != count) {
            throw new FrameException("invalid: the frame's \"hops\" has " + hopsNode.size() + " entries for "
                    + count + " events");
        }
        List<Integer> hops = new ArrayList<>(hopsNode.size());
        for (JsonNode v : hopsNode) {
            if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < 0) {
                throw new FrameException("invalid: the frame's \"hops\" entries are non-negative integers");
            }
            hops.add(v.intValue());
        }
        return new Header(seq, count, from, to, time, List.copyOf(hops), sig.textValue());
    }

    private static String text(JsonNode h, String name) throws FrameException {
        JsonNode v = h.get(name);
        if (v == null || !v.isTextual() || v.textValue().isEmpty()) {
            throw new FrameException("invalid: the frame's \"" + name + "\" is a DID");
        }
        return v.textValue();
    }

    /** The frame a header describes, with the ids read from its events. */
    public static SignedFrame of(Header h, List<String> ids) {
        return new SignedFrame(h.seq(), h.from(), h.to(), h.time(), h.hops(), ids, Ed25519Signature.ofHex(h.sig()));
    }

    /**
     * The top-level {@code id} member of an event's JSON text, as sent; the event is not otherwise checked here (the
     * relay's ingest does that).
     *
     * @throws FrameException when the text is no object or has no 64 lower-case hex {@code id}
     */
    public static String idOf(String eventJson, int index) throws FrameException {
        try (JsonParser p = DeliveryJson.FACTORY.createParser(eventJson)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new FrameException("invalid: event " + index + " of the frame is not a JSON object");
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                if (name.equals("id")) {
                    if (v == JsonToken.VALUE_STRING && Hex.isLowerHex(p.getText(), 64)) {
                        return p.getText();
                    }
                    break;
                }
                p.skipChildren();
            }
        } catch (IOException e) {
            throw new FrameException("invalid: event " + index + " of the frame is not JSON");
        }
        throw new FrameException("invalid: event " + index + " of the frame has no 64-hex \"id\"");
    }
}
