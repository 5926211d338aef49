package org.fleetmesh.delivery.log;

import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.PubKey;

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

    /** Signs a receipt with the receiver's Nostr secret key (random BIP-340 aux). */
    public static Receipt sign(byte[] receiverSecret, long createdAt, PubKey sender, EventId prev, long seq, long size,
            byte[] root, long bytes, List<Rejected> rejected) {
        throw new UnsupportedOperationException();
    }

    /** As {@link #sign(byte[], long, PubKey, EventId, long, long, byte[], long, List)} with given BIP-340 aux bytes (test vectors). */
    public static Receipt sign(byte[] receiverSecret, long createdAt, PubKey sender, EventId prev, long seq, long size,
            byte[] root, long bytes, List<Rejected> rejected, byte[] auxRand) {
        throw new UnsupportedOperationException();
    }

    /** Reads a receipt's fields, checking its form (not its signature: see {@link #signatureValid()}). */
    public static Receipt parse(Event event) throws ReceiptException {
        throw new UnsupportedOperationException();
    }

    /** Whether the event id is its canonical hash and the BIP-340 signature is the receiver's. */
    public boolean signatureValid() {
        throw new UnsupportedOperationException();
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
