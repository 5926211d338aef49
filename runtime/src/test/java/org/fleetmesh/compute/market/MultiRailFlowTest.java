package org.fleetmesh.compute.market;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.Runtimes;
import org.fleetmesh.compute.Sandbox;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.settlement.EscrowAgent;
import org.fleetmesh.settlement.EscrowBook;
import org.fleetmesh.settlement.MemoryLedgerStore;
import org.fleetmesh.spi.compute.JobEntry;
import org.fleetmesh.spi.settlement.DecodedRequest;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.fleetmesh.spi.settlement.Preimage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * compute/1.0 with two rails, "ln" and "cashu:http://mint", both in memory: the worker's offer lists both, takes a
 * request on either and opens the escrow on the request's rail (its agent over that rail); the buyer pays with the rail
 * its request names, and a restart follows each job on the rail it was made with.
 */
class MultiRailFlowTest {
    static final String WORKER = "did:peer:worker";
    static final String BUYER = "did:peer:buyer";
    static final String CASHU = "cashu:http://mint";

    final FakeRail ln = new FakeRail("ln", "lnfake");
    final FakeRail cashu = new FakeRail(CASHU, "cashufake");
    final MemoryLedgerStore ledger = new MemoryLedgerStore();
    final EscrowBook escrows = new EscrowBook(ledger, Clock.systemUTC());
    final MemoryJobBook workerBook = new MemoryJobBook();
    final MemoryJobBook buyerBook = new MemoryJobBook();
    final BlobStore workerBlobs = new BlobStore(1 << 20, 8 << 20, 3_600_000, System::currentTimeMillis);
    final BlobStore buyerBlobs = new BlobStore(1 << 20, 8 << 20, 3_600_000, System::currentTimeMillis);
    final ExecutorService toWorker = Executors.newSingleThreadExecutor();
    final ExecutorService toBuyer = Executors.newSingleThreadExecutor();
    final ExecutorService runner = Executors.newSingleThreadExecutor();
    final ExecutorService payments = Executors.newFixedThreadPool(2);
    final byte[] workerSecret = Schnorr.newSecretKey();
    final PubKey workerKey = new PubKey(Schnorr.publicKey(workerSecret));
    final String buyerKey = new PubKey(Schnorr.publicKey(Schnorr.newSecretKey())).hex();
    final Sandbox sandbox = new Sandbox(Runtimes.get("chicory"), Sandbox.Limits.defaults());
    /** The worker's agents, one per rail, as SettlementRuntime makes them. */
    final Map<String, EscrowAgent> agents = new LinkedHashMap<>();
    volatile Worker worker;
    Buyer buyer;

    Execution execution() {
        return new Execution() {
            @Override
            public String runtime() {
                return "chicory";
            }

            @Override
            public JobResult run(byte[] module, byte[] input, JobSpec spec) throws JobFailure {
                return sandbox.run(module, input, spec);
            }
        };
    }

    /** A worker offering both rails, over {@code agents}; a buyer paying with {@code buyerRails}. */
    void start(boolean withholdKey, List<FakeRail> buyerRails) {
        for (FakeRail r : List.of(ln, cashu)) {
            agents.put(r.id(), new EscrowAgent(escrows, r, Duration.ofMinutes(10), e -> {
                if (e.state() == EscrowState.PAID) {
                    worker.paid(e.paymentHash());
                }
            }));
        }
        Offer offer = new Offer("default", WORKER, List.of("chicory"), 1, 1000, 1_000_000_000L, 64, 1 << 20,
                List.of("ln", CASHU), "");
        worker = worker(offer, withholdKey);
        Map<String, Buyer.Payer> payers = new LinkedHashMap<>();
        for (FakeRail r : buyerRails) {
            payers.put(r.id(), new Buyer.Payer() {
                @Override
                public DecodedRequest decode(String invoice) {
                    return r.decode(invoice);
                }

                @Override
                public PaymentResult pay(String invoice, long maxFeeMsat) {
                    return r.pay(invoice, maxFeeMsat);
                }
            });
        }
        buyer = new Buyer(buyerKey, buyerBook, buyerBlobs, id -> Optional.ofNullable(payers.get(id)),
                Optional.empty(), payments, (peer, type, body) -> {
                    toWorker.execute(() -> toWorker(type, body));
                    return true;
                }, (w, id) -> false, (j, r, c, l, k) -> { }, new Buyer.Settings(1000, 4096, 600, false),
                () -> System.currentTimeMillis() / 1000);
    }

