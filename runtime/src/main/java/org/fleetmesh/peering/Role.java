package org.fleetmesh.peering;

/** Which side of the link signs a proof; the label enters the transcript so a proof cannot be reflected. */
public enum Role {
    /** The node that dialled {@code /mesh}. */
    INITIATOR("initiator"),
    /** The node that accepted the connection and sent MESH-HELLO. */
    RESPONDER("responder");

    private final String label;

    Role(String label) {
        this.label = label;
    }

    /** The ASCII label signed in the transcript. */
    public String label() {
        return label;
    }

    public Role other() {
        return this == INITIATOR ? RESPONDER : INITIATOR;
    }
}
