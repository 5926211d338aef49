package org.fleetmesh.settlement.lightning.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.lightningj.lnd.invoices.proto.InvoicesOuterClass;
import org.lightningj.lnd.proto.LightningApi;
import org.lightningj.lnd.proto.LightningApi.Invoice.InvoiceState;
import org.lightningj.lnd.proto.LightningApi.Payment.PaymentStatus;
import org.lightningj.lnd.proto.LightningApi.PaymentFailureReason;
import org.lightningj.lnd.wrapper.message.Invoice;
import org.lightningj.lnd.wrapper.message.Payment;

/** Payments between simulated nodes through LightningJ's router API: success, hold invoices, failures. */
class SimulatedPaymentsTest extends SimulatedNetworkFixture {

    @Test
    void payerLearnsThePreimageOfARegularInvoice() throws Exception {
        byte[] preimage = random32();
        LightningApi.AddInvoiceResponse r = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(2000)
                .setRPreimage(ByteString.copyFrom(preimage)));
        long before = net.channelBalanceMsat(alice, bob);
        Collector<Payment> stream = pay(a, payReq(r.getPaymentRequest()));
        LightningApi.Payment first = next(stream);
        assertEquals(PaymentStatus.IN_FLIGHT, first.getStatus());
        LightningApi.Payment done = finalUpdate(stream);
        assertEquals(PaymentStatus.SUCCEEDED, done.getStatus());
        assertEquals(HexFormat.of().formatHex(preimage), done.getPaymentPreimage());
        assertEquals(HexFormat.of().formatHex(sha256(preimage)), done.getPaymentHash());
        assertEquals(2_000_000, done.getValueMsat());
        assertEquals(0, done.getFeeMsat());
        assertEquals(PaymentFailureReason.FAILURE_REASON_NONE, done.getFailureReason());
        assertEquals(1, done.getHtlcsCount());
        assertEquals(LightningApi.HTLCAttempt.HTLCStatus.SUCCEEDED, done.getHtlcs(0).getStatus());
        assertEquals(bob.identityPubkey(), done.getHtlcs(0).getRoute().getHops(0).getPubKey());

        LightningApi.Invoice inv = lookup(b, sha256(preimage));
        assertEquals(InvoiceState.SETTLED, inv.getState());
        assertEquals(2_000_000, inv.getAmtPaidMsat());
        assertEquals(2000, inv.getAmtPaidSat());
        assertEquals(1, inv.getSettleIndex());
        assertEquals(LightningApi.InvoiceHTLCState.SETTLED, inv.getHtlcs(0).getState());
        assertEquals(before - 2_000_000, net.channelBalanceMsat(alice, bob));
        assertEquals(LndClients.class, a.getClass()); // sanity: clients are LightningJ over TLS

