package org.fleetmesh.settlement.lightning.l402;

/**
 * Why a request is not served, as an HTTP status and a stable machine-readable code (the
 * {@code error} field of the JSON body); the message is for people.
 */
public final class L402Refusal extends RuntimeException {

    /** The codes; their HTTP status is fixed. */
    public enum Code {
        /** The filter parameter is missing, not JSON, or not a valid NIP-01 filter. */
        BAD_FILTER(400),
        /** The Authorization header names L402/LSAT but cannot be read. */
        MALFORMED_AUTHORIZATION(401),
        /** The macaroon cannot be read, its identifier is not ours, or its signature fails. */
        BAD_TOKEN(401),
        /** SHA-256 of the preimage is not the payment hash in the token. */
        WRONG_PREIMAGE(401),
        /** A caveat this server does not understand, or one that cannot be read: refused, never ignored. */
        UNKNOWN_CAVEAT(401),
        /** The expiry caveat has passed. */
        EXPIRED(401),
        /** The request's filter is not the one the token was bought for. */
        FILTER_MISMATCH(401),
        /** The request would deliver more events than the token's quota. */
        QUOTA_EXCEEDED(401),
        /** Too many challenges (invoices) were asked for lately, from this client address or in all. */
        RATE_LIMITED(429),
        /** Wrong HTTP method. */
        METHOD_NOT_ALLOWED(405),
        /** The rail returned something unusable (e.g. an invoice on another hash). */
        RAIL_ERROR(502),
        /** No settlement rail or no event store, or the rail is unreachable. */
        UNAVAILABLE(503);

        private final int status;

        Code(int status) {
            this.status = status;
        }

        public int status() {
            return status;
        }

        /** The lower-case form put on the wire. */
        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Code code;

    public L402Refusal(Code code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    public Code code() {
        return code;
    }

    public int status() {
        return code.status();
    }
}
