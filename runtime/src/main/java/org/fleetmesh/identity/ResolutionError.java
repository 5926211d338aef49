package org.fleetmesh.identity;

/**
 * Why a DID did not resolve, in the error names of W3C DID Resolution and of the did:key method
 * (which adds the public key errors).
 */
public enum ResolutionError {
    /** The DID does not follow its method's syntax, or what it encodes does not decode. */
    INVALID_DID("invalidDid"),
    /** The DID is well formed but this resolver cannot produce its document (a did:peer:4 short form it never saw). */
    NOT_FOUND("notFound"),
    /** The DID method, or the did:peer numalgo, is not one this resolver implements. */
    METHOD_NOT_SUPPORTED("methodNotSupported"),
    /** The key bytes are not a point of the curve the multicodec names. */
    INVALID_PUBLIC_KEY("invalidPublicKey"),
    /** The key bytes are not the length the multicodec names. */
    INVALID_PUBLIC_KEY_LENGTH("invalidPublicKeyLength"),
    /** The multicodec is not a key type allowed where it appears. */
    INVALID_PUBLIC_KEY_TYPE("invalidPublicKeyType");

    private final String code;

    ResolutionError(String code) {
        this.code = code;
    }

    /** The name as DID Resolution metadata writes it, e.g. {@code invalidDid}. */
    public String code() {
        return code;
    }
}
