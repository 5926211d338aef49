package org.fleetmesh.settlement.lightning.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import java.time.Duration;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11;
import org.fleetmesh.settlement.lightning.bolt11.Network;
import org.junit.jupiter.api.Test;
import org.lightningj.lnd.invoices.proto.InvoicesOuterClass;
import org.lightningj.lnd.proto.LightningApi;
import org.lightningj.lnd.proto.LightningApi.Invoice.InvoiceState;
import org.lightningj.lnd.proto.LightningApi.Payment.PaymentStatus;
import org.lightningj.lnd.wrapper.invoices.message.LookupInvoiceMsg;
import org.lightningj.lnd.wrapper.message.Invoice;

/** The simulated invoice registry through LightningJ: AddInvoice, hold invoices, the state machine, expiry. */
class SimulatedInvoicesTest extends SimulatedNetworkFixture {

    @Test
    void addInvoiceReturnsASignedRegtestBolt11() throws Exception {
        byte[] preimage = random32();
        LightningApi.AddInvoiceResponse r = addInvoice(a, LightningApi.Invoice.newBuilder()
                .setValue(1500).setMemo("coffee").setRPreimage(ByteString.copyFrom(preimage)).setExpiry(600));
        assertArrayEquals(sha256(preimage), r.getRHash().toByteArray());
        assertTrue(r.getPaymentRequest().startsWith("lnbcrt15u1"), r.getPaymentRequest());
        assertEquals(1, r.getAddIndex());
        var decoded = Bolt11.decode(r.getPaymentRequest());
        assertEquals(Network.REGTEST, decoded.network());
        assertEquals(alice.identityPubkey(), decoded.payee().hex());
        assertEquals(1_500_000, decoded.amountMsat().getAsLong());
        assertEquals("coffee", decoded.description().orElseThrow());
        assertEquals(600, decoded.expiry());
        assertEquals(80, decoded.minFinalCltvExpiryDelta());
        assertArrayEquals(r.getPaymentAddr().toByteArray(), decoded.paymentSecret().bytes());
        assertTrue(decoded.features().isSet(14) && decoded.features().isSet(17) && decoded.features().isSet(9));

        LightningApi.Invoice inv = lookup(a, sha256(preimage));
        assertEquals(InvoiceState.OPEN, inv.getState());
        assertEquals(1500, inv.getValue());
        assertEquals(1_500_000, inv.getValueMsat());
        assertEquals("coffee", inv.getMemo());
        assertArrayEquals(preimage, inv.getRPreimage().toByteArray());
        assertEquals(r.getPaymentRequest(), inv.getPaymentRequest());
        assertEquals(600, inv.getExpiry());
        assertEquals(80, inv.getCltvExpiry());

        LightningApi.PayReq pr = b.lnd.decodePayReq(r.getPaymentRequest()).getApiObject();
        assertEquals(alice.identityPubkey(), pr.getDestination());
        assertEquals(java.util.HexFormat.of().formatHex(sha256(preimage)), pr.getPaymentHash());
        assertEquals(1500, pr.getNumSatoshis());
        assertEquals(1_500_000, pr.getNumMsat());
        assertEquals("coffee", pr.getDescription());
        assertEquals(600, pr.getExpiry());
        assertEquals(80, pr.getCltvExpiry());
        assertEquals(r.getPaymentAddr(), pr.getPaymentAddr());
        assertTrue(pr.getFeaturesMap().get(14).getIsRequired());
    }

    @Test
    void defaultsAndMsatValues() throws Exception {
        LightningApi.AddInvoiceResponse r = addInvoice(a, LightningApi.Invoice.newBuilder().setValueMsat(1234));
        LightningApi.Invoice inv = lookup(a, r.getRHash().toByteArray());
        assertEquals(86400, inv.getExpiry(), "lnd's default invoice expiry is 24 h");
        assertEquals(1234, inv.getValueMsat());
        assertEquals(1, inv.getValue());
        assertEquals(1234, Bolt11.decode(r.getPaymentRequest()).amountMsat().getAsLong());
        LightningApi.AddInvoiceResponse zero = addInvoice(a, LightningApi.Invoice.newBuilder().setMemo("any amount"));
        assertTrue(Bolt11.decode(zero.getPaymentRequest()).amountMsat().isEmpty());
        assertEquals(2, zero.getAddIndex());
        LightningApi.AddInvoiceResponse negative = addInvoice(a, LightningApi.Invoice.newBuilder().setExpiry(-5));
        assertEquals(86400, lookup(a, negative.getRHash().toByteArray()).getExpiry(), "lnd ignores a negative expiry");
    }

