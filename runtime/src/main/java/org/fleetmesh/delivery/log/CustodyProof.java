package org.fleetmesh.delivery.log;

import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;

/**
 * An offline proof that the receiver of a receipt took custody of an event: the RFC 9162 inclusion proof of the
 * event's leaf in the tree of the receipt's checkpoint. JSON:
 * {@code {"event_id", "index", "tree_size", "path": [hex ...], "receipt": <kind 11803 event>}}.
 */
public record CustodyProof(EventId eventId, long index, long treeSize, List<byte[]> path, Event receipt) {

    /** The proof of leaf {@code index} (holding {@code eventId}) in the tree of {@code receipt}'s checkpoint. */
    public static CustodyProof prove(EventId eventId, long index, Receipt receipt, Merkle.Subtrees tree) {
        throw new UnsupportedOperationException();
    }

    public String json() {
        throw new UnsupportedOperationException();
    }

    /** Reads the JSON form; throws IllegalArgumentException saying what is wrong. */
    public static CustodyProof parse(String json) {
        throw new UnsupportedOperationException();
    }

    /** Null when the proof holds (receipt signature and form, tree size, inclusion path), else why not. */
    public String verify() {
        throw new UnsupportedOperationException();
    }
}