    Worker worker(Offer offer, boolean withholdKey) {
        Worker.Payees payees = rail -> Optional.ofNullable(agents.get(rail)).map(a -> new Worker.Payee() {
            @Override
            public Invoice open(PaymentHash hash, String peerDid, long amountMsat, String memo) {
                return a.open(hash, peerDid, amountMsat, memo);
            }

            @Override
            public void release(Preimage k) {
                a.release(k, 0);
            }
        });
        return new Worker(offer, workerSecret, workerBook, workerBlobs, execution(), runner, payees,
                (peer, type, body) -> {
                    toBuyer.execute(() -> toBuyer(type, body));
                    return true;
                }, e -> { }, (q, p) -> null, new Worker.Settings(4, 4096, false, 0, withholdKey),
                () -> System.currentTimeMillis() / 1000, Math::random);
    }

    private void toBuyer(String type, ObjectNode body) {
        switch (type) {
            case ComputeMessages.FETCH -> buyer.fetch(WORKER, body);
            case ComputeMessages.SEALED -> buyer.sealed(WORKER, body);
            case ComputeMessages.REFUSE -> buyer.refuse(WORKER, body);
            case ComputeMessages.KEY -> buyer.key(WORKER, body);
            default -> throw new IllegalStateException(type);
        }
    }

    private void toWorker(String type, ObjectNode body) {
        switch (type) {
            case ComputeMessages.REQUEST -> worker.request(BUYER, buyerKey, body);
            case ComputeMessages.BLOB -> worker.blob(BUYER, body);
            default -> throw new IllegalStateException(type);
        }
    }

    @AfterEach
    void stop() {
        for (ExecutorService e : List.of(toWorker, toBuyer, runner, payments)) {
            e.shutdownNow();
        }
    }

    JobSpec spec(String input) throws Exception {
        String m = buyerBlobs.put(MarketFlowTest.module("upper.wasm"));
        String i = buyerBlobs.put(input.getBytes(StandardCharsets.UTF_8));
        return new JobSpec(m, i, List.of(), 100_000_000, 32, 0, "0".repeat(64));
    }

    static Request request(JobSpec spec, String rail, String nonceByte) {
        return new Request(spec, 1_000_000, rail, nonceByte.repeat(16), BUYER, Optional.empty());
    }

