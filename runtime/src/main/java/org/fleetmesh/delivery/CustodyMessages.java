package org.fleetmesh.delivery;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.Snippet;

/**
 * The custody messages of a link (docs/spec/delivery.md, "Receipts" and "Catch-up"): {@code MESH-CUSTODY} (sender →
 * receiver: the last checkpoint of the receiver's tree the sender verified), {@code MESH-CUSTODY-HEAD} (the receiver's
 * head after its catch-up receipts) and {@code MESH-RECEIPT} (a kind 11803 receipt with its consistency proof and the
 * ids it appended).
 */
public final class CustodyMessages {
    public static final String CUSTODY = "MESH-CUSTODY";
    public static final String HEAD = "MESH-CUSTODY-HEAD";
    public static final String RECEIPT = "MESH-RECEIPT";
    /** Hashes in a consistency proof: 2·log2 of any tree this side of 2^63 leaves. */
    public static final int MAX_PROOF = 128;
    private static final MessageParser EVENTS = new MessageParser(MessageParser.Limits.DEFAULT);

    private CustodyMessages() {
    }

    /** {@code {"size", "head"}}: a checkpoint named by its size and receipt id (null before the first receipt). */
    public record Custody(long size, String head) {
    }

    /**
     * {@code {"size", "head", "seq", "more"}}: the receiver's head, its last receipted frame seq (or null); with
     * {@code "reset"} the receiver's signed custody reset (custody.md §8: it no longer holds the tree the sender
     * mirrors), else null.
     */
    public record Head(long size, String head, Long seq, boolean more, Event reset) {
        public Head(long size, String head, Long seq, boolean more) {
            this(size, head, seq, more, null);
        }
    }

    /** A {@code MESH-RECEIPT}: the frame seq it answers, whether it is a catch-up, the receipt, proof and appended. */
    public record ReceiptMessage(long seq, boolean catchUp, Event receipt, List<byte[]> consistency,
            List<EventId> appended) {
        public ReceiptMessage {
            consistency = List.copyOf(consistency);
            appended = List.copyOf(appended);
        }
    }

    public static String custody(long size, String head) {
        return "[\"" + CUSTODY + "\",{\"size\":" + size + ",\"head\":" + quoteOrNull(head) + "}]";
    }

    public static String head(long size, String head, Long seq, boolean more) {
        return head(size, head, seq, more, null);
    }

    /** A MESH-CUSTODY-HEAD; a non-null {@code resetJson} (a kind 11803 reset event) is added as {@code "reset"}. */
    public static String head(long size, String head, Long seq, boolean more, String resetJson) {
        return "[\"" + HEAD + "\",{\"size\":" + size + ",\"head\":" + quoteOrNull(head) + ",\"seq\":"
                + (seq == null ? "null" : seq.toString()) + ",\"more\":" + more
                + (resetJson == null ? "" : ",\"reset\":" + resetJson) + "}]";
    }

    /** A MESH-RECEIPT; {@code catchUp} adds {@code "catch_up": true} to the header. */
    public static String receipt(long seq, boolean catchUp, String receiptJson, List<byte[]> consistency,
            List<EventId> appended) {
        StringBuilder sb = new StringBuilder(receiptJson.length() + 64 + 67 * (consistency.size() + appended.size()));
        sb.append("[\"").append(RECEIPT).append("\",{\"seq\":").append(seq);
        if (catchUp) {
            sb.append(",\"catch_up\":true");
        }
        sb.append("},").append(receiptJson).append(",[");
        for (int i = 0; i < consistency.size(); i++) {
            sb.append(i > 0 ? ",\"" : "\"").append(Hex.encode(consistency.get(i))).append('"');
        }
        sb.append("],[");
        for (int i = 0; i < appended.size(); i++) {
            sb.append(i > 0 ? ",\"" : "\"").append(appended.get(i).hex()).append('"');
        }
        return sb.append("]]").toString();
    }

    private static String quoteOrNull(String s) {
        return s == null ? "null" : NostrJson.quote(s);
    }

    public static Custody parseCustody(String text) throws FrameException {
        JsonNode o = object(text, CUSTODY);
        return new Custody(size(o, CUSTODY), headId(o, CUSTODY));
    }

