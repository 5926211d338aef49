package org.fleetmesh.settlement.lightning.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.lightningj.lnd.invoices.proto.InvoicesOuterClass;
import org.lightningj.lnd.proto.LightningApi;
import org.lightningj.lnd.router.proto.RouterOuterClass;
import org.lightningj.lnd.wrapper.StatusException;
import org.lightningj.lnd.wrapper.invoices.message.AddHoldInvoiceRequest;
import org.lightningj.lnd.wrapper.invoices.message.CancelInvoiceMsg;
import org.lightningj.lnd.wrapper.invoices.message.SettleInvoiceMsg;
import org.lightningj.lnd.wrapper.invoices.message.SubscribeSingleInvoiceRequest;
import org.lightningj.lnd.wrapper.message.Invoice;
import org.lightningj.lnd.wrapper.message.Payment;
import org.lightningj.lnd.wrapper.message.PaymentHash;
import org.lightningj.lnd.wrapper.router.message.SendPaymentRequest;
import org.lightningj.lnd.wrapper.router.message.TrackPaymentRequest;

/** A network with alice and bob and admin LightningJ clients for both; helpers for the RPCs. */
abstract class SimulatedNetworkFixture {
    static final SecureRandom RANDOM = new SecureRandom();
    @TempDir
    Path dir;
    SimulatedLightningNetwork net;
    SimulatedLnd alice;
    SimulatedLnd bob;
    LndClients a;
    LndClients b;

    @BeforeEach
    void startNetwork() throws Exception {
        net = new SimulatedLightningNetwork(dir);
        alice = net.startNode("alice");
        bob = net.startNode("bob");
        a = LndClients.admin(alice);
        b = LndClients.admin(bob);
    }

    @AfterEach
    void stopNetwork() throws Exception {
        a.close();
        b.close();
        net.close();
    }

    static Status fails(Executable call) {
        StatusException e = assertThrows(StatusException.class, call);
        return e.getStatus();
    }

    static void assertLndError(Status s, Status.Code code, String description) {
        assertEquals(code, s.getCode(), () -> "status " + s);
        assertEquals(description, s.getDescription());
    }

    static byte[] random32() {
        byte[] x = new byte[32];
        RANDOM.nextBytes(x);
        return x;
    }

    static byte[] sha256(byte[] x) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(x);
    }

    static LightningApi.AddInvoiceResponse addInvoice(LndClients c, LightningApi.Invoice.Builder inv) throws Exception {
        return c.lnd.addInvoice(new Invoice(inv.build())).getApiObject();
    }

    static InvoicesOuterClass.AddHoldInvoiceResp addHold(LndClients c, byte[] hash, long valueSat, long expiry)
            throws Exception {
        return c.invoices.addHoldInvoice(new AddHoldInvoiceRequest(InvoicesOuterClass.AddHoldInvoiceRequest.newBuilder()
                .setHash(ByteString.copyFrom(hash)).setValue(valueSat).setMemo("hold").setExpiry(expiry).build()))
                .getApiObject();
    }

    static void settle(LndClients c, byte[] preimage) throws Exception {
        c.invoices.settleInvoice(new SettleInvoiceMsg(InvoicesOuterClass.SettleInvoiceMsg.newBuilder()
                .setPreimage(ByteString.copyFrom(preimage)).build()));
    }

    static void cancel(LndClients c, byte[] hash) throws Exception {
        c.invoices.cancelInvoice(new CancelInvoiceMsg(InvoicesOuterClass.CancelInvoiceMsg.newBuilder()
                .setPaymentHash(ByteString.copyFrom(hash)).build()));
    }

    static LightningApi.Invoice lookup(LndClients c, byte[] hash) throws Exception {
        return c.lnd.lookupInvoice(new PaymentHash(LightningApi.PaymentHash.newBuilder()
                .setRHash(ByteString.copyFrom(hash)).build())).getApiObject();
    }

    static Collector<Invoice> subscribe(LndClients c, byte[] hash) throws Exception {
        Collector<Invoice> col = new Collector<>();
        c.invoicesAsync.subscribeSingleInvoice(new SubscribeSingleInvoiceRequest(
                InvoicesOuterClass.SubscribeSingleInvoiceRequest.newBuilder().setRHash(ByteString.copyFrom(hash)).build()),
                col);
        return col;
    }

    static RouterOuterClass.SendPaymentRequest.Builder payReq(String paymentRequest) {
        return RouterOuterClass.SendPaymentRequest.newBuilder().setPaymentRequest(paymentRequest)
                .setTimeoutSeconds(30).setFeeLimitSat(10);
    }

    static Collector<Payment> pay(LndClients c, RouterOuterClass.SendPaymentRequest.Builder req) throws Exception {
        Collector<Payment> col = new Collector<>();
        c.routerAsync.sendPaymentV2(new SendPaymentRequest(req.build()), col);
        return col;
    }

    static Collector<Payment> track(LndClients c, byte[] hash) throws Exception {
        Collector<Payment> col = new Collector<>();
        c.routerAsync.trackPaymentV2(new TrackPaymentRequest(RouterOuterClass.TrackPaymentRequest.newBuilder()
                .setPaymentHash(ByteString.copyFrom(hash)).build()), col);
        return col;
    }

    /** The next payment update, as the proto. */
    static LightningApi.Payment next(Collector<Payment> col) throws Exception {
        return col.next().getApiObject();
    }

    static LightningApi.Invoice nextInvoice(Collector<Invoice> col) throws Exception {
        return col.next().getApiObject();
    }

    /** Reads updates until a final one; asserts everything before it was IN_FLIGHT and that the stream ends. */
    static LightningApi.Payment finalUpdate(Collector<Payment> col) throws Exception {
        while (true) {
            LightningApi.Payment p = next(col);
            if (p.getStatus() != LightningApi.Payment.PaymentStatus.IN_FLIGHT) {
                col.awaitCompleted();
                return p;
            }
        }
    }
}
