package org.fleetmesh.delivery.log;

/** A receipt that is not a well-formed kind 11803 custody receipt; {@link #breach()} names the breach kind. */
public final class ReceiptException extends Exception {
    private final CustodyBreach.Kind breach;

    public ReceiptException(CustodyBreach.Kind breach, String message) {
        super(message);
        this.breach = breach;
    }

    public CustodyBreach.Kind breach() {
        return breach;
    }
}
