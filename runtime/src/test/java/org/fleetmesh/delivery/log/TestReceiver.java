package org.fleetmesh.delivery.log;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;

/**
 * A receiver that keeps the tree and signs receipts as docs/spec/custody.md says, with fixed keys and zero aux, so
 * tests can take its honest answers and bend them.
 */
final class TestReceiver {
    static final byte[] RECEIVER_SECRET = Events.sha256("fleetmesh custody test receiver".getBytes(StandardCharsets.UTF_8));
    static final byte[] SENDER_SECRET = Events.sha256("fleetmesh custody test sender".getBytes(StandardCharsets.UTF_8));
    static final PubKey RECEIVER = new PubKey(Schnorr.publicKey(RECEIVER_SECRET));
    static final PubKey SENDER = new PubKey(Schnorr.publicKey(SENDER_SECRET));
    static final String PEER = "did:peer:4zQmTestReceiver";
    static final byte[] ZERO_AUX = new byte[32];

    /** One answer to a frame: the receipt, the consistency proof from the previous size, the appended ids. */
    record Answer(Receipt receipt, List<byte[]> consistency, List<EventId> appended) {
    }

    final List<EventId> leaves = new ArrayList<>();
    final List<Answer> chain = new ArrayList<>();
    CompactRange range = CompactRange.empty();
    long bytes;
    long createdAt = 1_767_225_600L; // 2026-01-01T00:00:00Z

    static EventId id(int i) {
        return new EventId(Events.sha256(("event " + i).getBytes(StandardCharsets.UTF_8)));
    }

    static ReceiptCheck.Frame frame(long seq, int... eventNumbers) {
        List<ReceiptCheck.FrameEvent> evs = new ArrayList<>();
        StringBuilder hops = new StringBuilder();
        for (int n : eventNumbers) {
            evs.add(new ReceiptCheck.FrameEvent(id(n), 200 + n, 0));
            hops.append(hops.length() == 0 ? "" : ",").append('0');
        }
        String header = "{\"seq\":" + seq + ",\"count\":" + evs.size() + ",\"from\":\"did:peer:4zQmSender\",\"to\":\""
                + PEER + "\",\"time\":1767225600000,\"hops\":[" + hops + "],\"sig\":\"" + "00".repeat(64) + "\"}";
        return new ReceiptCheck.Frame(seq, header, evs);
    }

    /** Takes the frame honestly: appends every event not already a leaf, except those in {@code refuse}. */
    Answer take(ReceiptCheck.Frame frame, Set<EventId> refuse) {
        Set<EventId> held = new HashSet<>(leaves);
        List<EventId> appended = new ArrayList<>();
        List<Receipt.Rejected> rejected = new ArrayList<>();
        long addBytes = 0;
        for (ReceiptCheck.FrameEvent e : frame.events()) {
            if (refuse.contains(e.id())) {
                rejected.add(new Receipt.Rejected(e.id(), "invalid: bad signature"));
            } else if (held.add(e.id())) {
                appended.add(e.id());
                addBytes += e.bytes();
            }
        }
        List<byte[]> hashes = ReceiptCheck.leafHashes(appended);
        List<byte[]> consistency = range.consistencyProof(hashes);
        CompactRange next = range.appendAll(hashes);
        Receipt prev = chain.isEmpty() ? null : chain.get(chain.size() - 1).receipt();
        Receipt r = Receipt.sign(RECEIVER_SECRET, createdAt++, SENDER, prev == null ? null : prev.id(), frame.seq(),
                next.size(), next.root(), bytes + addBytes, rejected, ZERO_AUX);
        leaves.addAll(appended);
        range = next;
        bytes += addBytes;
        Answer a = new Answer(r, consistency, appended);
        chain.add(a);
        return a;
    }

    Answer take(ReceiptCheck.Frame frame) {
        return take(frame, Set.of());
    }

    /** The sender's mirror after the first {@code receipts} receipts of the chain. */
    ReceiptCheck.Mirror mirror(int receipts) {
        if (receipts == 0) {
            return ReceiptCheck.Mirror.start(RECEIVER, SENDER, PEER);
        }
        Receipt head = chain.get(receipts - 1).receipt();
        return new ReceiptCheck.Mirror(RECEIVER, SENDER, PEER, head,
                CompactRange.empty().appendAll(ReceiptCheck.leafHashes(leaves.subList(0, (int) head.size()))));
    }

    Merkle.Subtrees tree() {
        return Merkle.ofLeaves(ReceiptCheck.leafHashes(leaves));
    }
}
