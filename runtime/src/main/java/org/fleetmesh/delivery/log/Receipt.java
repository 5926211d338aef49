package org.fleetmesh.delivery.log;

import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.nostr.Signature;
import org.fleetmesh.nostr.Snippet;

/**
 * A custody receipt (docs/spec/custody.md): a kind 11803 event signed by the receiver whose content is the checkpoint
 * of its tree of what {@code sender} sent it, with tags p, prev (absent on the first), seq, bytes, events and one
 * rejected per refused event, in that order. {@code prev} is null on the first receipt of a chain.
 */
public record Receipt(Event event, Checkpoint checkpoint, PubKey sender, EventId prev, long seq, long bytes,
        long events, List<Rejected> rejected) {

    public static final int KIND = 11803;

    /** An event of the frame the receiver refused, with its NIP-01 message. */
    public record Rejected(EventId id, String reason) {
    }

    public Receipt {
        rejected = List.copyOf(rejected);
    }

    /** Signs a receipt with the receiver's Nostr secret key (random BIP-340 aux). */
    public static Receipt sign(byte[] receiverSecret, long createdAt, PubKey sender, EventId prev, long seq, long size,
            byte[] root, long bytes, List<Rejected> rejected) {
        return sign(receiverSecret, createdAt, sender, prev, seq, size, root, bytes, rejected, null);
    }

    /** As {@link #sign(byte[], long, PubKey, EventId, long, long, byte[], long, List)} with given BIP-340 aux bytes (test vectors). */
    public static Receipt sign(byte[] receiverSecret, long createdAt, PubKey sender, EventId prev, long seq, long size,
            byte[] root, long bytes, List<Rejected> rejected, byte[] auxRand) {
        PubKey receiver = new PubKey(Schnorr.publicKey(receiverSecret));
        Checkpoint cp = new Checkpoint(Checkpoint.origin(receiver, sender), size, root);
        List<List<String>> tags = new ArrayList<>(5 + rejected.size());
        tags.add(List.of("p", sender.hex()));
        if (prev != null) {
            tags.add(List.of("prev", prev.hex()));
        }
        tags.add(List.of("seq", Long.toString(seq)));
        tags.add(List.of("bytes", Long.toString(bytes)));
        tags.add(List.of("events", Long.toString(size)));
        for (Rejected r : rejected) {
            tags.add(List.of("rejected", r.id().hex(), r.reason()));
        }
        String content = cp.body();
        EventId id = Events.computeId(receiver, createdAt, KIND, tags, content);
        byte[] sig = auxRand == null ? Schnorr.sign(id.unsafeBytes(), receiverSecret)
                : Schnorr.sign(id.unsafeBytes(), receiverSecret, auxRand);
        Event e = new Event(id, receiver, createdAt, KIND, List.copyOf(tags), content, new Signature(sig));
        return new Receipt(e, cp, sender, prev, seq, bytes, size, rejected);
    }

    /**
     * Reads a receipt's fields, checking its form (not its signature: see {@link #signatureValid()}): kind 11803
     * (else a {@code signature} breach: not a receipt at all), a custody checkpoint of the signer and the p tag, the
     * tags in order ({@code format}), and events = the checkpoint's size ({@code counts}).
     */
    public static Receipt parse(Event event) throws ReceiptException {
        if (event.kind() != KIND) {
            throw new ReceiptException(CustodyBreach.Kind.SIGNATURE, "a receipt is kind " + KIND + ", not " + event.kind());
        }
        Checkpoint cp;
        try {
            cp = Checkpoint.parse(event.content());
        } catch (IllegalArgumentException e) {
            throw format("content is not a checkpoint: " + e.getMessage());
        }
        List<List<String>> tags = event.tags();
        int i = 0;
        List<String> p = tag(tags, i++, "p", 2);
        if (!Hex.isLowerHex(p.get(1), 64)) {
            throw format("the p tag is not a lower-case hex pubkey");
        }
        PubKey sender = PubKey.ofHex(p.get(1));
        EventId prev = null;
        if (i < tags.size() && !tags.get(i).isEmpty() && tags.get(i).get(0).equals("prev")) {
            List<String> t = tag(tags, i++, "prev", 2);
            if (!Hex.isLowerHex(t.get(1), 64)) {
                throw format("the prev tag is not a lower-case hex event id");
            }
            prev = EventId.ofHex(t.get(1));
        }
        long seq = number(tag(tags, i++, "seq", 2));
        long bytes = number(tag(tags, i++, "bytes", 2));
        long events = number(tag(tags, i++, "events", 2));
        List<Rejected> rejected = new ArrayList<>();
        for (; i < tags.size(); i++) {
            List<String> t = tag(tags, i, "rejected", 3);
            if (!Hex.isLowerHex(t.get(1), 64)) {
                throw format("a rejected tag does not name a lower-case hex event id");
            }
            rejected.add(new Rejected(EventId.ofHex(t.get(1)), t.get(2)));
        }
        if (!cp.isCustodyOf(event.pubkey(), sender)) {
            throw format("the checkpoint origin is not " + Checkpoint.origin(event.pubkey(), sender));
        }
        if (events != cp.size()) {
            throw new ReceiptException(CustodyBreach.Kind.COUNTS,
                    "events is " + events + " but the checkpoint's tree size is " + cp.size());
        }
        return new Receipt(event, cp, sender, prev, seq, bytes, events, rejected);
    }

    /**
     * Reads a receipt from its event JSON (as stored in a ledger or carried in a message): throws
     * IllegalArgumentException when the text is not an event object, ReceiptException when the event is not a
     * well-formed receipt. The signature is not checked here.
     */
    public static Receipt fromJson(String eventJson) throws ReceiptException {
        return parse(LogJson.event(eventJson, "a receipt"));
    }

    private static List<String> tag(List<List<String>> tags, int i, String name, int length) throws ReceiptException {
        if (i >= tags.size()) {
            throw format("tag " + i + " should be " + name + ", but the tags end");
        }
        List<String> t = tags.get(i);
        if (t.isEmpty() || !t.get(0).equals(name)) {
            throw format("tag " + i + " should be " + name + ", not " + (t.isEmpty() ? "empty" : Snippet.of(t.get(0))));
        }
        if (t.size() != length) {
            throw format("the " + name + " tag has " + t.size() + " elements, not " + length);
        }
        return t;
    }

    private static long number(List<String> tag) throws ReceiptException {
        try {
            return Checkpoint.parseDecimal(tag.get(1), "the " + tag.get(0) + " tag");
        } catch (IllegalArgumentException e) {
            throw format(e.getMessage());
        }
    }

    private static ReceiptException format(String message) {
        return new ReceiptException(CustodyBreach.Kind.FORMAT, message);
    }

    /** Whether the event id is its canonical hash and the BIP-340 signature is the receiver's. */
    public boolean signatureValid() {
        return Events.verify(event) == null;
    }

    /** The receiver: the signer. */
    public PubKey receiver() {
        return event.pubkey();
    }

    public long size() {
        return checkpoint.size();
    }

    public byte[] root() {
        return checkpoint.root();
    }

    public EventId id() {
        return event.id();
    }
}
