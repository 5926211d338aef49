package org.fleetmesh.settlement.lightning.sim;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.lightningj.lnd.proto.LightningApi;

/**
 * One outgoing payment in a simulated node's payment store (LND's control tower). Mutated only under the
 * network's lock. A payment makes at most one HTLC attempt over a direct channel: the simulation has no
 * multi-hop routes, so the fee is always 0.
 */
final class SimulatedPayment {
    /** A subscriber of SendPaymentV2 / TrackPaymentV2. */
    record Subscriber(SimulatedStream<LightningApi.Payment> stream, boolean noInflightUpdates) {
    }

    static final class Attempt {
        long attemptId;
        long attemptTimeNs;
        long resolveTimeNs;
        long chanId;
        long chanCapacitySat;
        long amtMsat;
        int expiryHeight;
        String payeePubkey;
        byte[] paymentAddr;
        LightningApi.HTLCAttempt.HTLCStatus status = LightningApi.HTLCAttempt.HTLCStatus.IN_FLIGHT;
        byte[] preimage;
        boolean failedAtPayee;
    }

    final byte[] hash;
    final long valueMsat;
    final String paymentRequest;
    final long creationTimeNs;
    final long paymentIndex;
    LightningApi.Payment.PaymentStatus status = LightningApi.Payment.PaymentStatus.IN_FLIGHT;
    LightningApi.PaymentFailureReason failureReason = LightningApi.PaymentFailureReason.FAILURE_REASON_NONE;
    byte[] preimage;
    Attempt attempt;
    final List<Subscriber> subscribers = new ArrayList<>();

    SimulatedPayment(byte[] hash, long valueMsat, String paymentRequest, long creationTimeNs, long paymentIndex) {
        this.hash = hash;
        this.valueMsat = valueMsat;
        this.paymentRequest = paymentRequest;
        this.creationTimeNs = creationTimeNs;
        this.paymentIndex = paymentIndex;
    }

    boolean isFinal() {
        return status == LightningApi.Payment.PaymentStatus.SUCCEEDED
                || status == LightningApi.Payment.PaymentStatus.FAILED;
    }

    /** As routerrpc's MarshallPayment renders it. */
    LightningApi.Payment toProto() {
        LightningApi.Payment.Builder b = LightningApi.Payment.newBuilder()
                .setPaymentHash(HexFormat.of().formatHex(hash))
                .setValue(valueMsat / 1000)
                .setValueSat(valueMsat / 1000)
                .setValueMsat(valueMsat)
                .setCreationDate(creationTimeNs / 1_000_000_000L)
                .setCreationTimeNs(creationTimeNs)
                .setPaymentRequest(paymentRequest)
                .setStatus(status)
                .setFee(0).setFeeSat(0).setFeeMsat(0)
                .setPaymentIndex(paymentIndex)
                .setFailureReason(failureReason)
                .setPaymentPreimage(HexFormat.of().formatHex(preimage == null ? new byte[32] : preimage));
        if (attempt != null) {
            LightningApi.Route route = LightningApi.Route.newBuilder()
                    .setTotalTimeLock(attempt.expiryHeight)
                    .setTotalAmt(attempt.amtMsat / 1000)
                    .setTotalAmtMsat(attempt.amtMsat)
                    .addHops(LightningApi.Hop.newBuilder()
                            .setChanId(attempt.chanId)
                            .setChanCapacity(attempt.chanCapacitySat)
                            .setAmtToForward(attempt.amtMsat / 1000)
                            .setAmtToForwardMsat(attempt.amtMsat)
                            .setExpiry(attempt.expiryHeight)
                            .setPubKey(attempt.payeePubkey)
                            .setTlvPayload(true)
                            .setMppRecord(LightningApi.MPPRecord.newBuilder()
                                    .setPaymentAddr(ByteString.copyFrom(attempt.paymentAddr))
                                    .setTotalAmtMsat(attempt.amtMsat)))
                    .build();
            LightningApi.HTLCAttempt.Builder a = LightningApi.HTLCAttempt.newBuilder()
                    .setAttemptId(attempt.attemptId)
                    .setStatus(attempt.status)
                    .setRoute(route)
                    .setAttemptTimeNs(attempt.attemptTimeNs)
                    .setResolveTimeNs(attempt.resolveTimeNs);
            if (attempt.preimage != null) {
                a.setPreimage(ByteString.copyFrom(attempt.preimage));
            }
            if (attempt.failedAtPayee) {
                a.setFailure(LightningApi.Failure.newBuilder()
                        .setCode(LightningApi.Failure.FailureCode.INCORRECT_OR_UNKNOWN_PAYMENT_DETAILS)
                        .setFailureSourceIndex(1)
                        .setHeight(attempt.expiryHeight));
            }
            b.addHtlcs(a);
        }
        return b.build();
    }
}
