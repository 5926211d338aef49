package org.fleetmesh.shards;

/** Sampling evidence that does not hold: the message says which check failed. */
public final class EvidenceException extends Exception {
    private static final long serialVersionUID = 1L;

    public EvidenceException(String message) {
        super(message);
    }
}
