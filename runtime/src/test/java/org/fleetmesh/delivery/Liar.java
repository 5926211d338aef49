package org.fleetmesh.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.fleetmesh.delivery.log.CompactRange;
import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.delivery.log.Receipt;
import org.fleetmesh.delivery.log.ReceiptException;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.PubKey;

/**
 * A receiver that lies in its receipts: it sits on the receiver's outgoing channel, lets receipts through until the
 * {@code at}-th, and rewrites that one, re-signed with the receiver's own key (so only the custody checks can catch
 * it). It keeps the sender's view of the chain (the receipts it let through) to build lies that pass every check but
 * the one under test.
 */
class Liar implements Function<String, String> {
    /** What the liar changes in one receipt; it gets the true one and the sender's view, returns the message. */
    interface Lie {
        String rewrite(Liar liar, CustodyMessages.ReceiptMessage m, Receipt r);
    }

    final byte[] receiverSecret;
    final PubKey sender;
    final int at;
    final Lie lie;
    private int seen;
    CompactRange range = CompactRange.empty();
    EventId lastId;
    long lastBytes;
    volatile boolean lied;
    volatile boolean honest;

    Liar(Mesh.Node receiver, Mesh.Node sender, int at, Lie lie) {
        this.receiverSecret = receiver.secrets.nostr().bytes();
        this.sender = sender.secrets.publicKeys().nostr();
        this.at = at;
        this.lie = lie;
    }

    @Override
    public synchronized String apply(String text) {
        if (honest || !text.startsWith("[\"" + CustodyMessages.RECEIPT + "\"")) {
            return text;
        }
        try {
            CustodyMessages.ReceiptMessage m = CustodyMessages.parseReceipt(text, 10_000);
            Receipt r = Receipt.parse(m.receipt());
            if (++seen == at) {
                lied = true;
                return lie.rewrite(this, m, r);
            }
            range = range.appendAll(hashes(m.appended()));
            lastId = r.id();
            lastBytes = r.bytes();
            return text;
        } catch (FrameException | ReceiptException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<byte[]> hashes(List<EventId> ids) {
        List<byte[]> out = new ArrayList<>();
        for (EventId id : ids) {
            out.add(Merkle.leafHash(id));
        }
        return out;
    }

    /** A receipt signed by the receiver with these values, in a MESH-RECEIPT. */
    String sign(long seq, EventId prev, CompactRange next, long bytes, List<Receipt.Rejected> rejected,
            List<byte[]> proof, List<EventId> appended) {
        return sign(seq, seq, prev, next, bytes, rejected, proof, appended);
    }

    /** As above, the message's header naming {@code frameSeq}, the receipt's seq tag {@code seq}. */
    String sign(long frameSeq, long seq, EventId prev, CompactRange next, long bytes, List<Receipt.Rejected> rejected,
            List<byte[]> proof, List<EventId> appended) {
        Receipt lie = Receipt.sign(receiverSecret, Mesh.T0 / 1000, sender, prev, seq, next.size(), next.root(), bytes,
                rejected);
        return CustodyMessages.receipt(frameSeq, false, lie.event().json(), proof, appended);
    }
}
