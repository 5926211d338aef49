package org.fleetmesh.identity;

/**
 * A DID, or a key inside one, that cannot be resolved; the message reads {@code "<error>: <reason>"} so it can
 * be handed to a peer as it is.
 */
public final class DidResolutionException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ResolutionError error;

    public DidResolutionException(ResolutionError error, String reason) {
        super(error.code() + ": " + reason);
        this.error = error;
    }

    public ResolutionError error() {
        return error;
    }

    static DidResolutionException invalidDid(String reason) {
        return new DidResolutionException(ResolutionError.INVALID_DID, reason);
    }
}
