package org.fleetmesh.delivery.log;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The evidence of a custody breach (docs/spec/custody.md): a JSON object with the signed receipts, the sender's
 * mirror of the tree before it, the frame and what was expected, enough for a third party to recheck it with
 * {@link #verify(String)}.
 */
public final class CustodyBreach {
    public static final String TYPE = "fleetmesh.custody-breach";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String WHAT = "custody evidence";

    /** The breach kinds, written in the evidence's {@code breach} member as {@link #word()}. */
    public enum Kind {
        SIGNATURE, FORMAT, PREV, FORK, MISSING, COUNTS, ROLLBACK;

        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The kind named by {@code word}, or null. */
        public static Kind ofWord(String word) {
            for (Kind k : values()) {
                if (k.word().equals(word)) {
                    return k;
                }
            }
            return null;
        }
    }

    /**
     * What a recheck found: {@code holds} when the checks of the evidence find the breach it names; {@code signed}
     * when, moreover, the receipts the receiver signed show that breach by themselves (docs/spec/custody.md §4,
     * "What the evidence proves"). A breach that holds but is not {@code signed} rests on parts of the evidence that
     * only the sender vouches for (the frame, the appended ids, the consistency proof, the announced head, or a
     * receipt the receiver did not sign): it is the sender's word, and anyone can write such evidence naming anyone.
     */
    public record Verdict(boolean holds, Kind kind, String why, boolean signed) {
        public Verdict(boolean holds, Kind kind, String why) {
            this(holds, kind, why, false);
        }
    }

    private CustodyBreach() {
    }

    private static ObjectNode common(Kind kind, String detail, ReceiptCheck.Mirror mirror, Event receipt, long at) {
        ObjectNode o = NODES.objectNode();
        o.put("type", TYPE);
        o.put("breach", kind.word());
        o.put("detail", detail);
        o.put("peer", mirror.peer());
        o.put("receiver", mirror.receiver().hex());
        o.put("sender", mirror.sender().hex());
        o.set("receipt", eventNode(receipt));
        o.set("previous", eventNode(mirror.head() == null ? null : mirror.head().event()));
        return o;
    }

    static String evidence(Kind kind, String detail, ReceiptCheck.Mirror mirror, Event receipt,
            List<byte[]> consistency, List<EventId> appended, ReceiptCheck.Frame frame, Set<EventId> already, long at) {
        ObjectNode o = common(kind, detail, mirror, receipt, at);
        o.set("consistency", hexes(consistency));
        ArrayNode app = o.putArray("appended");
        for (EventId id : appended) {
            app.add(id.hex());
        }
        Long expectedBytes = mirror.bytes();
        if (frame == null) {
            o.putNull("frame");
            expectedBytes = null;
        } else {
            ObjectNode f = o.putObject("frame");
            f.set("header", header(frame.headerJson()));
            ArrayNode ids = f.putArray("ids");
            ArrayNode bytes = f.putArray("bytes");
            ArrayNode held = f.putArray("already");
            Set<EventId> listed = new HashSet<>();
            for (ReceiptCheck.FrameEvent e : frame.events()) {
                ids.add(e.id().hex());
                bytes.add(e.bytes());
                if (already.contains(e.id()) && listed.add(e.id())) {
                    held.add(e.id().hex());
                }
            }
            java.util.Map<EventId, ReceiptCheck.FrameEvent> byId = new java.util.HashMap<>();
            for (ReceiptCheck.FrameEvent e : frame.events()) {
                byId.putIfAbsent(e.id(), e);
            }
            for (EventId id : appended) {
                ReceiptCheck.FrameEvent e = byId.get(id);
                if (e == null) {
                    expectedBytes = null;
                    break;
                }
                expectedBytes += e.bytes();
            }
        }
        o.set("compact_range", hexes(mirror.range().hashes()));
        ObjectNode exp = o.putObject("expected");
        CompactRange grown = mirror.range().appendAll(ReceiptCheck.leafHashes(appended));
        exp.put("size", grown.size());
        exp.put("root", Hex.encode(grown.root()));
        if (expectedBytes == null) {
            exp.putNull("bytes");
        } else {
            exp.put("bytes", expectedBytes);
        }
        o.put("at", at);
        return write(o);
    }

    static String rollbackEvidence(String detail, ReceiptCheck.Mirror mirror, long size, EventId head, boolean more,
            Event named, long at) {
        ObjectNode o = common(Kind.ROLLBACK, detail, mirror, named, at);
        o.putArray("consistency");
        o.putArray("appended");
        o.putNull("frame");
        o.set("compact_range", hexes(mirror.range().hashes()));
        ObjectNode exp = o.putObject("expected");
        exp.put("size", mirror.range().size());
        exp.put("root", Hex.encode(mirror.range().root()));
        exp.put("bytes", mirror.bytes());
        ObjectNode h = o.putObject("head");
        h.put("size", size);
        if (head == null) {
            h.putNull("id");
        } else {
            h.put("id", head.hex());
        }
        h.put("more", more);
        o.put("at", at);
        return write(o);
    }

    private static JsonNode eventNode(Event e) {
        if (e == null) {
            return NODES.nullNode();
        }
        return LogJson.read(e.json(), "an event");
    }

    private static JsonNode header(String json) {
        try {
            return LogJson.read(json, "a frame header");
        } catch (IllegalArgumentException e) {
            return NODES.textNode(json); // kept verbatim: the evidence must not be lost over a header we cannot read
        }
    }

    private static ArrayNode hexes(List<byte[]> hs) {
        ArrayNode a = NODES.arrayNode();
        for (byte[] h : hs) {
            a.add(Hex.encode(h));
        }
        return a;
    }

    private static String write(JsonNode n) {
        try {
            return LogJson.MAPPER.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
    }

    /**
     * Rechecks evidence JSON on its own: the previous receipt must be the receiver's valid receipt and the compact
     * range must have its root; then the sender's checks are run again on the receipt, proof, appended ids and frame
     * of the evidence, and the verdict holds when they find the breach the evidence names. It is {@code signed} only
     * when the receiver's own receipts show that breach ({@link #signedShows}); otherwise it rests on the sender's word.
     */
    public static Verdict verify(String evidenceJson) {
        Kind kind = null;
        try {
            JsonNode o = LogJson.read(evidenceJson, WHAT);
            if (!TYPE.equals(LogJson.text(o, "type", WHAT))) {
                return new Verdict(false, null, "the type is not " + TYPE);
            }
            kind = Kind.ofWord(LogJson.text(o, "breach", WHAT));
            if (kind == null) {
                return new Verdict(false, null, "unknown breach " + o.get("breach"));
            }
            PubKey receiver = pubkey(o, "receiver");
            PubKey sender = pubkey(o, "sender");
            JsonNode peerNode = o.get("peer");
            String peer = peerNode == null || peerNode.isNull() ? null : peerNode.asText();
            Receipt previous = null;
            JsonNode prevNode = LogJson.member(o, "previous", WHAT);
            if (!prevNode.isNull()) {
                Event pe = LogJson.event(prevNode, WHAT + " \"previous\"");
                try {
                    previous = Receipt.parse(pe);
                } catch (ReceiptException e) {
                    return new Verdict(false, kind, "the previous receipt is not a receipt: " + e.getMessage());
                }
                if (!previous.signatureValid() || !pe.pubkey().equals(receiver) || !previous.sender().equals(sender)) {
                    return new Verdict(false, kind, "the previous receipt is not the receiver's valid receipt to the sender");
                }
            }
            CompactRange range = CompactRange.of(previous == null ? 0 : previous.size(),
                    LogJson.hashes(o, "compact_range", WHAT));
            if (previous != null && !Arrays.equals(range.root(), previous.root())) {
                return new Verdict(false, kind, "the compact range is not the previous receipt's tree");
            }
            ReceiptCheck.Mirror mirror = new ReceiptCheck.Mirror(receiver, sender, peer, previous, range);
            long at = LogJson.nonNegative(o, "at", WHAT);
            JsonNode receiptNode = LogJson.member(o, "receipt", WHAT);
            Event receipt = receiptNode.isNull() ? null : LogJson.event(receiptNode, WHAT + " \"receipt\"");
            if (kind == Kind.ROLLBACK) {
                JsonNode head = LogJson.member(o, "head", WHAT);
                JsonNode id = LogJson.member(head, "id", WHAT + " \"head\"");
                EventId headId = id.isNull() ? null : EventId.ofHex(id.asText());
                JsonNode more = head.get("more");
                ReceiptCheck.Breach b = ReceiptCheck.checkHead(mirror, LogJson.nonNegative(head, "size", WHAT), headId,
                        receipt, more == null || !more.isBoolean() || more.asBoolean(), at);
                if (b == null) {
                    return new Verdict(false, kind, "the head is the verified one: no rollback");
                }
                if (receipt != null && (Events.verify(receipt) != null || !receipt.pubkey().equals(receiver))) {
                    return new Verdict(false, kind, "the named receipt is not the receiver's");
                }
                return new Verdict(true, kind, b.detail());
            }
            if (receipt == null) {
                return new Verdict(false, kind, "a " + kind.word() + " breach needs the receipt");
            }
            ReceiptCheck.Frame frame = null;
            Set<EventId> already = new HashSet<>();
            JsonNode frameNode = LogJson.member(o, "frame", WHAT);
            if (!frameNode.isNull()) {
                frame = frame(frameNode, already);
            }
            ReceiptCheck.Result r = ReceiptCheck.check(mirror, frame, already, receipt,
                    LogJson.hashes(o, "consistency", WHAT), LogJson.ids(o, "appended", WHAT), at);
            if (r instanceof ReceiptCheck.Breach b) {
                if (b.kind() == kind) {
                    return new Verdict(true, kind, b.detail(), signedShows(kind, previous, receipt, receiver));
                }
                return new Verdict(false, kind, "the checks find a " + b.kind().word() + " breach instead: " + b.detail());
            }
            return new Verdict(false, kind, "the receipt passes every check");
        } catch (IllegalArgumentException e) {
            return new Verdict(false, kind, e.getMessage());
        }
    }

    /**
     * Whether the receiver's own signatures show a {@code kind} breach, with nothing the sender says: {@code receipt}
     * is authentic, signed by {@code receiver}, and either contradicts itself ({@code counts}: its {@code events}
     * is not its tree size) or names {@code previous} as its {@code prev} (or, with no previous receipt, names none)
     * and contradicts it: a smaller tree, or the same size with another root ({@code fork}); fewer bytes, or other
     * bytes at the same size ({@code counts}). An honest receiver signs none of these. Every other breach (the
     * receipt's signature or format, a prev that is not the sender's head, a consistency proof that fails, counts or
     * a root that disagree with the appended ids or the frame, an announced head) rests on what only the sender
     * vouches for. {@code previous} has been checked as the receiver's valid receipt to the sender.
     */
    static boolean signedShows(Kind kind, Receipt previous, Event receipt, PubKey receiver) {
        if (kind != Kind.FORK && kind != Kind.COUNTS) {
            return false;
        }
        if (receipt == null || Events.verify(receipt) != null || !receipt.pubkey().equals(receiver)) {
            return false;
        }
        Receipt r;
        try {
            r = Receipt.parse(receipt);
        } catch (ReceiptException e) {
            return kind == Kind.COUNTS && e.breach() == Kind.COUNTS; // events is not the size: it says so itself
        }
        boolean chained = previous == null ? r.prev() == null : previous.id().equals(r.prev());
        if (!chained) {
            return false;
        }
        long m = previous == null ? 0 : previous.size();
        byte[] rootM = previous == null ? CompactRange.empty().root() : previous.root();
        long bytesM = previous == null ? 0 : previous.bytes();
        if (kind == Kind.FORK) {
            return r.size() < m || (r.size() == m && !Arrays.equals(r.root(), rootM));
        }
        return r.bytes() < bytesM || (r.size() == m && r.bytes() != bytesM);
    }

    private static PubKey pubkey(JsonNode o, String name) {
        String s = LogJson.text(o, name, WHAT);
        if (!Hex.isLowerHex(s, 64)) {
            throw new IllegalArgumentException(WHAT + " \"" + name + "\" is not a lower-case hex pubkey");
        }
        return PubKey.ofHex(s);
    }

    private static ReceiptCheck.Frame frame(JsonNode f, Set<EventId> already) {
        String what = WHAT + " \"frame\"";
        JsonNode header = LogJson.member(f, "header", what);
        if (!header.isObject()) {
            throw new IllegalArgumentException(what + " \"header\" is not an object");
        }
        long seq = LogJson.nonNegative(header, "seq", what + " header");
        List<EventId> ids = LogJson.ids(f, "ids", what);
        JsonNode bytes = LogJson.member(f, "bytes", what);
        if (!bytes.isArray() || bytes.size() != ids.size()) {
            throw new IllegalArgumentException(what + " \"bytes\" is not an array as long as \"ids\"");
        }
        JsonNode hops = header.get("hops");
        List<ReceiptCheck.FrameEvent> events = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            int h = hops != null && hops.isArray() && i < hops.size() ? hops.get(i).asInt() : 0;
            events.add(new ReceiptCheck.FrameEvent(ids.get(i), bytes.get(i).asInt(), h));
        }
        already.addAll(LogJson.ids(f, "already", what));
        return new ReceiptCheck.Frame(seq, write(header), events);
    }
}
