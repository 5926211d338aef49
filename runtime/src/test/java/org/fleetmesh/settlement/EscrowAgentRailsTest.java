package org.fleetmesh.settlement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.fleetmesh.spi.settlement.Capability;
import org.fleetmesh.spi.settlement.DecodedRequest;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.InvoiceState;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementRail;
import org.junit.jupiter.api.Test;

/** Escrows on several rails: each is resumed by the agent of the rail it was sealed on, never on another. */
public class EscrowAgentRailsTest {
    static final String PEER = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    static final String CASHU = "cashu:http://mint";

    /** A rail that only records what it is asked to do (for other packages' tests). */
    public static SettlementRail rail(String id) {
        return new RecordingRail(id);
    }

    /** A rail that records what it was asked to do, as "call hash". */
    static final class RecordingRail implements SettlementRail {
        final String id;
        final List<String> calls = new CopyOnWriteArrayList<>();

        RecordingRail(String id) {
            this.id = id;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public Set<Capability> capabilities() {
            return Set.of(Capability.HOLD_INVOICE);
        }

        @Override
        public Invoice invoice(Preimage preimage, long amountMsat, String memo, Duration expiry) {
            throw new SettlementException(SettlementException.Reason.UNSUPPORTED, "hold invoices only");
        }

        @Override
        public Invoice holdInvoice(PaymentHash hash, long amountMsat, String memo, Duration expiry) {
            calls.add("holdInvoice " + hash.hex());
            return new Invoice(id, id + "-invoice-" + hash.hex(), hash, amountMsat, Instant.now().plus(expiry));
        }

        @Override
        public void settle(Preimage preimage) {
            calls.add("settle " + preimage.hash().hex());
        }

        @Override
        public void cancel(PaymentHash hash) {
            calls.add("cancel " + hash.hex());
        }

        @Override
        public void watch(PaymentHash hash, Consumer<InvoiceState> listener) {
            calls.add("watch " + hash.hex());
        }

        @Override
        public PaymentResult pay(String paymentRequest, long maxFeeMsat) {
            throw new SettlementException(SettlementException.Reason.UNSUPPORTED, "not a payer");
        }

        @Override
        public DecodedRequest decode(String paymentRequest) {
            throw new SettlementException(SettlementException.Reason.UNSUPPORTED, "not a payer");
        }
    }

    final MemoryLedgerStore store = new MemoryLedgerStore();
    final EscrowBook book = new EscrowBook(store, Clock.systemUTC());
    final RecordingRail ln = new RecordingRail("ln");
    final RecordingRail cashu = new RecordingRail(CASHU);
    final EscrowAgent lnAgent = new EscrowAgent(book, ln, Duration.ofMinutes(10), e -> { });
    final EscrowAgent cashuAgent = new EscrowAgent(book, cashu, Duration.ofMinutes(10), e -> { });

    @Test
    void anAgentOpensTheEscrowOnItsOwnRailAndTheBookKeepsThatRail() {
        PaymentHash h = Preimage.random().hash();
        cashuAgent.open(h, PEER, 5_000, "job");
        assertEquals(CASHU, book.escrow(h).rail());
        assertEquals(CASHU, cashuAgent.railId());
        assertEquals(List.of("holdInvoice " + h.hex(), "watch " + h.hex()), cashu.calls);
        assertTrue(ln.calls.isEmpty());
    }

    @Test
    void anAgentResumesOnlyTheEscrowsOfItsRail() {
        PaymentHash onLn = sealed("ln");
        PaymentHash onCashu = sealed(CASHU);
        List<EscrowAgent.Resumed> done = lnAgent.resume(h -> Optional.empty());
        assertEquals(1, done.size(), done.toString());
        assertEquals(onLn, done.get(0).hash());
        assertEquals(EscrowState.SEALED, book.escrow(onCashu).state(), "the other rail's escrow is not touched");
        assertTrue(cashu.calls.isEmpty());
    }

    @Test
    void resumeAllDrivesEachEscrowOnItsOwnRail() {
        PaymentHash onLn = sealed("ln");
        PaymentHash onCashu = sealed(CASHU);
        Preimage k = Preimage.random();
        book.seal(k.hash(), PEER, CASHU, 3_000);
        book.invoiced(k.hash());
        book.effectDone(k.hash());
        book.paid(k.hash());
        book.keyReleased(k.hash(), 0); // recorded, then the process died before the rail settled
        List<EscrowAgent.Resumed> done = EscrowAgent.resumeAll(book, Map.of("ln", lnAgent, CASHU, cashuAgent),
                h -> h.equals(k.hash()) ? Optional.of(k) : Optional.empty());
        assertEquals(3, done.size(), done.toString());
        assertTrue(done.stream().allMatch(r -> r.error().isEmpty()), done.toString());
        assertEquals(List.of("holdInvoice " + onLn.hex(), "watch " + onLn.hex()), ln.calls);
        assertEquals(Set.of("holdInvoice " + onCashu.hex(), "watch " + onCashu.hex(), "settle " + k.hash().hex()),
                Set.copyOf(cashu.calls));
        assertTrue(book.escrow(k.hash()).effectDone());
    }

    @Test
    void anEscrowWhoseRailIsNotConfiguredIsReportedWithAnErrorAndLeftAsItIs() {
        PaymentHash gone = sealed("cashu:http://gone");
        PaymentHash onLn = sealed("ln");
        List<EscrowAgent.Resumed> done = EscrowAgent.resumeAll(book, Map.of("ln", lnAgent), h -> Optional.empty());
        assertEquals(2, done.size(), done.toString());
        EscrowAgent.Resumed r = done.stream().filter(x -> x.hash().equals(gone)).findFirst().orElseThrow();
        assertEquals("invoice", r.action());
        assertEquals(Optional.of("its rail \"cashu:http://gone\" is not configured on this node; the escrow waits for"
                + " it"), r.error());
        assertEquals(EscrowState.SEALED, book.escrow(gone).state(), "nothing recorded for it");
        assertEquals(List.of("holdInvoice " + onLn.hex(), "watch " + onLn.hex()), ln.calls, "not driven on ln");
    }

    @Test
    void aPaidEscrowOfAMissingRailIsAnErroredDecision() {
        PaymentHash h = Preimage.random().hash();
        book.seal(h, PEER, CASHU, 1_000);
        book.invoiced(h);
        book.effectDone(h);
        book.paid(h);
        List<EscrowAgent.Resumed> done = EscrowAgent.resumeAll(book, Map.of("ln", lnAgent), x -> Optional.empty());
        assertEquals(1, done.size());
        assertEquals("decide", done.get(0).action());
        assertFalse(done.get(0).error().isEmpty(), "the caller must not release it on another rail");
        assertTrue(ln.calls.isEmpty());
    }

    private PaymentHash sealed(String rail) {
        PaymentHash h = Preimage.random().hash();
        book.seal(h, PEER, rail, 2_000);
        return h;
    }
}
