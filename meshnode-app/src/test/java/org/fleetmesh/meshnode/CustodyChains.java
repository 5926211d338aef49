package org.fleetmesh.meshnode;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.fleetmesh.delivery.log.CompactRange;
import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.delivery.log.Receipt;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.delivery.CustodyLedger.Append;
import org.fleetmesh.spi.delivery.CustodyLedger.Leaf;
import org.fleetmesh.spi.delivery.CustodyLedger.Side;

/**
 * Fills a custody ledger through its SPI the way a custodian does (docs/spec/custody.md): per frame the new leaves,
 * the tree's compact range, the consistency proof from the previous size and a kind 11803 receipt signed by the
 * receiver, all in one {@link CustodyLedger#append}.
 */
final class CustodyChains {
    final CustodyLedger ledger;
    final Side side;
    final String peer;
    final byte[] receiverSecret;
    final PubKey sender;
    CompactRange range = CompactRange.empty();
    EventId head;
    long position;
    long seq;
    long bytes;

    CustodyChains(CustodyLedger ledger, Side side, String peer, byte[] receiverSecret, PubKey sender) {
        this.ledger = ledger;
        this.side = side;
        this.peer = peer;
        this.receiverSecret = receiverSecret;
        this.sender = sender;
    }

    static EventId id(String s) {
        try {
            return new EventId(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static PubKey pubkey(byte[] secret) {
        return new PubKey(Schnorr.publicKey(secret));
    }

    /** One frame's receipt over {@code ids} (all new to the tree), each of 100 bytes. */
    Receipt frame(EventId... ids) {
        List<byte[]> hashes = new ArrayList<>();
        List<Leaf> leaves = new ArrayList<>();
        for (EventId id : ids) {
            hashes.add(Merkle.leafHash(id));
            leaves.add(new Leaf(range.size() + leaves.size(), id, 100, 0));
            bytes += 100;
        }
        List<byte[]> consistency = range.size() == 0 ? List.of() : range.consistencyProof(hashes);
        CompactRange next = range.appendAll(hashes);
        seq++;
        Receipt r = Receipt.sign(receiverSecret, 1_700_000_000L + seq, sender, head, seq, next.size(), next.root(),
                bytes, List.of());
        ledger.append(List.of(new Append(side, peer, leaves, new CustodyLedger.Receipt(position, next.size(), seq,
                r.id(), r.event().json(), bytes, next.size(), consistency, next.hashes()), Optional.empty())));
        range = next;
        head = r.id();
        position++;
        return r;
    }
}
