package org.fleetmesh.settlement.lightning.lnd;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementException.Reason;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Unary calls over LightningJ's generated asynchronous stubs with a deadline, and LND's errors as {@link SettlementException}s. */
final class LndCalls {
    private LndCalls() {
    }

    @FunctionalInterface
    interface AsyncCall<T> {
        void start(StreamObserver<T> observer);
    }

    /** Runs one unary call and waits at most {@code timeout}; errors are mapped by {@link #map}. */
    static <T> T unary(String what, Duration timeout, AsyncCall<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            call.start(new StreamObserver<>() {
                @Override
                public void onNext(T value) {
                    result.complete(value);
                }

                @Override
                public void onError(Throwable t) {
                    result.completeExceptionally(t);
                }

                @Override
                public void onCompleted() {
                    result.completeExceptionally(new IllegalStateException("LND ended " + what + " without a response"));
                }
            });
            return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw map(what, e.getCause());
        } catch (TimeoutException e) {
            throw new SettlementException(Reason.RAIL_UNAVAILABLE, "LND did not answer " + what + " within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SettlementException(Reason.RAIL_UNAVAILABLE, "interrupted waiting for LND " + what);
        }
    }

    /** The gRPC status of an error from grpc-java, or null. */
    static Status statusOf(Throwable t) {
        if (t instanceof StatusRuntimeException sre) {
            return sre.getStatus();
        }
        if (t instanceof io.grpc.StatusException ge) {
            return ge.getStatus();
        }
        return null;
    }

    /** LND's error text: the status description, or the exception message. */
    static String lndMessage(Throwable t) {
        Status s = statusOf(t);
        if (s != null && s.getDescription() != null) {
            return s.getDescription();
        }
        return String.valueOf(t.getMessage());
    }

    /**
     * Maps an LND error to a reason. LND reports most errors as gRPC UNKNOWN with its Go error text, so the
     * text decides; transport failures (UNAVAILABLE, DEADLINE_EXCEEDED) and macaroon refusals mean the rail is
     * unusable right now.
     */
    static SettlementException map(String what, Throwable t) {
        if (t instanceof SettlementException se) {
            return se;
        }
        Status s = statusOf(t);
        String msg = lndMessage(t);
        String lower = msg.toLowerCase(java.util.Locale.ROOT);
        if (s != null && (s.getCode() == Status.Code.UNAVAILABLE || s.getCode() == Status.Code.DEADLINE_EXCEEDED
                || s.getCode() == Status.Code.CANCELLED)) {
            return new SettlementException(Reason.RAIL_UNAVAILABLE, "LND unreachable during " + what + ": " + msg, t);
        }
        if (lower.contains("macaroon") || lower.contains("permission denied") || lower.contains("verification failed")
                || (s != null && (s.getCode() == Status.Code.UNAUTHENTICATED || s.getCode() == Status.Code.PERMISSION_DENIED))) {
            return new SettlementException(Reason.RAIL_UNAVAILABLE, "LND refused our credentials for " + what + ": " + msg, t);
        }
        Reason reason;
        if (lower.contains("invoice with payment hash already exists")) {
            reason = Reason.DUPLICATE_PAYMENT_HASH;
        } else if (lower.contains("unable to locate invoice") || lower.contains("there are no existing invoices")) {
            reason = Reason.UNKNOWN_PAYMENT_HASH;
        } else if (lower.contains("invoice still open")) {
            reason = Reason.NOT_ACCEPTED;
        } else if (lower.contains("invoice already settled") || lower.contains("invoice is already paid")) {
            reason = Reason.ALREADY_SETTLED;
        } else if (lower.contains("invoice already canceled")) {
            reason = Reason.ALREADY_CANCELED;
        } else if (lower.contains("invoice expired")) {
            reason = Reason.EXPIRED;
        } else if (lower.contains("amount") && (lower.contains("must") || lower.contains("exceed") || lower.contains("invalid"))) {
            reason = Reason.AMOUNT_OUT_OF_RANGE;
        } else if (lower.contains("invalid payment request") || lower.contains("checksum") || lower.contains("invalid bech32")) {
            reason = Reason.INVALID_REQUEST;
        } else if (s != null && s.getCode() == Status.Code.UNIMPLEMENTED) {
            reason = Reason.UNSUPPORTED;
        } else {
            reason = Reason.RAIL_ERROR;
        }
        return new SettlementException(reason, "LND " + what + ": " + msg, t);
    }
}
