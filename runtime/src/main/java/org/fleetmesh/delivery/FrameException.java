package org.fleetmesh.delivery;

/** A delivery message this node does not accept; the message is the protocol answer's reason ({@code invalid: ...}). */
public final class FrameException extends Exception {
    private static final long serialVersionUID = 1L;

    public FrameException(String reason) {
        super(reason);
    }
}
