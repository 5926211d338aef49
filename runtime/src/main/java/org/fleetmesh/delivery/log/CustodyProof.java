package org.fleetmesh.delivery.log;

import java.util.List;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An offline proof that the receiver of a receipt took custody of an event: the RFC 9162 inclusion proof of the
 * event's leaf in the tree of the receipt's checkpoint. JSON:
 * {@code {"event_id", "index", "tree_size", "path": [hex ...], "receipt": <kind 11803 event>}}.
 */
public record CustodyProof(EventId eventId, long index, long treeSize, List<byte[]> path, Event receipt) {
    private static final String WHAT = "a custody proof";

    public CustodyProof {
        path = List.copyOf(path);
    }

    /** The proof of leaf {@code index} (holding {@code eventId}) in the tree of {@code receipt}'s checkpoint. */
    public static CustodyProof prove(EventId eventId, long index, Receipt receipt, Merkle.Subtrees tree) {
        return new CustodyProof(eventId, index, receipt.size(), Merkle.inclusionProof(index, receipt.size(), tree),
                receipt.event());
    }

    public String json() {
        return "{\"event_id\":\"" + eventId.hex() + "\",\"index\":" + index + ",\"tree_size\":" + treeSize
                + ",\"path\":" + LogJson.hexArray(path) + ",\"receipt\":" + receipt.json() + "}";
    }

    /** Reads the JSON form; throws IllegalArgumentException saying what is wrong. */
    public static CustodyProof parse(String json) {
        JsonNode o = LogJson.read(json, WHAT);
        String id = LogJson.text(o, "event_id", WHAT);
        if (!Hex.isLowerHex(id, 64)) {
            throw new IllegalArgumentException(WHAT + " \"event_id\" is not 64 lower-case hex");
        }
        return new CustodyProof(EventId.ofHex(id), LogJson.nonNegative(o, "index", WHAT),
                LogJson.nonNegative(o, "tree_size", WHAT), LogJson.hashes(o, "path", WHAT),
                LogJson.event(LogJson.member(o, "receipt", WHAT), WHAT + " \"receipt\""));
    }

    /** Null when the proof holds (receipt signature and form, tree size, inclusion path), else why not. */
    public String verify() {
        String sig = Events.verify(receipt);
        if (sig != null) {
            return "the receipt is not authentic: " + sig;
        }
        Receipt r;
        try {
            r = Receipt.parse(receipt);
        } catch (ReceiptException e) {
            return "the receipt is not a custody receipt: " + e.getMessage();
        }
        if (treeSize != r.size()) {
            return "tree_size " + treeSize + " is not the receipt's tree size " + r.size();
        }
        if (index >= treeSize) {
            return "index " + index + " is outside the tree of size " + treeSize;
        }
        if (!Merkle.verifyInclusion(Merkle.leafHash(eventId), index, treeSize, path, r.root())) {
            return "the path does not lead from the event's leaf to the receipt's root";
        }
        return null;
    }
}
