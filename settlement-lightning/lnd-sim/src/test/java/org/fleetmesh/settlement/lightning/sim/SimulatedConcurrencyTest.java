package org.fleetmesh.settlement.lightning.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.lightningj.lnd.invoices.proto.InvoicesOuterClass;
import org.lightningj.lnd.proto.LightningApi;
import org.lightningj.lnd.proto.LightningApi.Invoice.InvoiceState;
import org.lightningj.lnd.proto.LightningApi.Payment.PaymentStatus;
import org.lightningj.lnd.wrapper.message.Invoice;
import org.lightningj.lnd.wrapper.message.Payment;

/** Many concurrent calls from two payers; every stream stays ordered and every balance adds up. */
class SimulatedConcurrencyTest extends SimulatedNetworkFixture {
    static final int PER_PAYER = 30;

    @Test
    void concurrentPaymentsFromTwoNodesAllSucceedInOrder() throws Exception {
        SimulatedLnd carol = net.startNode("carol");
        try (LndClients c = LndClients.admin(carol)) {
            LightningApi.AddInvoiceResponse r0 = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(1));
            LightningApi.AddInvoiceResponse r1 = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(1));
            Collector<Invoice> all = new Collector<>();
            b.lndAsync.subscribeInvoices(r0.getAddIndex(), 0L, all);
            assertEquals(r1.getAddIndex(), nextInvoice(all).getAddIndex()); // backlog first: registered now
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<byte[]>> results = new ArrayList<>();
                for (int i = 0; i < 2 * PER_PAYER; i++) {
                    LndClients payer = i % 2 == 0 ? a : c;
                    long sat = 100 + i;
                    results.add(pool.submit(() -> {
                        byte[] preimage = random32();
                        String req = addInvoice(b, LightningApi.Invoice.newBuilder().setValue(sat)
                                .setRPreimage(com.google.protobuf.ByteString.copyFrom(preimage))).getPaymentRequest();
                        Collector<Payment> stream = pay(payer, payReq(req));
                        LightningApi.Payment p;
                        int updates = 0;
                        do {
                            p = next(stream);
                            updates++;
                        } while (p.getStatus() == PaymentStatus.IN_FLIGHT);
                        stream.awaitCompleted();
                        assertEquals(PaymentStatus.SUCCEEDED, p.getStatus());
                        assertEquals(HexFormat.of().formatHex(preimage), p.getPaymentPreimage());
                        assertEquals(3, updates, "IN_FLIGHT, IN_FLIGHT with the HTLC, SUCCEEDED");
                        return preimage;
                    }));
                }
                for (Future<byte[]> f : results) {
                    assertEquals(InvoiceState.SETTLED, lookup(b, sha256(f.get())).getState());
                }
            } finally {
                pool.shutdownNow();
            }
            long total = 0;
            for (int i = 0; i < 2 * PER_PAYER; i++) {
                total += (100 + i) * 1000L;
            }
            long inFromAlice = net.channelBalanceMsat(bob, alice) - SimulatedLightningNetwork.DEFAULT_CHANNEL_BALANCE_MSAT;
            long inFromCarol = net.channelBalanceMsat(bob, carol) - SimulatedLightningNetwork.DEFAULT_CHANNEL_BALANCE_MSAT;
            assertEquals(total, inFromAlice + inFromCarol);

            // the SubscribeInvoices stream: every add in add_index order, every settle in settle_index order
            long lastAdd = r1.getAddIndex();
            long lastSettle = 0;
            int adds = 0;
            int settles = 0;
            while (adds < 2 * PER_PAYER || settles < 2 * PER_PAYER) {
                LightningApi.Invoice inv = nextInvoice(all);
                if (inv.getState() == InvoiceState.OPEN) {
                    assertTrue(inv.getAddIndex() > lastAdd);
                    lastAdd = inv.getAddIndex();
                    adds++;
                } else {
                    assertEquals(InvoiceState.SETTLED, inv.getState());
                    assertEquals(lastSettle + 1, inv.getSettleIndex());
                    lastSettle = inv.getSettleIndex();
                    settles++;
                }
            }
            all.assertQuiet(200);
        }
    }

    @Test
    void concurrentHoldInvoicesSettledAndCanceledFromManyThreads() throws Exception {
        int n = 20;
        List<byte[]> preimages = new ArrayList<>();
        List<Collector<Payment>> payers = new ArrayList<>();
        List<Collector<Invoice>> watchers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] preimage = random32();
            preimages.add(preimage);
            InvoicesOuterClass.AddHoldInvoiceResp r = addHold(b, sha256(preimage), 10 + i, 0);
            Collector<Invoice> w = subscribe(b, sha256(preimage));
            assertEquals(InvoiceState.OPEN, nextInvoice(w).getState()); // subscribed before the payment
            watchers.add(w);
            payers.add(pay(a, payReq(r.getPaymentRequest())));
        }
        for (Collector<Invoice> w : watchers) {
            assertEquals(InvoiceState.ACCEPTED, nextInvoice(w).getState());
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] preimage = preimages.get(i);
                boolean settleIt = i % 2 == 0;
                done.add(pool.submit(() -> {
                    if (settleIt) {
                        settle(b, preimage);
                    } else {
                        cancel(b, sha256(preimage));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        for (int i = 0; i < n; i++) {
            LightningApi.Payment p = finalUpdate(payers.get(i));
            LightningApi.Invoice last = nextInvoice(watchers.get(i));
            watchers.get(i).awaitCompleted();
            if (i % 2 == 0) {
                assertEquals(PaymentStatus.SUCCEEDED, p.getStatus());
                assertEquals(HexFormat.of().formatHex(preimages.get(i)), p.getPaymentPreimage());
                assertEquals(InvoiceState.SETTLED, last.getState());
            } else {
                assertEquals(PaymentStatus.FAILED, p.getStatus());
                assertEquals(InvoiceState.CANCELED, last.getState());
            }
        }
    }
}
