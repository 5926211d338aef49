package org.fleetmesh.identity.multiformats;

/** Bytes or text that are not what the multiformats specification allows; the message says what is wrong. */
public final class MultiformatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public MultiformatException(String message) {
        super(message);
    }
}
