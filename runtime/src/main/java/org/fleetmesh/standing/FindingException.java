package org.fleetmesh.standing;

/** An event that is not a well-formed finding; the message is the refusal ({@code invalid: ...}). */
public final class FindingException extends Exception {
    private static final long serialVersionUID = 1L;

    public FindingException(String reason) {
        super(reason, null, false, false);
    }
}
