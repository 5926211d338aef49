package org.fleetmesh.settlement.lightning.sim;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * The error strings the simulation returns, copied from LND v0.17.0-beta, and the gRPC codes LND
 * gives them. A Go error returned from an LND RPC handler without a status reaches the client as
 * {@code UNKNOWN} with the error text as description; only a few handlers wrap errors in a status
 * (e.g. {@code NotFound} for LookupInvoice).
 */
final class LndErrors {
    // invoices/errors.go
    static final String INVOICE_NOT_FOUND = "unable to locate invoice";
    static final String DUPLICATE_INVOICE = "invoice with payment hash already exists";
    static final String INVOICE_STILL_OPEN = "invoice still open";
    static final String INVOICE_ALREADY_CANCELED = "invoice already canceled";
    static final String INVOICE_ALREADY_SETTLED = "invoice already settled";
    // channeldb/payment_control.go (payments/db/errors.go in later versions)
    static final String ALREADY_PAID = "invoice is already paid";
    static final String PAYMENT_IN_FLIGHT = "payment is in transition";
    static final String PAYMENT_NOT_INITIATED = "payment isn't initiated";
    // lnrpc/marshall_utils.go
    static final String SAT_MSAT_EXCLUSIVE = "sat and msat arguments are mutually exclusive";
    // macaroons/service.go and macaroon-bakery
    static final String PERMISSION_DENIED = "permission denied";
    static final String SIGNATURE_MISMATCH = "verification failed: signature mismatch after caveat verification";

    private LndErrors() {
    }

    /** A plain Go error returned by an LND handler: gRPC code UNKNOWN. */
    static StatusRuntimeException unknown(String message) {
        return Status.UNKNOWN.withDescription(message).asRuntimeException();
    }

    static StatusRuntimeException notFound(String message) {
        return Status.NOT_FOUND.withDescription(message).asRuntimeException();
    }

    static StatusRuntimeException invalidArgument(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }

    static StatusRuntimeException notSimulated(String what) {
        return Status.UNIMPLEMENTED.withDescription(
                "not simulated by fleetmesh's LND simulation (SimulatedLnd): " + what).asRuntimeException();
    }

    /** lntypes.MakeHash's error. */
    static byte[] hash(com.google.protobuf.ByteString b) {
        if (b.size() != 32) {
            throw unknown("invalid hash length of " + b.size() + ", want 32");
        }
        return b.toByteArray();
    }

    /** lntypes.MakePreimage's error. */
    static byte[] preimage(com.google.protobuf.ByteString b) {
        if (b.size() != 32) {
            throw unknown("invalid preimage length of " + b.size() + ", want 32");
        }
        return b.toByteArray();
    }

    /** lnrpc.UnmarshallAmt: one of sat and msat, in msat. */
    static long amountMsat(long sat, long msat) {
        if (sat != 0 && msat != 0) {
            throw unknown(SAT_MSAT_EXCLUSIVE);
        }
        return sat != 0 ? sat * 1000 : msat;
    }
}
