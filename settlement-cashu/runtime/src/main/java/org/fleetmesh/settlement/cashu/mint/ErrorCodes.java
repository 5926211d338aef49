package org.fleetmesh.settlement.cashu.mint;

import java.util.Map;

/**
 * The error codes a mint puts in {@code {"detail","code"}} (cashubtc/nuts error_codes.md, commit
 * 3ddb1ae767b50859a0f346947479451027404dae). Callers compare {@link MintException#code()} against these.
 */
public final class ErrorCodes {
    public static final int PROOF_VERIFICATION_FAILED = 10001;
    public static final int PROOFS_ALREADY_SPENT = 11001;
    public static final int PROOFS_PENDING = 11002;
    public static final int OUTPUTS_ALREADY_SIGNED = 11003;
    public static final int OUTPUTS_PENDING = 11004;
    public static final int TRANSACTION_NOT_BALANCED = 11005;
    public static final int AMOUNT_OUTSIDE_LIMIT = 11006;
    public static final int DUPLICATE_INPUTS = 11007;
    public static final int DUPLICATE_OUTPUTS = 11008;
    public static final int MULTIPLE_UNITS = 11009;
    public static final int INPUT_OUTPUT_UNIT_MISMATCH = 11010;
    public static final int AMOUNTLESS_INVOICE_UNSUPPORTED = 11011;
    public static final int AMOUNT_DOES_NOT_EQUAL_INVOICE = 11012;
    public static final int UNIT_NOT_SUPPORTED = 11013;
    public static final int MAX_INPUTS_EXCEEDED = 11014;
    public static final int MAX_OUTPUTS_EXCEEDED = 11015;
    public static final int DUPLICATE_QUOTE_IDS = 11016;
    public static final int MAX_BATCH_SIZE_EXCEEDED = 11017;
    public static final int KEYSET_UNKNOWN = 12001;
    public static final int KEYSET_INACTIVE = 12002;
    public static final int KEYSET_EXPIRED = 12003;
    public static final int QUOTE_NOT_PAID = 20001;
    public static final int QUOTE_ALREADY_ISSUED = 20002;
    public static final int MINTING_DISABLED = 20003;
    public static final int LIGHTNING_PAYMENT_FAILED = 20004;
    public static final int QUOTE_PENDING = 20005;
    public static final int INVOICE_ALREADY_PAID = 20006;
    public static final int QUOTE_EXPIRED = 20007;
    public static final int MINT_SIGNATURE_INVALID = 20008;
    public static final int MINT_PUBKEY_REQUIRED = 20009;
    public static final int CLEAR_AUTH_REQUIRED = 30001;
    public static final int CLEAR_AUTH_FAILED = 30002;
    public static final int BLIND_AUTH_REQUIRED = 31001;
    public static final int BLIND_AUTH_FAILED = 31002;
    public static final int BAT_MINT_AMOUNT_EXCEEDED = 31003;
    public static final int BAT_MINT_RATE_LIMITED = 31004;

    private static final Map<Integer, String> DESCRIPTIONS = Map.ofEntries(
            Map.entry(PROOF_VERIFICATION_FAILED, "Proof verification failed"),
            Map.entry(PROOFS_ALREADY_SPENT, "Proofs already spent"),
            Map.entry(PROOFS_PENDING, "Proofs are pending"),
            Map.entry(OUTPUTS_ALREADY_SIGNED, "Outputs already signed"),
            Map.entry(OUTPUTS_PENDING, "Outputs are pending"),
            Map.entry(TRANSACTION_NOT_BALANCED, "Transaction is not balanced (inputs != outputs)"),
            Map.entry(AMOUNT_OUTSIDE_LIMIT, "Amount outside of limit range"),
            Map.entry(DUPLICATE_INPUTS, "Duplicate inputs provided"),
            Map.entry(DUPLICATE_OUTPUTS, "Duplicate outputs provided"),
            Map.entry(MULTIPLE_UNITS, "Inputs/Outputs of multiple units"),
            Map.entry(INPUT_OUTPUT_UNIT_MISMATCH, "Inputs and outputs not of same unit"),
            Map.entry(AMOUNTLESS_INVOICE_UNSUPPORTED, "Amountless invoice is not supported"),
            Map.entry(AMOUNT_DOES_NOT_EQUAL_INVOICE, "Amount in request does not equal invoice"),
            Map.entry(UNIT_NOT_SUPPORTED, "Unit in request is not supported"),
            Map.entry(MAX_INPUTS_EXCEEDED, "Max inputs exceeded"),
            Map.entry(MAX_OUTPUTS_EXCEEDED, "Max outputs exceeded"),
            Map.entry(DUPLICATE_QUOTE_IDS, "Duplicate quote IDs provided"),
            Map.entry(MAX_BATCH_SIZE_EXCEEDED, "Max batch size exceeded"),
            Map.entry(KEYSET_UNKNOWN, "Keyset is not known"),
            Map.entry(KEYSET_INACTIVE, "Keyset is inactive, cannot sign messages"),
            Map.entry(KEYSET_EXPIRED, "Keyset has expired"),
            Map.entry(QUOTE_NOT_PAID, "Quote request is not paid"),
            Map.entry(QUOTE_ALREADY_ISSUED, "Quote has already been issued"),
            Map.entry(MINTING_DISABLED, "Minting is disabled"),
            Map.entry(LIGHTNING_PAYMENT_FAILED, "Lightning payment failed"),
            Map.entry(QUOTE_PENDING, "Quote is pending"),
            Map.entry(INVOICE_ALREADY_PAID, "Invoice already paid"),
            Map.entry(QUOTE_EXPIRED, "Quote is expired"),
            Map.entry(MINT_SIGNATURE_INVALID, "Signature for mint request invalid"),
            Map.entry(MINT_PUBKEY_REQUIRED, "Pubkey required for mint quote"),
            Map.entry(CLEAR_AUTH_REQUIRED, "Endpoint requires clear auth"),
            Map.entry(CLEAR_AUTH_FAILED, "Clear authentication failed"),
            Map.entry(BLIND_AUTH_REQUIRED, "Endpoint requires blind auth"),
            Map.entry(BLIND_AUTH_FAILED, "Blind authentication failed"),
            Map.entry(BAT_MINT_AMOUNT_EXCEEDED, "Maximum BAT mint amount exceeded"),
            Map.entry(BAT_MINT_RATE_LIMITED, "BAT mint rate limit exceeded"));

    private ErrorCodes() {
    }

    /** The table's description of {@code code}, or null for a code the table does not list. */
    public static String describe(int code) {
        return DESCRIPTIONS.get(code);
    }
}
