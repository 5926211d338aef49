package org.fleetmesh.identity.didcomm;

/**
 * A DIDComm message that cannot be packed or unpacked. The {@link Reason} says which rule failed, the message
 * reads {@code "<reason>: <detail>"} so it can be passed on to a peer as a problem report; it never carries key
 * material.
 */
public final class DidcommException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a message was refused. */
    public enum Reason {
        /** Not the JSON this format requires: a missing or mistyped member, bad base64url, a wrong length. */
        MALFORMED("malformed"),
        /** Well formed but outside what this implementation does: an algorithm, curve or serialization. */
        UNSUPPORTED("unsupported"),
        /** A DID that does not resolve. */
        UNRESOLVABLE_DID("unresolvable DID"),
        /** A key id that names no verification method, or for which no secret is held. */
        UNKNOWN_KEY("unknown key"),
        /** A verification method that exists but is not in the relationship the use needs (keyAgreement, authentication). */
        KEY_NOT_AUTHORIZED("key not authorized"),
        /**
         * A key of a type that cannot do what is asked (an Ed25519 key for key agreement, an X25519 key to sign), or on
         * another curve than the rest of the message (recipients, epk and sender on one curve; ES256 needs P-256).
         */
        WRONG_KEY_TYPE("wrong key type"),
        /** A content encryption key that does not unwrap, or ciphertext whose tag does not verify. */
        DECRYPTION_FAILED("decryption failed"),
        /** A JWS signature that does not verify with the key its kid names. */
        INVALID_SIGNATURE("invalid signature"),
        /** The plaintext's {@code from} is not the DID of the authcrypt sender or of the signer. */
        SENDER_MISMATCH("sender mismatch"),
        /** The plaintext's {@code to} does not name the DID the message was encrypted for. */
        RECIPIENT_MISMATCH("recipient mismatch");

        private final String text;

        Reason(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }
    }

    private final Reason reason;

    public DidcommException(Reason reason, String detail) {
        super(reason.text() + ": " + detail, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    static DidcommException malformed(String detail) {
        return new DidcommException(Reason.MALFORMED, detail);
    }

    static DidcommException unsupported(String detail) {
        return new DidcommException(Reason.UNSUPPORTED, detail);
    }
}