        // paying it again, and tracking it
        assertLndError(pay(a, payReq(r.getPaymentRequest())).awaitError(), Status.Code.UNKNOWN,
                "invoice is already paid");
        Collector<Payment> tracked = track(a, sha256(preimage));
        assertEquals(PaymentStatus.SUCCEEDED, next(tracked).getStatus());
        tracked.awaitCompleted();
        // the synchronous API sees the same stream
        var it = a.router.trackPaymentV2(new org.lightningj.lnd.wrapper.router.message.TrackPaymentRequest(
                org.lightningj.lnd.router.proto.RouterOuterClass.TrackPaymentRequest.newBuilder()
                        .setPaymentHash(ByteString.copyFrom(sha256(preimage))).build()));
        assertEquals(HexFormat.of().formatHex(preimage), it.next().getPaymentPreimage());
    }

    @Test
    void trackingAnUnknownPaymentIsNotFound() throws Exception {
        assertLndError(track(a, random32()).awaitError(), Status.Code.NOT_FOUND, "payment isn't initiated");
    }

    @Test
    void holdInvoiceKeepsThePayerInFlightUntilSettled() throws Exception {
        byte[] preimage = random32();
        byte[] hash = sha256(preimage);
        InvoicesOuterClass.AddHoldInvoiceResp r = addHold(b, hash, 500, 0);
        Collector<Invoice> bobSees = subscribe(b, hash);
        assertEquals(InvoiceState.OPEN, nextInvoice(bobSees).getState());

        Collector<Payment> payer = pay(a, payReq(r.getPaymentRequest()));
        assertEquals(PaymentStatus.IN_FLIGHT, next(payer).getStatus());
        LightningApi.Invoice accepted = nextInvoice(bobSees);
        assertEquals(InvoiceState.ACCEPTED, accepted.getState());
        assertEquals(500_000, accepted.getAmtPaidMsat());
        assertEquals(LightningApi.InvoiceHTLCState.ACCEPTED, accepted.getHtlcs(0).getState());
        LightningApi.Payment withHtlc = next(payer);
        assertEquals(PaymentStatus.IN_FLIGHT, withHtlc.getStatus());
        assertEquals(LightningApi.HTLCAttempt.HTLCStatus.IN_FLIGHT, withHtlc.getHtlcs(0).getStatus());
        payer.assertQuiet(300);
        Collector<Payment> tracker = track(a, hash);
        assertEquals(PaymentStatus.IN_FLIGHT, next(tracker).getStatus());
        assertLndError(pay(a, payReq(r.getPaymentRequest())).awaitError(), Status.Code.UNKNOWN,
                "payment is in transition");
        assertEquals(DEFAULT - 500_000, net.channelBalanceMsat(alice, bob), "HTLC amount is locked");

        settle(b, preimage);
        LightningApi.Payment done = finalUpdate(payer);
        assertEquals(PaymentStatus.SUCCEEDED, done.getStatus());
        assertEquals(HexFormat.of().formatHex(preimage), done.getPaymentPreimage());
        assertEquals(PaymentStatus.SUCCEEDED, finalUpdate(tracker).getStatus());
        LightningApi.Invoice settled = nextInvoice(bobSees);
        assertEquals(InvoiceState.SETTLED, settled.getState());
        assertArrayEquals(preimage, settled.getRPreimage().toByteArray());
        bobSees.awaitCompleted();

        settle(b, preimage); // settling a settled invoice again is not an error in lnd
        assertLndError(fails(() -> cancel(b, hash)), Status.Code.UNKNOWN, "invoice already settled");
        assertEquals(DEFAULT + 500_000, net.channelBalanceMsat(bob, alice));
    }

    static final long DEFAULT = SimulatedLightningNetwork.DEFAULT_CHANNEL_BALANCE_MSAT;

    @Test
    void cancelingAnAcceptedHoldInvoiceFailsThePayment() throws Exception {
        byte[] hash = random32();
        InvoicesOuterClass.AddHoldInvoiceResp r = addHold(b, hash, 700, 0);
        Collector<Payment> payer = pay(a, payReq(r.getPaymentRequest()));
        assertEquals(PaymentStatus.IN_FLIGHT, next(payer).getStatus());
        awaitState(b, hash, InvoiceState.ACCEPTED);
        cancel(b, hash);
        LightningApi.Payment failed = finalUpdate(payer);
        assertEquals(PaymentStatus.FAILED, failed.getStatus());
        assertEquals(PaymentFailureReason.FAILURE_REASON_INCORRECT_PAYMENT_DETAILS, failed.getFailureReason());
        assertEquals(LightningApi.Failure.FailureCode.INCORRECT_OR_UNKNOWN_PAYMENT_DETAILS,
                failed.getHtlcs(0).getFailure().getCode());
        assertEquals(InvoiceState.CANCELED, lookup(b, hash).getState());
        assertEquals(DEFAULT, net.channelBalanceMsat(alice, bob), "the HTLC amount came back");
        // a canceled invoice cannot be paid
        LightningApi.Payment again = finalUpdate(pay(a, payReq(r.getPaymentRequest())));
        assertEquals(PaymentFailureReason.FAILURE_REASON_INCORRECT_PAYMENT_DETAILS, again.getFailureReason());
    }

    @Test
    void acceptedHoldInvoiceIsCanceledWhenItsHtlcWouldExpire() throws Exception {
        net.setHeldHtlcLifetime(Duration.ofMinutes(5));
        byte[] hash = random32();
        InvoicesOuterClass.AddHoldInvoiceResp r = addHold(b, hash, 700, 0);
        Collector<Payment> payer = pay(a, payReq(r.getPaymentRequest()));
        assertEquals(PaymentStatus.IN_FLIGHT, next(payer).getStatus());
        awaitState(b, hash, InvoiceState.ACCEPTED);
        net.clock().advance(Duration.ofMinutes(4));
        assertEquals(InvoiceState.ACCEPTED, lookup(b, hash).getState());
        net.clock().advance(Duration.ofMinutes(2));
        assertEquals(InvoiceState.CANCELED, lookup(b, hash).getState());
        LightningApi.Payment failed = finalUpdate(payer);
        assertEquals(PaymentFailureReason.FAILURE_REASON_INCORRECT_PAYMENT_DETAILS, failed.getFailureReason());
    }

    @Test
    void heldHtlcLifetimeDefaultsToCltvExpiryBlocks() throws Exception {
        byte[] hash = random32();
        InvoicesOuterClass.AddHoldInvoiceResp r = b.invoices.addHoldInvoice(
                new org.lightningj.lnd.wrapper.invoices.message.AddHoldInvoiceRequest(
                        InvoicesOuterClass.AddHoldInvoiceRequest.newBuilder().setHash(ByteString.copyFrom(hash))
                                .setValue(10).setCltvExpiry(40).build())).getApiObject();
        Collector<Payment> payer = pay(a, payReq(r.getPaymentRequest()));
        next(payer);
        awaitState(b, hash, InvoiceState.ACCEPTED);
        net.clock().advance(Duration.ofMinutes(399)); // 40 blocks of 10 minutes
        assertEquals(InvoiceState.ACCEPTED, lookup(b, hash).getState());
        net.clock().advance(Duration.ofMinutes(2));
        assertEquals(InvoiceState.CANCELED, lookup(b, hash).getState());
        assertEquals(PaymentStatus.FAILED, finalUpdate(payer).getStatus());
    }

    private static void awaitState(LndClients c, byte[] hash, InvoiceState state) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (lookup(c, hash).getState() != state) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("invoice never became " + state);
            }
            Thread.sleep(10);
        }
    }

    @Test
    void expiredInvoiceIsRefusedByThePayer() throws Exception {
        LightningApi.AddInvoiceResponse r = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(1).setExpiry(60));
        long ts = org.fleetmesh.settlement.lightning.bolt11.Bolt11.decode(r.getPaymentRequest()).timestamp();
        net.clock().advance(Duration.ofSeconds(61));
        Status s = pay(a, payReq(r.getPaymentRequest())).awaitError();
        assertEquals(Status.Code.UNKNOWN, s.getCode());
        String validUntil = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
                .withZone(java.time.ZoneOffset.UTC).format(java.time.Instant.ofEpochSecond(ts + 60));
        assertEquals("invoice expired. Valid until " + validUntil + " +0000 UTC", s.getDescription());
    }

    @Test
    void amountRules() throws Exception {
        LightningApi.AddInvoiceResponse zero = addInvoice(b, LightningApi.Invoice.newBuilder().setMemo("tip"));
        assertLndError(pay(a, payReq(zero.getPaymentRequest())).awaitError(), Status.Code.UNKNOWN,
                "amount must be specified when paying a zero amount invoice");
        LightningApi.Payment paid = finalUpdate(pay(a, payReq(zero.getPaymentRequest()).setAmt(321)));
        assertEquals(PaymentStatus.SUCCEEDED, paid.getStatus());
        assertEquals(321_000, lookup(b, zero.getRHash().toByteArray()).getAmtPaidMsat());

        LightningApi.AddInvoiceResponse fixed = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(5));
        assertLndError(pay(a, payReq(fixed.getPaymentRequest()).setAmt(5)).awaitError(), Status.Code.UNKNOWN,
                "amount must not be specified when paying a non-zero  amount invoice");
        assertLndError(pay(a, payReq(fixed.getPaymentRequest()).setAmt(5).setAmtMsat(5000)).awaitError(),
                Status.Code.UNKNOWN, "sat and msat arguments are mutually exclusive");
        assertLndError(pay(a, payReq(fixed.getPaymentRequest()).setTimeoutSeconds(0)).awaitError(),
                Status.Code.UNKNOWN, "timeout_seconds must be specified");
        LightningApi.AddInvoiceResponse own = addInvoice(a, LightningApi.Invoice.newBuilder().setValue(5));
        assertLndError(pay(a, payReq(own.getPaymentRequest())).awaitError(), Status.Code.UNKNOWN,
                "self-payments not allowed");
        // allowed, but the simulation has no circular route
        assertEquals(PaymentFailureReason.FAILURE_REASON_NO_ROUTE,
                finalUpdate(pay(a, payReq(own.getPaymentRequest()).setAllowSelfPayment(true))).getFailureReason());
        assertLndError(pay(a, payReq(fixed.getPaymentRequest()).setDest(ByteString.copyFrom(new byte[33]))).awaitError(),
                Status.Code.UNKNOWN, "dest and payment_request cannot appear together");
        assertEquals(Status.Code.UNIMPLEMENTED, pay(a, payReq("").setDest(ByteString.copyFrom(new byte[33]))
                .setAmt(1)).awaitError().getCode());
        assertEquals(Status.Code.UNKNOWN, pay(a, payReq("lnbc1")).awaitError().getCode());
    }

    @Test
    void insufficientBalanceAndNoRoute() throws Exception {
        SimulatedLnd carol = net.startNode("carol");
        LightningApi.AddInvoiceResponse big = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(50_000));
        net.setChannelBalance(alice, bob, 10_000_000);   // 10k sat to bob
        net.setChannelBalance(alice, carol, 10_000_000); // 10k sat to carol: 20k in all
        LightningApi.Payment p = finalUpdate(pay(a, payReq(big.getPaymentRequest())));
        assertEquals(PaymentStatus.FAILED, p.getStatus());
        assertEquals(PaymentFailureReason.FAILURE_REASON_INSUFFICIENT_BALANCE, p.getFailureReason());

        net.setChannelBalance(alice, carol, 100_000_000); // enough in all, but not towards bob (no multi-hop)
        p = finalUpdate(pay(a, payReq(big.getPaymentRequest())));
        assertEquals(PaymentFailureReason.FAILURE_REASON_NO_ROUTE, p.getFailureReason());

        net.setChannelBalance(alice, bob, 100_000_000); // a failed payment may be retried
        p = finalUpdate(pay(a, payReq(big.getPaymentRequest())));
        assertEquals(PaymentStatus.SUCCEEDED, p.getStatus());
        assertEquals(50_000_000, net.channelBalanceMsat(alice, bob));
    }

    @Test
    void payeeOutsideTheNetworkOrOfflineIsNoRoute(@org.junit.jupiter.api.io.TempDir Path other) throws Exception {
        try (SimulatedLightningNetwork elsewhere = new SimulatedLightningNetwork(other)) {
            SimulatedLnd dave = elsewhere.startNode("dave");
            String payReq;
            try (LndClients d = LndClients.admin(dave)) {
                payReq = addInvoice(d, LightningApi.Invoice.newBuilder().setValue(10)).getPaymentRequest();
            }
            LightningApi.Payment p = finalUpdate(pay(a, payReq(payReq)));
            assertEquals(PaymentFailureReason.FAILURE_REASON_NO_ROUTE, p.getFailureReason());
        }
        LightningApi.AddInvoiceResponse r = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(10));
        bob.stop();
        // bob was alice's only peer: with no active channel lnd sees no outgoing balance at all
        LightningApi.Payment p = finalUpdate(pay(a, payReq(r.getPaymentRequest())));
        assertEquals(PaymentFailureReason.FAILURE_REASON_INSUFFICIENT_BALANCE, p.getFailureReason());
        net.startNode("carol");
        p = finalUpdate(pay(a, payReq(r.getPaymentRequest())));
        assertEquals(PaymentFailureReason.FAILURE_REASON_NO_ROUTE, p.getFailureReason());
        bob.start();
        assertEquals(PaymentStatus.SUCCEEDED, finalUpdate(pay(a, payReq(r.getPaymentRequest()))).getStatus());
    }

    @Test
    void noInflightUpdatesSendsOnlyTheFinalState() throws Exception {
        LightningApi.AddInvoiceResponse r = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(10));
        Collector<Payment> s = pay(a, payReq(r.getPaymentRequest()).setNoInflightUpdates(true));
        assertEquals(PaymentStatus.SUCCEEDED, next(s).getStatus());
        s.awaitCompleted();
    }

    @Test
    void readonlyMacaroonCannotPayButCanTrack() throws Exception {
        LightningApi.AddInvoiceResponse r = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(10));
        try (LndClients ro = new LndClients(alice, alice.readonlyMacaroonPath())) {
            assertLndError(pay(ro, payReq(r.getPaymentRequest())).awaitError(), Status.Code.UNKNOWN, "permission denied");
            assertEquals(PaymentStatus.SUCCEEDED, finalUpdate(pay(a, payReq(r.getPaymentRequest()))).getStatus());
            Collector<Payment> t = track(ro, r.getRHash().toByteArray());
            assertEquals(PaymentStatus.SUCCEEDED, next(t).getStatus());
        }
    }
}
