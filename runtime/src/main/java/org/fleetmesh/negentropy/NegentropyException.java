package org.fleetmesh.negentropy;

/** A Negentropy message could not be read or answered, or the protocol was used out of turn. */
public final class NegentropyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NegentropyException(String message) {
        super(message);
    }
}
