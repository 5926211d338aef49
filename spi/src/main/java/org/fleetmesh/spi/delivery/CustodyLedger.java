package org.fleetmesh.spi.delivery;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.nostr.EventId;

/**
 * The custody ledger (docs/spec/custody.md, docs/spec/delivery.md): per (peer, side) an append-only Merkle tree's
 * leaves (event ids in append order) and the chain of kind 11803 receipts over it, and per peer the outbound cursor of
 * store-and-forward. {@link Side#RECEIVED}: the tree this node keeps of what the peer sent it, and the receipts this
 * node signed; {@link Side#SENT}: this node's mirror of the peer's tree of what this node sent it, and the peer's
 * receipts. Peers are named by their DID's short form. Implementations are thread-safe; every write is one durable
 * transaction.
 */
public interface CustodyLedger {

    enum Side {
        RECEIVED, SENT
    }

    /**
     * One leaf: its index in the tree, the event id, the UTF-8 bytes of the event's JSON as it travelled in the frame,
     * and the hops it had travelled when it arrived (0: published at the sender).
     */
    record Leaf(long index, EventId eventId, int bytes, int hops) {
    }

    /**
     * One receipt of the chain: its place in the chain (0 = first), the tree size its checkpoint names, the frame
     * sequence it answers, the receipt's event id and full JSON (kind 11803), the cumulative bytes and events it names,
     * the RFC 9162 consistency proof from the previous receipt's tree size to this one (hashes, 32 bytes each), and the
     * tree's compact range at this size (the roots of its perfect subtrees, left to right, 32 bytes each), from which
     * the tree can grow without reading its leaves.
     */
    record Receipt(long position, long treeSize, long seq, EventId receiptId, String json, long bytes, long events,
            List<byte[]> consistency, List<byte[]> compactRange) {
    }

    /**
     * The outbound state of one peer: the event-store sequence up to which every event the peer wanted has been
     * receipted (or refused for good), the next frame sequence to use, the NIP-01 filters the peer last asked for (a
     * JSON array, "[]" when none), and why forwarding to it is halted ("" when it is not).
     */
    record Outbound(String peer, long ackedSeq, long nextFrameSeq, String filters, String halted) {
    }

    /** The newest receipt of the chain, if any. */
    Optional<Receipt> head(Side side, String peer);

    /**
     * One step of a tree and its chain: {@code leaves} (indexes continuing the tree, no id already a leaf of it) and
     * {@code receipt} (the next position, naming the tree size after these leaves), and, when present, the peer's
     * {@code outbound} state written with them (the sender advances its cursor with the receipt that covers it).
     */
    record Append(Side side, String peer, List<Leaf> leaves, Receipt receipt, Optional<Outbound> outbound) {
    }

    /**
     * Writes {@code appends} in order, in one transaction (a custodian coalesces the receipts of frames that completed
     * together). Throws {@link IllegalStateException} when a leaf index or a receipt position does not continue the
     * stored tree or chain (as extended by the earlier steps of the batch), a receipt's tree size is not the tree's
     * size after its step's leaves, or an id is already a leaf of its tree (or earlier in the batch): nothing is
     * written then. A failing backend (the database) throws another {@link RuntimeException}; the batch is then
     * not written, unless the connection broke during the commit itself (read the head again).
     */
    void append(List<Append> appends);

    /** Which of {@code ids} are leaves of the tree, with their indexes. */
    Map<EventId, Long> indexOf(Side side, String peer, Collection<EventId> ids);

    /** Leaves {@code [from, to)} of the tree, in index order ({@code to} beyond the tree's size stops at its end). */
    List<Leaf> leaves(Side side, String peer, long from, long to);

    /** Receipts of the chain from {@code fromPosition} on, in chain order, at most {@code limit}. */
    List<Receipt> receipts(Side side, String peer, long fromPosition, int limit);

    /** Every peer with a tree on {@code side}. */
    List<String> peers(Side side);

    /**
     * The peers that hold each of {@code ids} as far as this node knows: those that sent it here (a RECEIVED leaf) and
     * those that receipted it (a SENT leaf). Ids no peer holds are absent. With the smallest hops it arrived with, for
     * the hop limit: {@code hops} is -1 when the event never arrived from a peer.
     */
    Map<EventId, Holders> holders(Collection<EventId> ids);

    record Holders(java.util.Set<String> peers, int hops) {
    }

    /**
     * Moves the tree and chain of {@code (side, peer)} aside after a custody reset (docs/spec/custody.md §8): they are
     * renamed {@code <peer>#reset-<n>} (n = 1, 2, ...: the first unused) and stay readable under that name (their
     * leaves, receipts, {@link #peers}, {@link #holders}: receipts export and prove), and {@code (side, peer)} has no
     * tree from then on: the next append starts it at size 0. The outbound state is not touched. Returns the new
     * name, or empty when the pair had no tree.
     */
    Optional<String> archive(Side side, String peer);

    /** The name {@link #archive} gives the {@code n}-th archived tree of {@code peer}. */
    static String archivedName(String peer, int n) {
        return peer + "#reset-" + n;
    }

    /** The outbound state of {@code peer}, if any was saved. */
    Optional<Outbound> outbound(String peer);

    /** Writes {@code outbound} over the stored one (an upsert by peer). */
    void saveOutbound(Outbound outbound);

    /** Every saved outbound state. */
    List<Outbound> outbounds();
}