    @Test
    void addInvoiceErrorsAreLnds() throws Exception {
        byte[] preimage = random32();
        addInvoice(a, LightningApi.Invoice.newBuilder().setValue(1).setRPreimage(ByteString.copyFrom(preimage)));
        assertLndError(fails(() -> addInvoice(a, LightningApi.Invoice.newBuilder().setValue(2)
                .setRPreimage(ByteString.copyFrom(preimage)))), Status.Code.UNKNOWN,
                "invoice with payment hash already exists");
        assertLndError(fails(() -> addInvoice(a, LightningApi.Invoice.newBuilder().setValue(2).setValueMsat(2000))),
                Status.Code.UNKNOWN, "sat and msat arguments are mutually exclusive");
        assertLndError(fails(() -> addInvoice(a, LightningApi.Invoice.newBuilder().setMemo("x".repeat(1025)))),
                Status.Code.UNKNOWN, "memo too large: 1025 bytes (maxsize=1024)");
        assertLndError(fails(() -> addInvoice(a, LightningApi.Invoice.newBuilder().setRPreimage(ByteString.copyFrom(new byte[5])))),
                Status.Code.UNKNOWN, "invalid preimage length of 5, want 32");
        byte[] hash = random32();
        addHold(a, hash, 10, 0);
        assertLndError(fails(() -> addHold(a, hash, 10, 0)), Status.Code.UNKNOWN,
                "invoice with payment hash already exists");
    }

    @Test
    void invoicesSubServerPermissionsAndLookupByHexString() throws Exception {
        byte[] preimage = random32();
        byte[] hash = sha256(preimage);
        try (LndClients ro = new LndClients(alice, alice.readonlyMacaroonPath());
             LndClients im = new LndClients(alice, alice.invoiceMacaroonPath())) {
            assertLndError(fails(() -> addHold(ro, hash, 1, 0)), Status.Code.UNKNOWN, "permission denied");
            addHold(im, hash, 1, 0);
            assertLndError(fails(() -> cancel(ro, hash)), Status.Code.UNKNOWN, "permission denied");
            assertLndError(fails(() -> settle(ro, preimage)), Status.Code.UNKNOWN, "permission denied");
            assertEquals(InvoiceState.OPEN, nextInvoice(subscribe(ro, hash)).getState());
            cancel(im, hash);
        }
        LightningApi.Invoice byHex = a.lnd.lookupInvoice(java.util.HexFormat.of().formatHex(hash), null).getApiObject();
        assertEquals(InvoiceState.CANCELED, byHex.getState());
        assertLndError(fails(() -> lookup(a, new byte[5])), Status.Code.UNKNOWN,
                "payment hash must be exactly 32 bytes, is instead 5");
    }

    @Test
    void lookupOfUnknownHashIsNotFound() throws Exception {
        assertLndError(fails(() -> lookup(a, random32())), Status.Code.NOT_FOUND, "unable to locate invoice");
        assertLndError(fails(() -> a.invoices.lookupInvoiceV2(new LookupInvoiceMsg(InvoicesOuterClass.LookupInvoiceMsg
                .newBuilder().setPaymentHash(ByteString.copyFrom(random32())).build()))),
                Status.Code.NOT_FOUND, "unable to locate invoice");
    }

    @Test
    void lookupInvoiceV2NeedsInvoicesWrite() throws Exception {
        byte[] hash = random32();
        InvoicesOuterClass.AddHoldInvoiceResp r = addHold(a, hash, 10, 0);
        var msg = new LookupInvoiceMsg(InvoicesOuterClass.LookupInvoiceMsg.newBuilder()
                .setPaymentHash(ByteString.copyFrom(hash)).build());
        assertEquals(InvoiceState.OPEN, a.invoices.lookupInvoiceV2(msg).getApiObject().getState());
        var byAddr = new LookupInvoiceMsg(InvoicesOuterClass.LookupInvoiceMsg.newBuilder()
                .setPaymentAddr(r.getPaymentAddr()).build());
        assertArrayEquals(hash, a.invoices.lookupInvoiceV2(byAddr).getApiObject().getRHash().toByteArray());
        try (LndClients ro = new LndClients(alice, alice.readonlyMacaroonPath());
             LndClients im = new LndClients(alice, alice.invoiceMacaroonPath())) {
            assertLndError(fails(() -> ro.invoices.lookupInvoiceV2(msg)), Status.Code.UNKNOWN, "permission denied");
            assertEquals(InvoiceState.OPEN, im.invoices.lookupInvoiceV2(msg).getApiObject().getState());
            assertArrayEquals(hash, ro.lnd.lookupInvoice(new org.lightningj.lnd.wrapper.message.PaymentHash(
                    LightningApi.PaymentHash.newBuilder().setRHash(ByteString.copyFrom(hash)).build())).getRHash());
        }
    }

