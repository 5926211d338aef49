package org.fleetmesh.settlement.lightning.sim;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.settlement.EscrowAgent;
import org.fleetmesh.settlement.EscrowBook;
import org.fleetmesh.settlement.MemoryLedgerStore;
import org.fleetmesh.settlement.lightning.lnd.LndConnection;
import org.fleetmesh.settlement.lightning.lnd.LndRail;
import org.fleetmesh.spi.settlement.Accounts;
import org.fleetmesh.spi.settlement.Escrow;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.InvoiceState;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementException.Reason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Lightning rail end to end through the settlement SPI: {@link LndRail} (LightningJ over TLS
 * with macaroons) against two SIMULATED LND nodes, the seller's escrow driven by
 * {@link EscrowAgent} over a ledger.
 */
class LndRailEndToEndTest {
    static final String BUYER_DID = "did:key:z6MkbuyerExample";
    static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;
    SimulatedLightningNetwork net;
    SimulatedLnd sellerNode, buyerNode;
    LndRail seller, buyer;
    MemoryLedgerStore ledger;
    EscrowBook book;
    BlockingQueue<Escrow> changes;
    EscrowAgent agent;

    Clock clockOf(SimulatedLightningNetwork n) {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return n.clock().now();
            }
        };
    }

    LndRail rail(SimulatedLnd node, Path macaroon) {
        return new LndRail(LndConnection.open(node.host(), node.port(), node.tlsCertPath(), macaroon, Duration.ZERO),
                new LndRail.Options(Duration.ofSeconds(10), Duration.ofSeconds(30), 80, Optional.empty(), Duration.ofMillis(200)),
                clockOf(net));
    }

    @BeforeEach
    void start() {
        net = new SimulatedLightningNetwork(dir.resolve("net"));
        sellerNode = net.startNode("seller");
        buyerNode = net.startNode("buyer");
        seller = rail(sellerNode, sellerNode.invoiceMacaroonPath()); // least privilege: invoices only
        buyer = rail(buyerNode, buyerNode.adminMacaroonPath());
        ledger = new MemoryLedgerStore();
        book = new EscrowBook(ledger, clockOf(net));
        changes = new LinkedBlockingQueue<>();
        agent = new EscrowAgent(book, seller, Duration.ofMinutes(10), changes::add);
    }

    @AfterEach
    void stop() {
        seller.close();
        buyer.close();
        net.close();
    }

    Escrow nextChange() throws InterruptedException {
        Escrow e = changes.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(e, "no escrow change reported within " + WAIT);
        return e;
    }

    CompletableFuture<PaymentResult> payAsync(String request) {
        return CompletableFuture.supplyAsync(() -> buyer.pay(request, 1_000));
    }

    @Test
    void preimageInvoicePaidThePayerLearnsThePreimage() throws Exception {
        Preimage k = Preimage.random();
        Invoice inv = seller.invoice(k, 42_000, "compute job 1", Duration.ofMinutes(5));
        assertEquals(k.hash(), inv.paymentHash());
        assertEquals(42_000, buyer.decode(inv.paymentRequest()).amountMsat().getAsLong());
        assertEquals(sellerNode.identityPubkey(), buyer.decode(inv.paymentRequest()).payee());
        BlockingQueue<InvoiceState> states = new LinkedBlockingQueue<>();
        seller.watch(k.hash(), states::add);
        assertEquals(InvoiceState.OPEN, states.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
        PaymentResult r = buyer.pay(inv.paymentRequest(), 1_000);
        assertTrue(r.succeeded(), r.toString());
        assertEquals(k, r.preimage().orElseThrow());
        assertEquals(InvoiceState.SETTLED, states.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
        // paying it again is not a second payment: the rail follows the first one and reports it
        PaymentResult again = buyer.pay(inv.paymentRequest(), 1_000);
        assertTrue(again.succeeded(), again.toString());
        assertEquals(k, again.preimage().orElseThrow());
        assertEquals(r.preimage(), buyer.track(k.hash()).preimage());
    }

    @Test
    void holdInvoiceAcceptedThenSettledWithTheKey() throws Exception {
        Preimage k = Preimage.random();
        Invoice inv = agent.open(k.hash(), BUYER_DID, 250_000, "escrow");
        assertEquals(EscrowState.INVOICED, book.escrow(k.hash()).state());
        assertTrue(book.escrow(k.hash()).effectDone(), "the invoice was issued");
        assertEquals(250_000, ledger.balance(Accounts.receivable(BUYER_DID)));
        CompletableFuture<PaymentResult> paying = payAsync(inv.paymentRequest());
        Escrow paid = nextChange();
        assertEquals(EscrowState.PAID, paid.state(), "ACCEPTED on the rail is PAID in the ledger");
        assertFalse(paying.isDone(), "the payer waits while the seller holds the payment");
        assertEquals(250_000, ledger.balance(Accounts.locked(seller.id())));
        agent.release(k, 0);
        PaymentResult r = paying.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(r.succeeded(), r.toString());
        assertEquals(k, r.preimage().orElseThrow(), "releasing the key is what pays the seller");
        Escrow done = book.escrow(k.hash());
        assertEquals(EscrowState.KEY_RELEASED, done.state());
        assertTrue(done.effectDone());
        assertEquals(0, ledger.balance(Accounts.escrow(k.hash())));
        assertEquals(0, ledger.balance(Accounts.locked(seller.id())));
        assertEquals(-250_000, ledger.balance(Accounts.INCOME), "income is a credit balance");
        assertEquals(250_000, ledger.balance(Accounts.funds(seller.id())));
    }

    @Test
    void holdInvoiceCanceledIsRefundedAndThePayerFails() throws Exception {
        Preimage k = Preimage.random();
        Invoice inv = agent.open(k.hash(), BUYER_DID, 90_000, "escrow");
        CompletableFuture<PaymentResult> paying = payAsync(inv.paymentRequest());
        assertEquals(EscrowState.PAID, nextChange().state());
        agent.refund(k.hash());
        PaymentResult r = paying.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(PaymentResult.Status.FAILED, r.status(), r.toString());
        assertTrue(r.preimage().isEmpty(), "the payer never learns k");
        assertEquals(EscrowState.REFUNDED, book.escrow(k.hash()).state());
        assertEquals(0, ledger.balance(Accounts.locked(seller.id())));
        assertEquals(0, ledger.balance(Accounts.receivable(BUYER_DID)));
        assertEquals(0, ledger.balance(Accounts.INCOME));
        SettlementException late = assertThrows(SettlementException.class, () -> seller.settle(k));
        assertEquals(Reason.ALREADY_CANCELED, late.reason(), late.getMessage());
    }

    @Test
    void anUnpaidHoldInvoiceExpires() throws Exception {
        Preimage k = Preimage.random();
        EscrowAgent shortLived = new EscrowAgent(book, seller, Duration.ofSeconds(60), changes::add);
        Invoice inv = shortLived.open(k.hash(), BUYER_DID, 10_000, "short");
        net.clock().advance(Duration.ofSeconds(61));
        Escrow e = nextChange();
        assertEquals(EscrowState.EXPIRED, e.state(), "LND cancels it at expiry; nothing was paid: EXPIRED");
        assertEquals(0, ledger.balance(Accounts.receivable(BUYER_DID)));
        SettlementException ex = assertThrows(SettlementException.class, () -> buyer.pay(inv.paymentRequest(), 1_000));
        assertEquals(Reason.EXPIRED, ex.reason());
    }

    @Test
    void settlingWithTheWrongPreimageOrTooEarlyIsRefusedAndChangesNothing() throws Exception {
        Preimage k = Preimage.random();
        Invoice inv = agent.open(k.hash(), BUYER_DID, 5_000, "escrow");
        SettlementException early = assertThrows(SettlementException.class, () -> seller.settle(k));
        assertEquals(Reason.NOT_ACCEPTED, early.reason(), early.getMessage());
        SettlementException wrong = assertThrows(SettlementException.class, () -> seller.settle(Preimage.random()));
        assertEquals(Reason.UNKNOWN_PAYMENT_HASH, wrong.reason(), wrong.getMessage());
        assertEquals(EscrowState.INVOICED, book.escrow(k.hash()).state());
        SettlementException dup = assertThrows(SettlementException.class,
                () -> seller.holdInvoice(k.hash(), 5_000, "again", Duration.ofMinutes(1)));
        assertEquals(Reason.DUPLICATE_PAYMENT_HASH, dup.reason());
        // still payable and settleable afterwards
        CompletableFuture<PaymentResult> paying = payAsync(inv.paymentRequest());
        assertEquals(EscrowState.PAID, nextChange().state());
        agent.release(k, 0);
        assertEquals(k, paying.get(WAIT.toSeconds(), TimeUnit.SECONDS).preimage().orElseThrow());
    }

    @Test
    void wrongOrInsufficientMacaroonIsAClearErrorAndTheLedgerIsUnchanged() throws Exception {
        try (LndRail readonly = rail(sellerNode, sellerNode.readonlyMacaroonPath())) {
            assertTrue(readonly.info().syncedToChain(), "readonly may call GetInfo");
            EscrowAgent a = new EscrowAgent(book, readonly, Duration.ofMinutes(1), changes::add);
            PaymentHash h = Preimage.random().hash();
            SettlementException ex = assertThrows(SettlementException.class, () -> a.open(h, BUYER_DID, 1_000, "x"));
            assertEquals(Reason.RAIL_UNAVAILABLE, ex.reason());
            assertTrue(ex.getMessage().contains("permission denied"), ex.getMessage());
            assertEquals(EscrowState.INVOICED, book.escrow(h).state());
            assertFalse(book.escrow(h).effectDone(), "the ledger says: invoice not issued yet");
        }
        try (LndRail foreign = rail(sellerNode, buyerNode.adminMacaroonPath())) {
            SettlementException ex = assertThrows(SettlementException.class, foreign::info);
            assertEquals(Reason.RAIL_UNAVAILABLE, ex.reason());
            assertTrue(ex.getMessage().contains("verification failed"), ex.getMessage());
        }
        Path garbage = Files.writeString(dir.resolve("garbage.macaroon"), "not a macaroon");
        SettlementException bad = assertThrows(SettlementException.class, () -> rail(sellerNode, garbage));
        assertEquals(Reason.RAIL_UNAVAILABLE, bad.reason());
    }

    @Test
    void lndUnreachableLeavesTheLedgerConsistentAndResumeFinishesTheJob() throws Exception {
        Preimage k = Preimage.random();
        sellerNode.stop();
        SettlementException ex = assertThrows(SettlementException.class, () -> agent.open(k.hash(), BUYER_DID, 7_000, "x"));
        assertEquals(Reason.RAIL_UNAVAILABLE, ex.reason(), ex.getMessage());
        assertEquals(EscrowState.INVOICED, book.escrow(k.hash()).state());
        assertFalse(book.escrow(k.hash()).effectDone());
        assertEquals(7_000, ledger.balance(Accounts.receivable(BUYER_DID)), "the step is recorded, its effect is pending");
        // LND comes back (on a new port after a restart: a new rail, as after a node restart)
        sellerNode.start();
        seller.close();
        seller = rail(sellerNode, sellerNode.invoiceMacaroonPath());
        EscrowAgent restarted = new EscrowAgent(book, seller, Duration.ofMinutes(10), changes::add);
        List<EscrowAgent.Resumed> done = restarted.resume(h -> Optional.empty());
        assertEquals(1, done.size(), done.toString());
        assertEquals("create_invoice", done.get(0).action());
        assertTrue(done.get(0).error().isEmpty(), done.toString());
        assertTrue(book.escrow(k.hash()).effectDone());
        List<EscrowAgent.Resumed> again = restarted.resume(h -> Optional.empty());
        assertEquals(List.of("watch"), again.stream().map(EscrowAgent.Resumed::action).toList(),
                "issued: only watching is left (watches do not survive a restart)");
    }

    @Test
    void aCrashBetweenRecordingTheReleaseAndSettlingIsFinishedOnRestart() throws Exception {
        Preimage k = Preimage.random();
        Invoice inv = agent.open(k.hash(), BUYER_DID, 33_000, "escrow");
        CompletableFuture<PaymentResult> paying = payAsync(inv.paymentRequest());
        assertEquals(EscrowState.PAID, nextChange().state());
        book.keyReleased(k.hash(), 0); // recorded ... and the process dies before rail.settle(k)
        assertFalse(book.escrow(k.hash()).effectDone());
        assertFalse(paying.isDone());
        EscrowAgent restarted = new EscrowAgent(book, seller, Duration.ofMinutes(10), changes::add);
        List<EscrowAgent.Resumed> done = restarted.resume(h -> h.equals(k.hash()) ? Optional.of(k) : Optional.empty());
        assertEquals("settle", done.get(0).action());
        assertTrue(done.get(0).error().isEmpty(), done.toString());
        assertEquals(k, paying.get(WAIT.toSeconds(), TimeUnit.SECONDS).preimage().orElseThrow());
        assertTrue(book.escrow(k.hash()).effectDone());
        assertEquals(0, ledger.balance(Accounts.locked(seller.id())));
    }

    @Test
    void paymentsThatCannotBeRoutedFailWithAReason() {
        try (SimulatedLightningNetwork other = new SimulatedLightningNetwork(dir.resolve("other"))) {
            SimulatedLnd stranger = other.startNode("stranger");
            try (LndRail strangerRail = new LndRail(LndConnection.open(stranger.host(), stranger.port(), stranger.tlsCertPath(),
                    stranger.invoiceMacaroonPath(), Duration.ZERO), LndRail.Options.defaults(), clockOf(other))) {
                Invoice inv = strangerRail.invoice(Preimage.random(), 1_000, "unreachable", Duration.ofMinutes(5));
                PaymentResult r = buyer.pay(inv.paymentRequest(), 1_000);
                assertEquals(PaymentResult.Status.FAILED, r.status());
                assertEquals(Reason.NO_ROUTE, r.failure().orElseThrow(), r.toString());
            }
        }
        SettlementException bad = assertThrows(SettlementException.class, () -> buyer.pay("lnbcrt1garbage", 1_000));
        assertEquals(Reason.INVALID_REQUEST, bad.reason());
    }
}