    public static Head parseHead(String text) throws FrameException {
        JsonNode o = object(text, HEAD);
        JsonNode seq = o.get("seq");
        Long s = null;
        if (seq != null && !seq.isNull()) {
            long v = DeliveryJson.count(seq);
            if (v < 0) {
                throw new FrameException("invalid: " + HEAD + " \"seq\" is a frame sequence or null");
            }
            s = v;
        }
        JsonNode more = o.get("more");
        if (more != null && !more.isNull() && !more.isBoolean()) {
            throw new FrameException("invalid: " + HEAD + " \"more\" is a boolean");
        }
        JsonNode r = o.get("reset");
        Event reset = null;
        if (r != null && !r.isNull()) {
            if (!r.isObject()) {
                throw new FrameException("invalid: " + HEAD + " \"reset\" is a kind 11803 event or absent");
            }
            try {
                reset = EVENTS.parseEvent(DeliveryJson.MAPPER.writeValueAsString(r));
            } catch (ProtocolException | com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new FrameException("invalid: " + HEAD + " reset event: " + Snippet.of(e.getMessage()));
            }
        }
        return new Head(size(o, HEAD), headId(o, HEAD), s, more != null && more.asBoolean(false), reset);
    }

    /**
     * Reads a MESH-RECEIPT: its receipt as a parsed event (not verified here: the sender's {@code ReceiptCheck} does
     * that), at most {@code maxAppended} appended ids.
     */
    public static ReceiptMessage parseReceipt(String text, int maxAppended) throws FrameException {
        JsonNode root = DeliveryJson.read(text, RECEIPT);
        if (!root.isArray() || root.size() != 5 || !RECEIPT.equals(root.get(0).asText(null))) {
            throw new FrameException("invalid: " + RECEIPT + " is [\"" + RECEIPT
                    + "\", {\"seq\"}, <receipt>, [<hash>, ...], [<id>, ...]]");
        }
        JsonNode h = root.get(1);
        long seq = h.isObject() ? DeliveryJson.count(h.get("seq")) : -1;
        if (seq < 0) {
            throw new FrameException("invalid: " + RECEIPT + " needs {\"seq\": <frame sequence>}");
        }
        JsonNode cu = h.get("catch_up");
        if (cu != null && !cu.isNull() && !cu.isBoolean()) {
            throw new FrameException("invalid: " + RECEIPT + " \"catch_up\" is a boolean");
        }
        if (!root.get(2).isObject()) {
            throw new FrameException("invalid: " + RECEIPT + " carries its receipt event");
        }
        Event receipt;
        try {
            receipt = EVENTS.parseEvent(DeliveryJson.MAPPER.writeValueAsString(root.get(2)));
        } catch (ProtocolException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new FrameException("invalid: " + RECEIPT + " receipt event: " + Snippet.of(e.getMessage()));
        }
        List<byte[]> proof = new ArrayList<>();
        for (String hex : hexes(root.get(3), MAX_PROOF, "consistency proof")) {
            proof.add(Hex.decodeLower(hex));
        }
        List<EventId> appended = new ArrayList<>();
        for (String hex : hexes(root.get(4), maxAppended, "appended ids")) {
            appended.add(EventId.ofHex(hex));
        }
        return new ReceiptMessage(seq, cu != null && cu.asBoolean(false), receipt, proof, appended);
    }

    private static List<String> hexes(JsonNode a, int max, String what) throws FrameException {
        if (!a.isArray() || a.size() > max) {
            throw new FrameException("invalid: " + RECEIPT + " " + what + ": an array of at most " + max
                    + " 64-hex strings");
        }
        List<String> out = new ArrayList<>(a.size());
        for (JsonNode v : a) {
            if (!v.isTextual() || !Hex.isLowerHex(v.textValue(), 64)) {
                throw new FrameException("invalid: " + RECEIPT + " " + what + ": 64 lower-case hex characters each");
            }
            out.add(v.textValue());
        }
        return out;
    }

    private static JsonNode object(String text, String type) throws FrameException {
        JsonNode root = DeliveryJson.read(text, type);
        if (!root.isArray() || root.size() != 2 || !type.equals(root.get(0).asText(null)) || !root.get(1).isObject()) {
            throw new FrameException("invalid: " + type + " is [\"" + type + "\", {...}]");
        }
        return root.get(1);
    }

    private static long size(JsonNode o, String type) throws FrameException {
        long size = DeliveryJson.count(o.get("size"));
        if (size < 0) {
            throw new FrameException("invalid: " + type + " \"size\" is a tree size");
        }
        return size;
    }

    private static String headId(JsonNode o, String type) throws FrameException {
        JsonNode head = o.get("head");
        if (head == null || head.isNull()) {
            return null;
        }
        if (!head.isTextual() || !Hex.isLowerHex(head.textValue(), 64)) {
            throw new FrameException("invalid: " + type + " \"head\" is a receipt id (64 hex) or null");
        }
        return head.textValue();
    }
}
