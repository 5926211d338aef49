package org.fleetmesh.settlement.lightning.bolt12;

/**
 * A BOLT #12 string the reader must refuse ("MUST NOT respond to the offer", "MUST reject the invoice
 * request", "MUST reject the invoice"), with the rule it broke as {@link #reason()}.
 */
public final class Bolt12Exception extends Exception {

    /** Which rule of BOLT #12 (or of the TLV format and bech32 beneath it) the string broke. */
    public enum Reason {
        /** A string over {@link Bolt12#MAX_CHARS} characters or data over {@link Bolt12#MAX_DATA_BYTES} bytes. */
        TOO_LONG,
        /** A character outside the bech32 alphabet, whitespace not after a {@code +}, or no {@code 1} separator. */
        MALFORMED_STRING,
        /** A {@code +} not between two bech32 characters (whitespace may follow it). */
        INVALID_CONTINUATION,
        /** Upper and lower case letters in one string. */
        MIXED_CASE,
        /** A human-readable part other than {@code lno}, {@code lnr} or {@code lni}. */
        UNKNOWN_PREFIX,
        /** More than 4 padding bits after the last byte, or a padding bit that is 1. */
        INVALID_PADDING,
        /** No TLV record at all. */
        EMPTY,
        /** A type, length or value runs past the end of the data. */
        TRUNCATED,
        /** A BigSize type or length not in its shortest encoding. */
        NON_MINIMAL_BIGSIZE,
        /** TLV types not strictly increasing. */
        TYPES_NOT_ASCENDING,
        /** A type outside the ranges the message may carry. */
        TYPE_OUT_OF_RANGE,
        /** An even type the reader does not know ("it's OK to be odd"). */
        UNKNOWN_EVEN_TYPE,
        /** A fixed-size field of the wrong size, or an array field that is not a whole number of elements. */
        INVALID_FIELD_LENGTH,
        /** A {@code tu64}/{@code tu32} with a leading zero byte, or longer than 8/4 bytes. */
        NON_MINIMAL_INTEGER,
        /** A {@code utf8} field that is not valid UTF-8. */
        INVALID_UTF8,
        /** A {@code point} that is not a valid compressed secp256k1 public key. */
        INVALID_POINT,
        /** A {@code blinded_path} (or {@code blinded_payinfo}, {@code fallback_address}) cut short or with trailing bytes. */
        MALFORMED_BLINDED_PATH,
        /** A {@code blinded_path} with {@code num_hops} 0. */
        EMPTY_BLINDED_PATH,
        /** An {@code offer_chains} field with no chain in it. */
        EMPTY_CHAINS,
        /** A non-zero even feature bit the reader does not know. */
        UNKNOWN_REQUIRED_FEATURE,
        /** {@code offer_amount} is set and {@code offer_description} is not. */
        AMOUNT_WITHOUT_DESCRIPTION,
        /** {@code offer_amount} is set and is not greater than zero. */
        ZERO_AMOUNT,
        /** {@code offer_currency} is set and {@code offer_amount} is not. */
        CURRENCY_WITHOUT_AMOUNT,
        /** Neither {@code offer_issuer_id} nor {@code offer_paths}. */
        NO_ISSUER_ID_OR_PATHS,
        /** A field the message must carry is absent. */
        MISSING_FIELD,
        /** A field present that must not be, or a value a reader must reject (quantity, BIP-353 name, ...). */
        INVALID_FIELD,
        /** {@code invoice_blindedpay} does not hold exactly one {@code blinded_payinfo} per {@code invoice_paths} entry. */
        BLINDEDPAY_MISMATCH,
        /** Every {@code invoice_paths} entry has a {@code blinded_payinfo} with an unknown even feature. */
        NO_USABLE_PATH,
        /** The {@code signature} field is absent where the reader must check it. */
        MISSING_SIGNATURE,
        /** The BIP-340 signature over the Merkle root does not verify against the signing key. */
        INVALID_SIGNATURE
    }

    private final Reason reason;

    public Bolt12Exception(Reason reason, String detail) {
        super(reason + ": " + detail);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
