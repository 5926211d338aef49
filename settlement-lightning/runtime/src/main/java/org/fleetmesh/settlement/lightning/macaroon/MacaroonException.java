package org.fleetmesh.settlement.lightning.macaroon;

/** A macaroon that cannot be read, or does not verify; the message says which rule failed. */
public final class MacaroonException extends RuntimeException {
    public MacaroonException(String message) {
        super(message);
    }
}
