package org.fleetmesh.settlement.lightning.bolt11;

/** A payment request the reader must refuse ("MUST fail the payment"), with the rule it broke. */
public final class Bolt11Exception extends Exception {

    /** Which rule of BOLT #11 (or BIP-173 beneath it) the payment request broke. */
    public enum Reason {
        /** No separator, a character outside the bech32 alphabet, or an empty part. */
        MALFORMED_BECH32,
        /** Upper and lower case letters in one string (BIP-173). */
        MIXED_CASE,
        BAD_CHECKSUM,
        /** The human-readable part does not start with {@code ln} plus a known currency prefix. */
        UNKNOWN_PREFIX,
        /** Amount with a non-digit, a leading 0, an unknown multiplier or a value that overflows. */
        INVALID_AMOUNT,
        /** A {@code p} amount whose last decimal is not 0: it would be a fraction of a millisatoshi. */
        SUB_MILLISATOSHI_AMOUNT,
        /** Too few 5-bit groups for a timestamp and a signature. */
        TOO_SHORT,
        /** A tagged field runs past the end of the data, or its value cannot be read. */
        MALFORMED_FIELD,
        /** A {@code p}, {@code h}, {@code s} or {@code n} field whose data_length is not 52, 52, 52, 53. */
        WRONG_FIELD_LENGTH,
        /** A {@code c}, {@code x} or {@code 9} field that starts with 0 field-elements. */
        NON_MINIMAL_FIELD,
        /** A fallback address of a known version whose program has an impossible length. */
        INVALID_FALLBACK,
        /** A route hint field that is not a whole number of 51-byte hops. */
        INVALID_ROUTE_HINT,
        MISSING_PAYMENT_HASH,
        MISSING_PAYMENT_SECRET,
        /** Neither a {@code d} nor an {@code h} field, or both. */
        DESCRIPTION_AMBIGUOUS,
        /** The {@code d} field is not valid UTF-8. */
        INVALID_DESCRIPTION,
        /** A non-zero even feature bit the reader does not know. */
        UNKNOWN_REQUIRED_FEATURE,
        /** A feature is set without a feature it depends on (BOLT #9). */
        MISSING_FEATURE_DEPENDENCY,
        /** Recovery id outside 0..3, recovery failed, or the signature does not verify against {@code n}. */
        INVALID_SIGNATURE,
        /** An {@code n} field is present and the signature is not low-S. */
        HIGH_S_SIGNATURE
    }

    private final Reason reason;

    public Bolt11Exception(Reason reason, String detail) {
        super(reason + ": " + detail);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
