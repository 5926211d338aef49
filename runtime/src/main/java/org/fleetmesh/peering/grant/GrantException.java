package org.fleetmesh.peering.grant;

/** A kind 30801 event that is not a valid grant; the message is the reason, prefixed {@code invalid:}. */
public final class GrantException extends Exception {
    private static final long serialVersionUID = 1L;

    public GrantException(String reason) {
        super(reason.startsWith("invalid: ") ? reason : "invalid: " + reason);
    }
}
