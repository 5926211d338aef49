package org.fleetmesh.peering;

/** A handshake that ended without authentication; {@link #refusal()} says why and who refused. */
public final class MeshRefusedException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Refusal refusal;

    public MeshRefusedException(Refusal refusal) {
        super(refusal.toString(), null, false, false);
        this.refusal = refusal;
    }

    public Refusal refusal() {
        return refusal;
    }
}
