package org.fleetmesh.settlement.lightning.bolt12;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.lightning.bolt11.NodeId;
import org.fleetmesh.settlement.lightning.bolt11.ShortChannelId;

/**
 * A BOLT #4 {@code blinded_path}: the introduction node ({@code first_node_id}, a node id or a
 * {@code sciddir}), the {@code first_path_key} and at least one hop.
 */
public record BlindedPath(Introduction firstNodeId, NodeId firstPathKey, List<Hop> hops) {

    public BlindedPath {
        Objects.requireNonNull(firstNodeId);
        Objects.requireNonNull(firstPathKey);
        hops = List.copyOf(hops);
    }

    /** The {@code sciddir_or_pubkey} that names the introduction node. */
    public sealed interface Introduction permits NodeIntroduction, ChannelIntroduction {
    }

    /** The introduction node by its 33-byte node id. */
    public record NodeIntroduction(NodeId nodeId) implements Introduction {
    }

    /**
     * The introduction node as one end of a channel: {@code direction} 0 is {@code node_id_1} of the
     * {@code channel_announcement}, 1 is {@code node_id_2}.
     */
    public record ChannelIntroduction(int direction, ShortChannelId shortChannelId) implements Introduction {
    }

    /** A {@code blinded_path_hop}: the tweaked node id and the data encrypted to that node. */
    public record Hop(NodeId blindedNodeId, byte[] encryptedRecipientData) {
        public Hop {
            Objects.requireNonNull(blindedNodeId);
            encryptedRecipientData = encryptedRecipientData.clone();
        }

        @Override
        public byte[] encryptedRecipientData() {
            return encryptedRecipientData.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Hop h && blindedNodeId.equals(h.blindedNodeId)
                    && Arrays.equals(encryptedRecipientData, h.encryptedRecipientData);
        }

        @Override
        public int hashCode() {
            return 31 * blindedNodeId.hashCode() + Arrays.hashCode(encryptedRecipientData);
        }

        @Override
        public String toString() {
            return "Hop[" + blindedNodeId + ", " + Hex.encode(encryptedRecipientData) + "]";
        }
    }

    /** The final hop's {@code blinded_node_id}: where an invoice request sent over this path ends. */
    public NodeId finalBlindedNodeId() {
        return hops.get(hops.size() - 1).blindedNodeId();
    }
}