    JobEntry await(String id, Predicate<JobEntry> done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Optional<JobEntry> e = buyerBook.find(JobEntry.Role.BUYER, id);
            if (e.isPresent() && done.test(e.get())) {
                return e.get();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("job " + id + " did not get there: " + buyerBook.find(JobEntry.Role.BUYER, id));
    }

    static Predicate<JobEntry> ended() {
        return e -> JobState.of(e.state()).isFinal();
    }

    @Test
    void aWorkerOfferingBothRailsTakesARequestOnEitherAndOpensTheEscrowOnThatRail() throws Exception {
        start(false, List.of(ln, cashu));
        Request onLn = request(spec("to ln"), "ln", "a1");
        Request onCashu = request(spec("to cashu"), CASHU, "b2");
        buyer.submit(WORKER, workerKey, onLn, true);
        buyer.submit(WORKER, workerKey, onCashu, true);
        JobEntry a = await(onLn.digest(), ended());
        JobEntry b = await(onCashu.digest(), ended());
        assertEquals("done", a.state(), a.error());
        assertEquals("done", b.state(), b.error());
        PaymentHash ha = PaymentHash.ofHex(a.paymentHash());
        PaymentHash hb = PaymentHash.ofHex(b.paymentHash());
        assertEquals("ln", ledger.escrow(ha).get().rail());
        assertEquals(CASHU, ledger.escrow(hb).get().rail());
        assertEquals(EscrowState.KEY_RELEASED, ledger.escrow(hb).get().state());
        assertTrue(ln.held.containsKey(ha) && !ln.held.containsKey(hb), "the ln job's invoice is on ln only");
        assertTrue(cashu.held.containsKey(hb) && !cashu.held.containsKey(ha), "the cashu job's on cashu only");
        assertEquals(1, ln.pays(ha));
        assertEquals(1, cashu.pays(hb));
        assertEquals(CASHU, b.rail(), "the buyer's record keeps the rail");
        assertEquals(CASHU, workerBook.find(JobEntry.Role.WORKER, onCashu.digest()).get().rail());
        assertTrue(b.invoice().startsWith("cashufake"), b.invoice());
    }

    @Test
    void aBuyerWithOnlyCashuChoosesAWorkerOfferingBothAndPaysWithCashu() throws Exception {
        start(false, List.of(cashu));
        List<String> mine = List.of(CASHU);
        WorkerChoice.Candidate both = new WorkerChoice.Candidate(worker.offer(), 1.0, true);
        WorkerChoice.Choice c = WorkerChoice.cheapest(List.of(both), spec("x"), 1_000_000, mine, 0);
        String rail = WorkerChoice.rail(c.chosen().orElseThrow().offer(), mine).orElseThrow();
        assertEquals(CASHU, rail);
        Request q = request(spec("pay with cashu"), rail, "c3");
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry done = await(q.digest(), ended());
        assertEquals("done", done.state(), done.error());
        PaymentHash h = PaymentHash.ofHex(done.paymentHash());
        assertEquals(1, cashu.pays(h), "paid via cashu");
        assertTrue(ln.pays.isEmpty() && ln.held.isEmpty(), "ln was not used");
        assertEquals(CASHU, ledger.escrow(h).get().rail());
    }

    @Test
    void aRequestOnARailTheOfferDoesNotListIsRefusedRail() throws Exception {
        start(false, List.of(ln, cashu));
        Request q = request(spec("elsewhere"), "cashu:http://other-mint", "d4");
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry end = await(q.digest(), ended());
        assertEquals("refused", end.state());
        assertEquals("rail: this worker takes [ln, cashu:http://mint], not \"cashu:http://other-mint\"", end.error());
        assertTrue(ledger.unfinished().isEmpty() && ln.held.isEmpty() && cashu.held.isEmpty(), "no escrow opened");
    }

    @Test
    void aSealedInvoiceOfAnotherRailThanTheRequestsIsNotPaid() throws Exception {
        start(false, List.of(ln, cashu));
        // the worker answers a cashu request with an ln invoice: the buyer decodes it with the request's rail only
        worker = new Worker(worker.offer(), workerSecret, workerBook, workerBlobs, execution(), runner,
                rail -> Optional.of(new Worker.Payee() {
                    @Override
                    public Invoice open(PaymentHash hash, String peerDid, long amountMsat, String memo) {
                        return agents.get("ln").open(hash, peerDid, amountMsat, memo);
                    }

                    @Override
                    public void release(Preimage k) {
                        agents.get("ln").release(k, 0);
                    }
                }), (peer, type, body) -> {
                    toBuyer.execute(() -> toBuyer(type, body));
                    return true;
                }, e -> { }, (x, p) -> null, new Worker.Settings(4, 4096, false, 0, false),
                () -> System.currentTimeMillis() / 1000, Math::random);
        Request q = request(spec("mixed"), CASHU, "e5");
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry end = await(q.digest(), ended());
        assertEquals("failed", end.state());
        assertTrue(end.error().contains("not a fake invoice of " + CASHU), end.error());
        assertTrue(ln.pays.isEmpty() && cashu.pays.isEmpty(), "nothing paid");
    }

    @Test
    void aWorkerRestartedAfterACashuPaymentReleasesTheKeyOnCashu() throws Exception {
        start(true, List.of(ln, cashu));
        Request q = request(spec("restart"), CASHU, "f6");
        buyer.submit(WORKER, workerKey, q, true);
        await(q.digest(), e -> e.state().equals(JobState.PAYING.word()));
        for (int i = 0; i < 3000 && !workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state().equals("paid");
                i++) {
            Thread.sleep(10);
        }
        assertEquals("paid", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state());
        // restarted with the preferred rail first: the job still settles on the rail it was made with
        worker = worker(worker.offer(), false);
        worker.resume();
        JobEntry done = await(q.digest(), ended());
        assertEquals("done", done.state(), done.error());
        PaymentHash h = PaymentHash.ofHex(done.paymentHash());
        assertEquals(EscrowState.KEY_RELEASED, ledger.escrow(h).get().state());
        assertEquals(org.fleetmesh.spi.settlement.InvoiceState.SETTLED, cashu.held.get(h).state);
        assertTrue(ln.held.isEmpty());
    }

    @Test
    void aPaidJobWhoseRailIsGoneAfterARestartKeepsItsKey() throws Exception {
        start(true, List.of(ln, cashu));
        Request q = request(spec("gone"), CASHU, "a7");
        buyer.submit(WORKER, workerKey, q, true);
        await(q.digest(), e -> e.state().equals(JobState.PAYING.word()));
        for (int i = 0; i < 3000 && !workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state().equals("paid");
                i++) {
            Thread.sleep(10);
        }
        agents.remove(CASHU); // the node restarts without the cashu rail
        worker = worker(worker.offer(), false);
        worker.resume();
        JobEntry w = workerBook.find(JobEntry.Role.WORKER, q.digest()).get();
        assertEquals("paid", w.state(), "waits for its rail");
        PaymentHash h = PaymentHash.ofHex(w.paymentHash());
        assertEquals(EscrowState.PAID, ledger.escrow(h).get().state(), "not released on another rail");
        assertTrue(ln.held.isEmpty());
        assertFalse(buyerBook.find(JobEntry.Role.BUYER, q.digest()).get().state().equals("done"));
    }
}
