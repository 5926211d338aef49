package org.fleetmesh.settlement.cashu.token;

/** A token or payment request we cannot read; the message is the reason to show, e.g. "invalid token: truncated". */
public final class TokenException extends Exception {
    private static final long serialVersionUID = 1L;

    public TokenException(String reason) {
        super(reason);
    }
}