    @Test
    void holdInvoiceStateMachineErrors() throws Exception {
        byte[] preimage = random32();
        byte[] hash = sha256(preimage);
        InvoicesOuterClass.AddHoldInvoiceResp r = addHold(a, hash, 100, 0);
        assertTrue(r.getPaymentRequest().startsWith("lnbcrt1u1"), r.getPaymentRequest());
        LightningApi.Invoice open = lookup(a, hash);
        assertEquals(InvoiceState.OPEN, open.getState());
        assertTrue(open.getRPreimage().isEmpty(), "a hold invoice has no preimage until settled");

        assertLndError(fails(() -> settle(a, preimage)), Status.Code.UNKNOWN, "invoice still open");
        assertLndError(fails(() -> settle(a, random32())), Status.Code.UNKNOWN, "unable to locate invoice");
        assertLndError(fails(() -> cancel(a, random32())), Status.Code.UNKNOWN, "unable to locate invoice");
        assertLndError(fails(() -> settle(a, new byte[31])), Status.Code.UNKNOWN, "invalid preimage length of 31, want 32");

        cancel(a, hash);
        assertEquals(InvoiceState.CANCELED, lookup(a, hash).getState());
        cancel(a, hash); // idempotent, as in lnd
        assertLndError(fails(() -> settle(a, preimage)), Status.Code.UNKNOWN, "invoice already canceled");
    }

    @Test
    void openInvoicesExpireWithTheNetworkClock() throws Exception {
        LightningApi.AddInvoiceResponse r = addInvoice(a, LightningApi.Invoice.newBuilder().setValue(5).setExpiry(60));
        byte[] hold = random32();
        addHold(a, hold, 5, 120);
        Collector<Invoice> sub = subscribe(a, r.getRHash().toByteArray());
        assertEquals(InvoiceState.OPEN, nextInvoice(sub).getState());

        net.clock().advance(Duration.ofSeconds(30));
        assertEquals(InvoiceState.OPEN, lookup(a, r.getRHash().toByteArray()).getState());
        sub.assertQuiet(200);

        net.clock().advance(Duration.ofSeconds(31));
        assertEquals(InvoiceState.CANCELED, lookup(a, r.getRHash().toByteArray()).getState());
        assertEquals(InvoiceState.CANCELED, nextInvoice(sub).getState());
        sub.awaitCompleted();
        assertEquals(InvoiceState.OPEN, lookup(a, hold).getState());

        net.clock().advance(Duration.ofSeconds(60));
        assertEquals(InvoiceState.CANCELED, lookup(a, hold).getState());
    }

    @Test
    void subscribeSingleInvoiceStreamsCurrentStateThenChangesThenEnds() throws Exception {
        byte[] hash = random32();
        Collector<Invoice> early = subscribe(a, hash); // before the invoice exists: nothing yet
        early.assertQuiet(200);
        addHold(a, hash, 7, 0);
        assertEquals(InvoiceState.OPEN, nextInvoice(early).getState());
        Collector<Invoice> late = subscribe(a, hash);
        assertEquals(InvoiceState.OPEN, nextInvoice(late).getState());
        cancel(a, hash);
        assertEquals(InvoiceState.CANCELED, nextInvoice(early).getState());
        early.awaitCompleted();
        assertEquals(InvoiceState.CANCELED, nextInvoice(late).getState());
        late.awaitCompleted();
        Collector<Invoice> after = subscribe(a, hash); // a final invoice: one message, then the end
        assertEquals(InvoiceState.CANCELED, nextInvoice(after).getState());
        after.awaitCompleted();
        Status s = subscribe(a, new byte[3]).awaitError();
        assertLndError(s, Status.Code.UNKNOWN, "invalid hash length of 3, want 32");
    }

    @Test
    void subscribeInvoicesSeesAddsAndSettles() throws Exception {
        LightningApi.AddInvoiceResponse r0 = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(2));
        LightningApi.AddInvoiceResponse r1 = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(3));
        Collector<Invoice> all = new Collector<>();
        b.lndAsync.subscribeInvoices(r0.getAddIndex(), 0L, all);
        // the backlog (adds after add_index) arrives first, so the subscription is now registered
        LightningApi.Invoice e1 = nextInvoice(all);
        assertEquals(r1.getAddIndex(), e1.getAddIndex());
        assertEquals(InvoiceState.OPEN, e1.getState());
        LightningApi.AddInvoiceResponse r2 = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(4));
        LightningApi.Invoice e2 = nextInvoice(all);
        assertEquals(r2.getAddIndex(), e2.getAddIndex());
        LightningApi.Payment p = finalUpdate(pay(a, payReq(r2.getPaymentRequest())));
        assertEquals(PaymentStatus.SUCCEEDED, p.getStatus());
        LightningApi.Invoice settled = nextInvoice(all);
        assertEquals(InvoiceState.SETTLED, settled.getState());
        assertEquals(r2.getAddIndex(), settled.getAddIndex());
        assertEquals(1, settled.getSettleIndex());
        assertTrue(settled.getSettled());
        assertFalse(e1.getSettled());
        all.assertQuiet(200);
        // a late subscriber asking for the backlog after add_index 2 and settle_index 0
        Collector<Invoice> backlog = new Collector<>();
        b.lndAsync.subscribeInvoices(r1.getAddIndex(), 0L, backlog);
        LightningApi.Invoice late = nextInvoice(backlog);
        assertEquals(r2.getAddIndex(), late.getAddIndex());
        assertEquals(InvoiceState.SETTLED, late.getState(), "the backlog carries the current state");
        backlog.assertQuiet(200);
    }
}
