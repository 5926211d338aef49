package org.fleetmesh.delivery.log;

import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A custody reset (docs/spec/custody.md §8): a receiver that lost its tree of a sender's events (a node restored with
 * its keys on an empty data dir) says so, signed, instead of answering the custody exchange with a head behind the
 * sender's mirror. The reset is a kind 11803 event by the receiver whose content is the checkpoint of the empty tree
 * and whose tags are exactly {@code ["p", <sender>]} and {@code ["reset", <the sender's head receipt id>]}. The sender
 * that accepts it keeps the old chain (its receipts still prove what the receiver once held), records an S1
 * {@code custody-reset} evidence object and mirrors the receiver's tree again from size 0.
 */
public final class CustodyReset {
    public static final String TYPE = "fleetmesh.custody-reset";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String WHAT = "custody reset evidence";

    private CustodyReset() {
    }

    /** The reset event, signed with the receiver's Nostr secret (random BIP-340 aux). */
    public static Event sign(byte[] receiverSecret, long createdAt, PubKey sender, EventId senderHead) {
        return sign(receiverSecret, createdAt, sender, senderHead, null);
    }

    /** As {@link #sign(byte[], long, PubKey, EventId)} with given aux bytes (test vectors). */
    public static Event sign(byte[] receiverSecret, long createdAt, PubKey sender, EventId senderHead, byte[] auxRand) {
        PubKey receiver = new PubKey(Schnorr.publicKey(receiverSecret));
        String content = new Checkpoint(Checkpoint.origin(receiver, sender), 0, Merkle.emptyRoot()).body();
        List<List<String>> tags = List.of(List.of("p", sender.hex()), List.of("reset", senderHead.hex()));
        EventId id = Events.computeId(receiver, createdAt, Receipt.KIND, tags, content);
        byte[] sig = auxRand == null ? Schnorr.sign(id.unsafeBytes(), receiverSecret)
                : Schnorr.sign(id.unsafeBytes(), receiverSecret, auxRand);
        return new Event(id, receiver, createdAt, Receipt.KIND, tags, content, new org.fleetmesh.nostr.Signature(sig));
    }

    /**
     * Why {@code reset} is not the receiver's reset of the chain whose head the sender holds, or null when it is:
     * kind 11803, its id and signature, signed by {@code receiver}, the empty tree's checkpoint of this pair, tags
     * exactly p = {@code sender} and reset = {@code senderHead}.
     */
    public static String check(Event reset, PubKey receiver, PubKey sender, EventId senderHead) {
        if (reset.kind() != Receipt.KIND) {
            return "a reset is kind " + Receipt.KIND + ", not " + reset.kind();
        }
        String bad = Events.verify(reset);
        if (bad != null) {
            return "the reset's id or signature does not verify: " + bad;
        }
        if (!reset.pubkey().equals(receiver)) {
            return "the reset is signed by " + reset.pubkey().hex() + ", not the receiver " + receiver.hex();
        }
        Checkpoint cp;
        try {
            cp = Checkpoint.parse(reset.content());
        } catch (IllegalArgumentException e) {
            return "the reset's content is not a checkpoint: " + e.getMessage();
        }
        if (!cp.isCustodyOf(receiver, sender) || cp.size() != 0
                || !java.util.Arrays.equals(cp.root(), Merkle.emptyRoot())) {
            return "the reset's content is not the empty tree's checkpoint " + Checkpoint.origin(receiver, sender)
                    + " / 0 / the empty root";
        }
        List<List<String>> expected = List.of(List.of("p", sender.hex()), List.of("reset", senderHead.hex()));
        if (!reset.tags().equals(expected)) {
            return "the reset's tags are not exactly [\"p\", <sender>], [\"reset\", " + senderHead.hex()
                    + " (the sender's head receipt)]";
        }
        return null;
    }

    /**
     * The S1 evidence object: the receiver's head receipt the sender held ({@code previous}, which with the chain
     * before it still proves custody of every event under it), the reset, and where the sender archived its mirror.
     */
    public static String evidence(String peer, PubKey receiver, PubKey sender, Receipt previous, Event reset,
            String archivedAs, long at) {
        ObjectNode o = NODES.objectNode();
        o.put("type", TYPE);
        o.put("peer", peer);
        o.put("receiver", receiver.hex());
        o.put("sender", sender.hex());
        o.set("previous", LogJson.read(previous.event().json(), "a receipt"));
        o.put("size", previous.size());
        o.set("reset", LogJson.read(reset.json(), "a reset"));
        if (archivedAs == null) {
            o.putNull("archived");
        } else {
            o.put("archived", archivedAs);
        }
        o.put("at", at);
        try {
            return LogJson.MAPPER.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
    }

    /** What a recheck of the evidence found. */
    public record Verdict(boolean holds, String why) {
    }

    /**
     * Rechecks reset evidence on its own: {@code previous} is a valid receipt signed by {@code receiver} to
     * {@code sender} of tree size {@code size}, and {@code reset} is that receiver's reset of it ({@link #check}).
     */
    public static Verdict verify(String evidenceJson) {
        try {
            JsonNode o = LogJson.read(evidenceJson, WHAT);
            if (!TYPE.equals(LogJson.text(o, "type", WHAT))) {
                return new Verdict(false, "the type is not " + TYPE);
            }
            PubKey receiver = pubkey(o, "receiver");
            PubKey sender = pubkey(o, "sender");
            Event pe = LogJson.event(LogJson.member(o, "previous", WHAT), WHAT + " \"previous\"");
            Receipt previous;
            try {
                previous = Receipt.parse(pe);
            } catch (ReceiptException e) {
                return new Verdict(false, "the previous receipt is not a receipt: " + e.getMessage());
            }
            if (!previous.signatureValid() || !pe.pubkey().equals(receiver) || !previous.sender().equals(sender)) {
                return new Verdict(false, "the previous receipt is not the receiver's valid receipt to the sender");
            }
            if (LogJson.nonNegative(o, "size", WHAT) != previous.size()) {
                return new Verdict(false, "\"size\" is not the previous receipt's tree size");
            }
            Event reset = LogJson.event(LogJson.member(o, "reset", WHAT), WHAT + " \"reset\"");
            String bad = check(reset, receiver, sender, previous.id());
            if (bad != null) {
                return new Verdict(false, bad);
            }
            return new Verdict(true, "the receiver signed that it no longer holds its tree of size " + previous.size()
                    + " (receipt " + previous.id().hex() + ")");
        } catch (IllegalArgumentException e) {
            return new Verdict(false, e.getMessage());
        }
    }

    private static PubKey pubkey(JsonNode o, String name) {
        String s = LogJson.text(o, name, WHAT);
        if (!Hex.isLowerHex(s, 64)) {
            throw new IllegalArgumentException(WHAT + " \"" + name + "\" is not a lower-case hex pubkey");
        }
        return PubKey.ofHex(s);
    }
}
