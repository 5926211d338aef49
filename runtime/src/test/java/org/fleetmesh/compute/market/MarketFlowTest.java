package org.fleetmesh.compute.market;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.settlement.EscrowAgent;
import org.fleetmesh.settlement.EscrowBook;
import org.fleetmesh.settlement.MemoryLedgerStore;
import org.fleetmesh.spi.compute.JobEntry;
import org.fleetmesh.spi.settlement.Accounts;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Preimage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * compute/1.0 between a worker and a buyer in one JVM: real sandbox (Chicory), real escrow agent and ledger, a hold-
 * invoice rail in memory, messages delivered in order on one thread per side (as a link does).
 */
class MarketFlowTest {
    static final String WORKER = "did:peer:worker";
    static final String BUYER = "did:peer:buyer";
    static final String ZEROS = "0".repeat(64);

    final FakeRail rail = new FakeRail();
    final MemoryLedgerStore ledger = new MemoryLedgerStore();
    final FlakyJobBook workerBook = new FlakyJobBook();
    final FlakyJobBook buyerBook = new FlakyJobBook();
    /** While set, every call of the escrows' ledger fails as its store does when the database is gone. */
    volatile boolean ledgerDown;
    /** The next ledger call (method, arguments) this matches fails once; after it ran, when ledgerCommitsThenFails. */
    volatile java.util.function.BiPredicate<String, Object[]> ledgerFailOnce;
    volatile boolean ledgerCommitsThenFails;
    /** Run after each of the buyer's calls of the rail's pay, before its result is handed back (null: nothing). */
    volatile Runnable afterPay;
    final BlobStore workerBlobs = new BlobStore(1 << 20, 8 << 20, 3_600_000, System::currentTimeMillis);
    final BlobStore buyerBlobs = new BlobStore(1 << 20, 8 << 20, 3_600_000, System::currentTimeMillis);
    final ExecutorService toWorker = Executors.newSingleThreadExecutor();
    final ExecutorService toBuyer = Executors.newSingleThreadExecutor();
    final ExecutorService runner = Executors.newSingleThreadExecutor();
    final ExecutorService payments = Executors.newFixedThreadPool(2);
    final byte[] workerSecret = Schnorr.newSecretKey();
    final byte[] buyerSecret = Schnorr.newSecretKey();
    final PubKey workerKey = new PubKey(Schnorr.publicKey(workerSecret));
    final String buyerKey = new PubKey(Schnorr.publicKey(buyerSecret)).hex();
    final Sandbox sandbox = new Sandbox(Runtimes.get("chicory"), Sandbox.Limits.defaults());
    final List<Event> published = new ArrayList<>();
    final List<JobResult[]> mismatches = new ArrayList<>();
    final List<String> sentToBuyer = new ArrayList<>();
    Worker worker;
    Buyer buyer;
    EscrowAgent agent;
    /**
     * Messages the "network" loses (by type) while it says they were sent, as a link does that dies under them; null:
     * none. Consulted for both directions.
     */
    volatile Predicate<String> lose;
    /** The buyer's clock, epoch seconds. */
    volatile java.util.function.LongSupplier buyerClock = () -> System.currentTimeMillis() / 1000;
    final java.util.concurrent.atomic.AtomicInteger lost = new java.util.concurrent.atomic.AtomicInteger();

    boolean lost(String type) {
        Predicate<String> l = lose;
        if (l != null && l.test(type)) {
            lost.incrementAndGet();
            return true;
        }
        return false;
    }

    /** While set, the worker's invoice opening waits on it (before anything reaches the escrow). */
    volatile java.util.concurrent.CountDownLatch openGate;

    /** A sealed body the "network" rewrites on its way to the buyer (null: untouched). */
    volatile java.util.function.UnaryOperator<ObjectNode> tamper;

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

    /** The step of the worker's rail's amounts (1000: a Cashu mint in sat). */
    long stepMsat = 1;

    void start(long pricePerKfuel, long minPrice, Worker.Settings ws, Buyer.Settings bs, boolean sampleAll) {
        agent = new EscrowAgent(new EscrowBook(flaky(ledger), Clock.systemUTC()), rail, Duration.ofMinutes(10), e -> {
            if (e.state() == EscrowState.PAID) {
                worker.paid(e.paymentHash());
            } else if (e.state() == EscrowState.EXPIRED || e.state() == EscrowState.REFUNDED) {
                worker.ended(e.paymentHash(), e.state() == EscrowState.EXPIRED);
            }
        });
        Offer offer = new Offer("default", WORKER, List.of("chicory"), pricePerKfuel, minPrice, 1_000_000_000L, 64,
                1 << 20, List.of("ln"), "");
        Worker.Payee payee = new Worker.Payee() {
            @Override
            public org.fleetmesh.spi.settlement.Invoice open(PaymentHash hash, String peerDid, long amountMsat,
                    String memo) {
                java.util.concurrent.CountDownLatch gate = openGate;
                if (gate != null) {
                    try {
                        gate.await(); // frozen here as a worker killed while opening the invoice
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("stopped while opening the invoice");
                    }
                }
                return agent.open(hash, peerDid, amountMsat, memo);
            }

            @Override
            public void release(Preimage k) {
                agent.release(k, 0);
            }

            @Override
            public long amountStepMsat() {
                return stepMsat;
            }
        };
        worker = new Worker(offer, workerSecret, workerBook, workerBlobs, execution(), runner, only("ln", payee)::apply,
                (peer, type, body) -> {
                    if (!lost(type)) {
                        toBuyer.execute(() -> toBuyer(type, body));
                    }
                    return true;
                }, published::add, (q, p) -> null, ws, () -> System.currentTimeMillis() / 1000, Math::random);
        Buyer.Payer payer = railPayer();
        buyer = new Buyer(buyerKey, buyerBook, buyerBlobs, only("ln", payer)::apply, Optional.of(execution()), payments,
                (peer, type, body) -> {
                    if (!lost(type)) {
                        toWorker.execute(() -> toWorker(type, body));
                    }
                    return true;
                }, (w, id) -> sampleAll, (job, record, claimed, local, k) -> mismatches.add(
                        new JobResult[] { claimed, local }), bs, () -> buyerClock.getAsLong());
    }

    /** The buyer's payer on the test's rail. */
    Buyer.Payer railPayer() {
        return new Buyer.Payer() {
            @Override
            public org.fleetmesh.spi.settlement.DecodedRequest decode(String invoice) {
                return rail.decode(invoice);
            }

            @Override
            public org.fleetmesh.spi.settlement.PaymentResult pay(String invoice, long maxFeeMsat) {
                org.fleetmesh.spi.settlement.PaymentResult r = rail.pay(invoice, maxFeeMsat);
                Runnable after = afterPay;
                if (after != null) {
                    after.run();
                }
                return r;
            }
        };
    }

    /** {@code store}, failing every call while {@link #ledgerDown} as the PostgreSQL ledger does (STORE_FAILED). */
    org.fleetmesh.spi.settlement.LedgerStore flaky(org.fleetmesh.spi.settlement.LedgerStore store) {
        return (org.fleetmesh.spi.settlement.LedgerStore) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] { org.fleetmesh.spi.settlement.LedgerStore.class },
                (proxy, m, args) -> {
                    java.util.function.BiPredicate<String, Object[]> once = ledgerFailOnce;
                    if (once != null && once.test(m.getName(), args)) {
                        ledgerFailOnce = null;
                        if (ledgerCommitsThenFails) {
                            try {
                                m.invoke(store, args); // committed, then the connection dies before the answer
                            } catch (java.lang.reflect.InvocationTargetException e) {
                                throw e.getCause();
                            }
                        }
                        throw new org.fleetmesh.spi.settlement.LedgerException(
                                org.fleetmesh.spi.settlement.LedgerException.Reason.STORE_FAILED, "ledger " + m.getName()
                                        + " failed: An I/O error occurred (a simulated database outage, once)");
                    }
                    if (ledgerDown) {
                        throw new org.fleetmesh.spi.settlement.LedgerException(
                                org.fleetmesh.spi.settlement.LedgerException.Reason.STORE_FAILED, "ledger " + m.getName()
                                        + " failed: An I/O error occurred (a simulated database outage)");
                    }
                    try {
                        return m.invoke(store, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** A lookup by rail id (as {@link Worker.Payees} or {@link Buyer.Payers}): {@code value} for {@code rail} only. */
    static <T> java.util.function.Function<String, Optional<T>> only(String rail, T value) {
        return r -> r.equals(rail) ? Optional.of(value) : Optional.empty();
    }

    void start(long pricePerKfuel, long minPrice) {
        start(pricePerKfuel, minPrice, new Worker.Settings(4, 4096, false, 0, false),
                new Buyer.Settings(1000, 4096, 600, false), false);
    }

    private void toBuyer(String type, ObjectNode body) {
        synchronized (sentToBuyer) {
            sentToBuyer.add(type);
        }
        switch (type) {
            case ComputeMessages.FETCH -> buyer.fetch(WORKER, body);
            case ComputeMessages.SEALED -> buyer.sealed(WORKER, tamper == null ? body : tamper.apply(body.deepCopy()));
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

    static byte[] module(String name) throws IOException {
        try (InputStream in = MarketFlowTest.class.getResourceAsStream("/wasm/" + name)) {
            return in.readAllBytes();
        }
    }

    JobSpec spec(String module, byte[] input, long fuel) throws Exception {
        String m = buyerBlobs.put(module(module));
        String i = buyerBlobs.put(input);
        return new JobSpec(m, i, List.of(), fuel, 32, 0, ZEROS);
    }

    Request request(JobSpec spec, long maxPrice) {
        return new Request(spec, maxPrice, "ln", java.util.HexFormat.of().formatHex(new byte[16]).replace("00", "ab"),
                BUYER, Optional.empty());
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

    static Predicate<JobEntry> in(JobState s) {
        return e -> e.state().equals(s.word());
    }

    @Test
    void paidJobEndsDoneWithTheResultOfALocalRunAndTheWorkerEarnsThePriceOnce() throws Exception {
        start(1, 1000);
        byte[] input = "hello market".getBytes(StandardCharsets.UTF_8);
        JobSpec spec = spec("upper.wasm", input, 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        JobResult got = ResultJson.read(done.result());
        JobResult local = sandbox.run(module("upper.wasm"), input, spec);
        assertArrayEquals("HELLO MARKET".getBytes(StandardCharsets.UTF_8), got.stdout());
        assertEquals(ResultJson.write(local), ResultJson.write(got));
        long price = Offer.price(1, 1000, local.fuelUsed());
        assertEquals(price, done.priceMsat());
        PaymentHash h = PaymentHash.ofHex(done.paymentHash());
        assertEquals(1, rail.pays(h), "paid once");
        assertEquals(-price, ledger.balance(Accounts.INCOME), "income is credited the price");
        assertEquals(EscrowState.KEY_RELEASED, ledger.escrow(h).get().state());
        assertTrue(Preimage.ofHex(done.key()).unlocks(h));
        // the final record carries the output digest and is signed by the worker
        awaitPublished();
        Event fin = published.get(0);
        JobRecord r = JobRecord.parse(fin);
        assertEquals(Optional.of(got.outputDigest()), r.output());
        assertEquals(q.digest(), r.request());
        assertEquals(workerKey, fin.pubkey());
        assertEquals("done", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state());
    }

    private void awaitPublished() throws InterruptedException {
        for (int i = 0; i < 3000 && published.isEmpty(); i++) {
            Thread.sleep(10);
        }
        assertFalse(published.isEmpty(), "the final record was published");
    }

    /**
     * On a rail that carries whole sat only, the price is rounded up to a whole sat before it is signed and invoiced.
     * Before, a price such as 29,008 msat was refused by the Cashu rail after the job ran (the job failed, its escrow
     * was left half open); found by an outside audit of the money paths.
     */
    @Test
    void onARailOfWholeSatThePriceIsRoundedUpToAWholeSat() throws Exception {
        stepMsat = 1000;
        start(7, 1000);
        byte[] input = new byte[10_000];
        java.util.Arrays.fill(input, (byte) 'b');
        JobSpec spec = spec("sha256sum.wasm", input, 1_000_000_000);
        Request q = request(spec, 100_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        long exact = Offer.price(7, 1000, ResultJson.read(done.result()).fuelUsed());
        assertTrue(exact % 1000 != 0, "this job's exact price is not whole sat: " + exact);
        assertEquals(Worker.roundUp(exact, 1000), done.priceMsat());
        assertEquals(0, done.priceMsat() % 1000);
        assertTrue(done.priceMsat() - exact < 1000);
    }

    @Test
    void roundUpToTheRailsStep() {
        assertEquals(29_000, Worker.roundUp(29_000, 1000));
        assertEquals(30_000, Worker.roundUp(29_008, 1000));
        assertEquals(29_008, Worker.roundUp(29_008, 1));
        assertEquals(Long.MAX_VALUE, Worker.roundUp(Long.MAX_VALUE - 5, 1000));
    }

    @Test
    void workerFetchesTheModuleAndInputInChunksAndChecksThem() throws Exception {
        start(1, 1000);
        byte[] input = new byte[10_000];
        java.util.Arrays.fill(input, (byte) 'a');
        JobSpec spec = spec("sha256sum.wasm", input, 1_000_000_000);
        Request q = request(spec, 10_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertTrue(workerBlobs.has(spec.module()) && workerBlobs.has(spec.input()));
        String stdout = new String(ResultJson.read(done.result()).stdout(), StandardCharsets.UTF_8);
        assertTrue(stdout.startsWith(JobSpec.sha256(input)), stdout);
    }

    @Test
    void freeJobGetsItsKeyWithoutAnInvoice() throws Exception {
        start(0, 0);
        JobSpec spec = spec("upper.wasm", "x".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 0);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertEquals(0, done.priceMsat());
        assertTrue(done.invoice().isEmpty());
        assertTrue(rail.held.isEmpty(), "no invoice was made");
    }

    @Test
    void infiniteLoopEndsFailedWithFuelExhaustedAndNothingIsInvoiced() throws Exception {
        start(1, 1000);
        JobSpec spec = spec("spin.wasm", new byte[0], 5_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry end = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("failed", end.state());
        assertTrue(end.error().startsWith("fuel exhausted"), end.error());
        assertTrue(rail.held.isEmpty());
    }

    @Test
    void aRecordSignedByAnotherKeyIsNotPaid() throws Exception {
        start(1, 1000);
        byte[] other = Schnorr.newSecretKey();
        tamper = body -> {
            try {
                Event rec = new org.fleetmesh.nostr.MessageParser(org.fleetmesh.nostr.MessageParser.Limits.DEFAULT)
                        .parseEvent(body.get("record").toString());
                Event forged = org.fleetmesh.nostr.Events.sign(other, rec.createdAt(), rec.kind(), rec.tags(), "");
                body.set("record", ComputeMessages.JSON.readTree(forged.json()));
                return body;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        JobSpec spec = spec("upper.wasm", "abc".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry end = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("failed", end.state());
        assertTrue(end.error().contains("not by the worker's key"), end.error());
        assertEquals(0, rail.lockedIn.get(), "nothing paid");
    }

    @Test
    void aPriceAboveTheBuyersMaximumIsRefusedBeforeAnyInvoice() throws Exception {
        start(1_000_000, 1000);
        JobSpec spec = spec("upper.wasm", "abc".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 5_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry end = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("refused", end.state());
        assertTrue(end.error().startsWith("price"), end.error());
        assertTrue(rail.held.isEmpty());
    }

    @Test
    void aFullQueueRefusesBusyAndKeepsTheJobsAlreadyTaken() throws Exception {
        start(1, 1000, new Worker.Settings(1, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, false),
                false);
        JobSpec slow = spec("spin.wasm", new byte[0], 1_000_000_000L);
        // the first job waits in the queue (spin until its fuel runs out); the second finds the queue full
        Request q1 = request(slow, 100_000_000);
        Request q2 = new Request(slow, 100_000_000, "ln", "cd".repeat(16), BUYER, Optional.empty());
        buyer.submit(WORKER, workerKey, q1, true);
        await(q1.digest(), e -> true);
        buyer.submit(WORKER, workerKey, q2, true);
        JobEntry second = await(q2.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("refused", second.state());
        assertTrue(second.error().startsWith("busy"), second.error());
        JobEntry first = await(q1.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("failed", first.state(), "the first job ran to its end");
        assertTrue(first.error().startsWith("fuel exhausted"));
    }

    @Test
    void aCheatingWorkerIsCaughtByReexecution() throws Exception {
        start(1, 1000, new Worker.Settings(4, 4096, false, 1.0, false), new Buyer.Settings(1000, 4096, 600, false),
                true);
        JobSpec spec = spec("upper.wasm", "cheat".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry end = await(q.digest(), e -> !e.reexecution().isEmpty());
        assertEquals("done", end.state(), "the lie is consistent: seal, commitment and record agree");
        assertEquals("mismatch", end.reexecution());
        assertEquals(1, mismatches.size());
        assertFalse(mismatches.get(0)[0].outputDigest().equals(mismatches.get(0)[1].outputDigest()));
    }

    @Test
    void aReexecutionCutOffByARestartIsResumed() throws Exception {
        // the buyer's sampler says no while it runs (as if it stopped before the re-execution ended) ...
        start(1, 1000, new Worker.Settings(4, 4096, false, 1.0, false), new Buyer.Settings(1000, 4096, 600, false),
                false);
        JobSpec spec = spec("upper.wasm", "cheat".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertEquals("", done.reexecution());
        // ... and a new buyer over the same book, whose keyed sampler chooses the job, takes it up at resume
        Buyer restarted = new Buyer(buyerKey, buyerBook, buyerBlobs, only("ln", (Buyer.Payer) null)::apply,
                Optional.of(execution()), payments, (peer, type, body) -> true, (w, id) -> true,
                (job, record, claimed, local, k) -> mismatches.add(new JobResult[] { claimed, local }),
                new Buyer.Settings(1000, 4096, 600, false), () -> System.currentTimeMillis() / 1000);
        restarted.resume();
        JobEntry end = await(q.digest(), e -> !e.reexecution().isEmpty());
        assertEquals("mismatch", end.reexecution());
        assertEquals(1, mismatches.size());
        assertEquals(1, restarted.sampled());
        // a verdict once given is not asked for again
        restarted.resume();
        Thread.sleep(200);
        assertEquals(1, restarted.sampled());
    }

    @Test
    void anHonestWorkerMatchesItsReexecution() throws Exception {
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, false),
                true);
        JobSpec spec = spec("upper.wasm", "honest".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry end = await(q.digest(), e -> !e.reexecution().isEmpty());
        assertEquals("match", end.reexecution());
        assertTrue(mismatches.isEmpty());
    }

    @Test
    void aWorkerThatNeverReleasesTheKeyLeavesTheBuyerExpiredAndNothingPaid() throws Exception {
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, true), new Buyer.Settings(1000, 4096, 600, false),
                false);
        JobSpec spec = spec("upper.wasm", "k".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry paying = await(q.digest(), in(JobState.PAYING));
        PaymentHash h = PaymentHash.ofHex(paying.paymentHash());
        // the payment is locked in; the worker sits on k until the invoice runs out
        while (rail.held.get(h).state != org.fleetmesh.spi.settlement.InvoiceState.ACCEPTED) {
            Thread.sleep(10);
        }
        rail.expire(h);
        JobEntry end = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("expired", end.state(), end.error());
        assertTrue(end.key().isEmpty(), "the buyer never learnt k");
        assertEquals(EscrowState.EXPIRED, ledger.escrow(h).get().state());
        assertEquals(0, ledger.balance(Accounts.INCOME), "no income");
        assertEquals("expired", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state());
    }

    @Test
    void aBuyerThatNeverPaysLeavesTheWorkerWithItsKeyAndTheEscrowExpired() throws Exception {
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, true),
                false);
        JobSpec spec = spec("upper.wasm", "np".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry sealed = await(q.digest(), in(JobState.SEALED));
        PaymentHash h = PaymentHash.ofHex(sealed.paymentHash());
        rail.expire(h);
        JobEntry w = workerBook.find(JobEntry.Role.WORKER, q.digest()).get();
        assertEquals("expired", w.state());
        assertFalse(w.key().isEmpty(), "the worker keeps k");
        assertEquals(EscrowState.EXPIRED, ledger.escrow(h).get().state());
        assertTrue(sealed.key().isEmpty());
        assertEquals(0, rail.pays(h));
    }

    /** Killed after the sealed result was saved and before its auto-pay was called: the restart pays it. */
    @Test
    void aSealedAutoPayJobLeftByARestartIsPaidAtResume() throws Exception {
        // a buyer that never pays stands for one killed between saving SEALED and calling pay
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, true),
                false);
        JobSpec spec = spec("upper.wasm", "sealed then killed".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry sealed = await(q.digest(), in(JobState.SEALED));
        assertEquals(0, rail.pays(PaymentHash.ofHex(sealed.paymentHash())));
        Buyer.Payer payer = railPayer();
        Buyer restarted = new Buyer(buyerKey, buyerBook, buyerBlobs, only("ln", payer)::apply, Optional.of(execution()),
                payments, (peer, type, body) -> {
                    toWorker.execute(() -> toWorker(type, body));
                    return true;
                }, (w, id) -> false, (job, record, claimed, local, k) -> { }, new Buyer.Settings(1000, 4096, 600, false),
                () -> buyerClock.getAsLong());
        buyer = restarted; // the worker's answers go to it
        restarted.resume();
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertEquals(1, rail.pays(PaymentHash.ofHex(done.paymentHash())));
    }

    @Test
    void aBuyerRestartedWhilePayingFollowsThePaymentInsteadOfPayingAfresh() throws Exception {
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, false),
                false);
        JobSpec spec = spec("upper.wasm", "restart".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, false);
        JobEntry sealed = await(q.digest(), in(JobState.SEALED));
        // the crash came after PAYING was saved and before the rail was called
        buyerBook.save(sealed.moved(JobState.PAYING.word(), sealed.updatedAt()));
        buyer.resume();
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertEquals(1, rail.pays(PaymentHash.ofHex(done.paymentHash())));
        // a pay for a job that is not sealed is refused
        MarketProtocolException refused = org.junit.jupiter.api.Assertions.assertThrows(
                MarketProtocolException.class, () -> buyer.pay(q.digest()));
        assertTrue(refused.getMessage().contains("only a sealed job"));
    }

    @Test
    void aWorkerServesOnlyTheBlobsTheJobNames() throws Exception {
        start(1, 1000);
        byte[] secret = "not for you".getBytes(StandardCharsets.UTF_8);
        String secretHash = buyerBlobs.put(secret);
        JobSpec spec = spec("upper.wasm", "x".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        JobEntry e = JobEntry.fresh(q.digest(), JobEntry.Role.BUYER, WORKER, q.body().put("worker_key",
                workerKey.hex()).toString(), "requested", 0);
        buyerBook.save(e);
        List<ObjectNode> sent = new ArrayList<>();
        Buyer b = new Buyer(buyerKey, buyerBook, buyerBlobs, r -> Optional.empty(), Optional.empty(), payments,
                (peer, type, body) -> sent.add(body), (w, id) -> false, (j, r, c, l, k) -> { }, new Buyer.Settings(0,
                        4096, 600, false), () -> 0);
        b.fetch(WORKER, ComputeMessages.fetch(q.digest(), List.of(secretHash, spec.input())));
        assertEquals(1, sent.size());
        JsonNode only = sent.get(0);
        assertEquals(spec.input(), only.get("hash").asText());
        assertNotNull(only.get("data"));
    }

    @Test
    void aWorkerRestartedAfterThePaymentLockedInReleasesTheKey() throws Exception {
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, true), new Buyer.Settings(1000, 4096, 600, false),
                false);
        JobSpec spec = spec("upper.wasm", "crash".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        await(q.digest(), in(JobState.PAYING));
        for (int i = 0; i < 3000 && !workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state().equals("paid");
                i++) {
            Thread.sleep(10);
        }
        assertEquals("paid", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state());
        // the worker "restarts": a new Worker over the same book and escrow, the switch off
        Worker restarted = restartedWorker((peer, type, body) -> {
            toBuyer.execute(() -> toBuyerAfterRestart(type, body));
            return true;
        });
        restarted.resume();
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertEquals("done", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state());
        assertEquals(EscrowState.KEY_RELEASED, ledger.escrow(PaymentHash.ofHex(done.paymentHash())).get().state());
        assertEquals(1, rail.pays(PaymentHash.ofHex(done.paymentHash())), "paid once");
    }

    /**
     * A restarted worker with two jobs saved paid, whose rail refuses the first release (LND unreachable, a mint
     * answering 500): the second is released all the same, and the first once the rail answers again (the retry the
     * node runs every 30 s). Before, resume() threw out of its loop at the first failure, and the second job was never
     * released (found by an outside audit of the money paths).
     */
    @Test
    void oneFailingReleaseAtResumeStrandsNoOtherPaidJobAndIsRetried() throws Exception {
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, true), new Buyer.Settings(1000, 4096, 600, false),
                false);
        List<String> ids = new ArrayList<>();
        for (String in : List.of("first", "second")) {
            JobSpec spec = spec("upper.wasm", in.getBytes(StandardCharsets.UTF_8), 100_000_000);
            Request q = new Request(spec, 1_000_000, "ln", in.equals("first") ? "ab".repeat(16) : "cd".repeat(16),
                    BUYER, Optional.empty());
            buyer.submit(WORKER, workerKey, q, true);
            ids.add(q.digest());
        }
        for (String id : ids) {
            for (int i = 0; i < 3000 && !workerBook.find(JobEntry.Role.WORKER, id).map(JobEntry::state).orElse("")
                    .equals("paid"); i++) {
                Thread.sleep(10);
            }
            assertEquals("paid", workerBook.find(JobEntry.Role.WORKER, id).get().state());
        }
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean down = new java.util.concurrent.atomic.AtomicBoolean(true);
        Worker restarted = restartedWorker((peer, type, body) -> true, k -> {
            if (calls.getAndIncrement() == 0 || down.get()) {
                throw new org.fleetmesh.spi.settlement.SettlementException(
                        org.fleetmesh.spi.settlement.SettlementException.Reason.RAIL_UNAVAILABLE,
                        "LND unreachable during SettleInvoice");
            }
            agent.release(k, 0);
        });
        down.set(false); // only the first call fails
        restarted.resume(); // throws nothing
        long done = ids.stream().filter(id -> workerBook.find(JobEntry.Role.WORKER, id).get().state().equals("done"))
                .count();
        assertEquals(1, done, "the job whose release works is released although the other's failed; calls="
                + calls.get());
        assertEquals(0, restarted.retryPaid(3600), "a job paid moments ago is not tried yet");
        assertEquals(1, restarted.retryPaid(0), "the one left paid is tried");
        for (String id : ids) {
            assertEquals("done", workerBook.find(JobEntry.Role.WORKER, id).get().state(), "released by the retry");
        }
    }


    /** A job left paid whose payment the rail has given back (the HTLC timed out) ends expired, not retried for ever. */
    @Test
    void aPaidJobWhosePaymentTheRailGaveBackEndsExpired() throws Exception {
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, true), new Buyer.Settings(1000, 4096, 600, false),
                false);
        JobSpec spec = spec("upper.wasm", "gone".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = new Request(spec, 1_000_000, "ln", "ef".repeat(16), BUYER, Optional.empty());
        buyer.submit(WORKER, workerKey, q, true);
        for (int i = 0; i < 3000 && !workerBook.find(JobEntry.Role.WORKER, q.digest()).map(JobEntry::state).orElse("")
                .equals("paid"); i++) {
            Thread.sleep(10);
        }
        Worker restarted = restartedWorker((peer, type, body) -> true, k -> {
            throw new org.fleetmesh.spi.settlement.SettlementException(
                    org.fleetmesh.spi.settlement.SettlementException.Reason.ALREADY_CANCELED,
                    "the HTLC timed out");
        });
        restarted.resume();
        assertEquals("paid", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state(), "resume leaves it");
        assertEquals(1, restarted.retryPaid(0));
        JobEntry e = workerBook.find(JobEntry.Role.WORKER, q.digest()).get();
        assertEquals("expired", e.state());
        assertTrue(e.error().contains("returned before the key could be released"), e.error());
        assertEquals(0, restarted.retryPaid(0), "not tried again");
    }

    @Test
    void aJobSealedButNotYetInvoicedWhenTheWorkerStoppedEndsFailedAtResumeAndOnTheRepeatedRequest() throws Exception {
        openGate = new java.util.concurrent.CountDownLatch(1); // never opened: the first worker is "killed" there
        start(1, 1000);
        JobSpec spec = spec("upper.wasm", "killed while invoicing".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        awaitWorker(q.digest(), JobState.SEALED);
        JobEntry sealed = workerBook.find(JobEntry.Role.WORKER, q.digest()).get();
        assertEquals("", sealed.invoice(), "saved with its key, no invoice yet");
        assertEquals("fetching", buyerBook.find(JobEntry.Role.BUYER, q.digest()).get().state());
        // the worker restarts over the same book; what its resume sends is lost with the link that was down
        lose = t -> t.equals(ComputeMessages.REFUSE);
        Worker restarted = restartedWorker((peer, type, body) -> {
            if (!lost(type)) {
                toBuyer.execute(() -> toBuyer(type, body));
            }
            return true;
        });
        worker = restarted;
        restarted.resume();
        awaitWorker(q.digest(), JobState.FAILED);
        assertEquals(1, lost.get(), "the refusal of the resume, lost");
        lose = null;
        // the buyer's request, sent again when the link opens, brings the refusal (before: nothing, ever)
        assertEquals(1, buyer.relinked(WORKER));
        JobEntry end = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("failed", end.state());
        assertTrue(end.error().contains("the worker restarted"), end.error());
        assertTrue(ledger.escrow(PaymentHash.ofHex(sealed.paymentHash())).isEmpty(), "nothing was invoiced");
    }

    @Test
    void aFreeJobSealedButNotReleasedWhenTheWorkerStoppedIsReleasedAtResume() throws Exception {
        start(0, 0);
        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        Worker.Peers frozen = (peer, type, body) -> {
            if (type.equals(ComputeMessages.SEALED)) {
                try {
                    never.await(); // the first worker is "killed" as it sends the sealed result, before the key
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return false;
            }
            toBuyer.execute(() -> toBuyer(type, body));
            return true;
        };
        worker = new Worker(worker.offer(), workerSecret, workerBook, workerBlobs, execution(), runner,
                r -> Optional.empty(), frozen, published::add, (x, p) -> null,
                new Worker.Settings(4, 4096, false, 0, false), () -> System.currentTimeMillis() / 1000, Math::random);
        JobSpec spec = spec("upper.wasm", "free and killed".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 0);
        buyer.submit(WORKER, workerKey, q, true);
        awaitWorker(q.digest(), JobState.SEALED);
        Worker restarted = restartedWorker((peer, type, body) -> {
            toBuyer.execute(() -> toBuyer(type, body));
            return true;
        });
        worker = restarted;
        restarted.resume();
        awaitWorker(q.digest(), JobState.DONE);
        buyer.relinked(WORKER); // the buyer's request, sent again: sealed then key
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertEquals("FREE AND KILLED", new String(ResultJson.read(done.result()).stdout(), StandardCharsets.UTF_8));
        never.countDown();
    }

    /** A new Worker over the same book, blobs and escrow, as after a restart (the test switches off). */
    Worker restartedWorker(Worker.Peers peers) {
        return restartedWorker(peers, k -> agent.release(k, 0));
    }

    /** As above, its releases going through {@code release} (a rail that fails them). */
    Worker restartedWorker(Worker.Peers peers, java.util.function.Consumer<Preimage> release) {
        return new Worker(worker.offer(), workerSecret, workerBook, workerBlobs, execution(), runner,
                MarketFlowTest.<Worker.Payee>only("ln", new Worker.Payee() {
                    @Override
                    public org.fleetmesh.spi.settlement.Invoice open(PaymentHash hash, String peerDid, long amount,
                            String memo) {
                        return agent.open(hash, peerDid, amount, memo);
                    }

                    @Override
                    public void release(Preimage k) {
                        release.accept(k);
                    }
                })::apply, peers, published::add, (x, p) -> null, new Worker.Settings(4, 4096, false, 0, false),
                () -> System.currentTimeMillis() / 1000, Math::random);
    }

    private void toBuyerAfterRestart(String type, ObjectNode body) {
        if (type.equals(ComputeMessages.KEY)) {
            buyer.key(WORKER, body);
        }
    }

    @Test
    void aWorkerThatRequiresATokenRefusesARequestWithoutOne() throws Exception {
        start(1, 1000, new Worker.Settings(4, 4096, true, 0, false), new Buyer.Settings(1000, 4096, 600, false),
                false);
        JobSpec spec = spec("upper.wasm", "t".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry end = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("refused", end.state());
        assertTrue(end.error().startsWith("token: "), end.error());
        assertTrue(workerBook.find(JobEntry.Role.WORKER, q.digest()).isEmpty(), "nothing kept for it");
    }

    @Test
    void aBuyerGivesUpAJobNoWorkerAnswers() throws Exception {
        start(1, 1000);
        long[] clock = { 1000 };
        Buyer b = new Buyer(buyerKey, buyerBook, buyerBlobs, r -> Optional.empty(), Optional.empty(), payments,
                (peer, type, body) -> true, (w, id) -> false, (j, r, c, l, k) -> { },
                new Buyer.Settings(0, 4096, 600, false), () -> clock[0]);
        JobSpec spec = spec("upper.wasm", "silence".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        b.submit(WORKER, workerKey, q, true);
        clock[0] += 600;
        b.sweep();
        assertEquals("requested", buyerBook.find(JobEntry.Role.BUYER, q.digest()).get().state(), "not yet");
        clock[0] += 1;
        b.sweep();
        JobEntry e = buyerBook.find(JobEntry.Role.BUYER, q.digest()).get();
        assertEquals("expired", e.state());
        assertTrue(e.error().startsWith("expired: "), e.error());
    }

    /** Loses every message of {@code type} from the {@code after}-th on (0: all), as a link cut then would. */
    static Predicate<String> cut(String type, int after) {
        java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();
        return t -> t.equals(type) && seen.getAndIncrement() >= after;
    }

    void awaitWorker(String id, JobState s) throws InterruptedException {
        for (int i = 0; i < 3000; i++) {
            Optional<JobEntry> w = workerBook.find(JobEntry.Role.WORKER, id);
            if (w.isPresent() && w.get().state().equals(s.word())) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the worker's job " + id + " is not " + s + ": " + workerBook.find(
                JobEntry.Role.WORKER, id));
    }

    @Test
    void aRequestLostWithItsLinkIsSentAgainWhenTheLinkOpensAndTheJobEndsDone() throws Exception {
        start(1, 1000);
        lose = cut(ComputeMessages.REQUEST, 0);
        JobSpec spec = spec("upper.wasm", "lost request".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        assertEquals(1, lost.get());
        assertEquals("requested", buyerBook.find(JobEntry.Role.BUYER, q.digest()).get().state());
        assertTrue(workerBook.find(JobEntry.Role.WORKER, q.digest()).isEmpty(), "the worker never heard of it");
        lose = null;
        assertEquals(0, buyer.relinked("did:peer:someone-else"), "only the jobs of the peer whose link opened");
        assertEquals(1, buyer.relinked(WORKER));
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertEquals("LOST REQUEST", new String(ResultJson.read(done.result()).stdout(), StandardCharsets.UTF_8));
        assertEquals(1, rail.pays(PaymentHash.ofHex(done.paymentHash())), "paid once");
        assertEquals(0, buyer.relinked(WORKER), "a job done is not asked again");
    }

    @Test
    void aBlobTransferCutHalfwayResumesFromTheWorkersRepeatedFetchWithoutStoringAnyChunkTwice() throws Exception {
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, false),
                false);
        byte[] input = new byte[20_000]; // five chunks of 4096
        new java.util.Random(7).nextBytes(input);
        int moduleChunks = (module("sha256sum.wasm").length + 4095) / 4096;
        lose = cut(ComputeMessages.BLOB, moduleChunks + 1); // the module and the input's first chunk arrive
        JobSpec spec = spec("sha256sum.wasm", input, 1_000_000_000);
        Request q = request(spec, 10_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        await(q.digest(), in(JobState.FETCHING));
        awaitWorker(q.digest(), JobState.FETCHING);
        for (int i = 0; i < 300 && lost.get() < 4; i++) {
            Thread.sleep(10);
        }
        assertEquals(4, lost.get(), "four of the input's chunks were lost");
        lose = null;
        assertEquals(1, buyer.relinked(WORKER));
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        String stdout = new String(ResultJson.read(done.result()).stdout(), StandardCharsets.UTF_8);
        assertTrue(stdout.startsWith(JobSpec.sha256(input)), stdout);
        assertArrayEquals(input, workerBlobs.get(spec.input()).get(), "the input the worker stored is the buyer's");
    }

    @Test
    void aFreeJobsLostSealedResultAndKeyAreSentAgainByTheWorkerOnARepeatedRequest() throws Exception {
        start(0, 0);
        lose = t -> t.equals(ComputeMessages.SEALED) || t.equals(ComputeMessages.KEY);
        JobSpec spec = spec("upper.wasm", "free".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 0);
        buyer.submit(WORKER, workerKey, q, true);
        awaitWorker(q.digest(), JobState.DONE);
        int sentBefore = sentToBuyer.size();
        lose = null;
        assertEquals(1, buyer.relinked(WORKER));
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertEquals("FREE", new String(ResultJson.read(done.result()).stdout(), StandardCharsets.UTF_8));
        awaitPublished();
        assertEquals(1, published.size(), "the worker ran and published once");
        synchronized (sentToBuyer) {
            assertEquals(List.of(ComputeMessages.SEALED, ComputeMessages.KEY), sentToBuyer.subList(sentBefore,
                    sentToBuyer.size()));
        }
    }

    @Test
    void aFreeJobWhoseKeyAloneWasLostAsksAgainFromSealed() throws Exception {
        start(0, 0);
        lose = t -> t.equals(ComputeMessages.KEY);
        JobSpec spec = spec("upper.wasm", "key".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 0);
        buyer.submit(WORKER, workerKey, q, true);
        await(q.digest(), in(JobState.SEALED));
        awaitWorker(q.digest(), JobState.DONE);
        lose = null;
        assertEquals(1, buyer.relinked(WORKER));
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
    }

    @Test
    void aLostRefusalIsSentAgainWithItsReason() throws Exception {
        start(1, 1000);
        lose = t -> t.equals(ComputeMessages.REFUSE);
        JobSpec spec = spec("spin.wasm", new byte[0], 5_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        awaitWorker(q.digest(), JobState.FAILED);
        lose = null;
        assertEquals(1, buyer.relinked(WORKER));
        JobEntry end = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("failed", end.state());
        assertTrue(end.error().startsWith("fuel exhausted"), end.error());
    }

    @Test
    void aRequestStillUnansweredIsSentAgainByTheSweepAfterResendSeconds() throws Exception {
        long[] clock = { 10_000 };
        buyerClock = () -> clock[0];
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, false, 30),
                false);
        lose = cut(ComputeMessages.REQUEST, 0);
        JobSpec spec = spec("upper.wasm", "sweep".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        clock[0] += 29;
        buyer.sweep();
        assertEquals(1, lost.get(), "not yet sent again");
        clock[0] += 1;
        buyer.sweep();
        assertEquals(2, lost.get(), "sent again, and lost again");
        clock[0] += 10;
        buyer.sweep();
        assertEquals(2, lost.get(), "not again before another 30 s");
        lose = null;
        clock[0] += 20;
        buyer.sweep();
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
    }

    @Test
    void aFetchingJobWhoseChunksWereLostHasItsRequestSentAgainByTheSweep() throws Exception {
        long[] clock = { 20_000 };
        buyerClock = () -> clock[0];
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, false, 30),
                false);
        byte[] input = new byte[20_000];
        new java.util.Random(11).nextBytes(input);
        int moduleChunks = (module("sha256sum.wasm").length + 4095) / 4096;
        lose = cut(ComputeMessages.BLOB, moduleChunks + 1); // the input's last four chunks are lost
        JobSpec spec = spec("sha256sum.wasm", input, 1_000_000_000);
        Request q = request(spec, 10_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        awaitWorker(q.digest(), JobState.FETCHING);
        for (int i = 0; i < 300 && lost.get() < 4; i++) {
            Thread.sleep(10);
        }
        assertEquals(4, lost.get(), "four of the input's chunks were lost");
        assertEquals("fetching", buyerBook.find(JobEntry.Role.BUYER, q.digest()).get().state());
        lose = null;
        clock[0] += 29;
        buyer.sweep();
        Thread.sleep(200);
        synchronized (sentToBuyer) {
            assertEquals(1, java.util.Collections.frequency(sentToBuyer, ComputeMessages.FETCH),
                    "nothing sent again within 30 s of the worker's fetch");
        }
        clock[0] += 1;
        buyer.sweep();
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertTrue(new String(ResultJson.read(done.result()).stdout(), StandardCharsets.UTF_8)
                .startsWith(JobSpec.sha256(input)));
    }

    @Test
    void aWorkerRestartedWhileFetchingWhoseRefusalWasLostIsAskedAgainByTheSweep() throws Exception {
        long[] clock = { 30_000 };
        buyerClock = () -> clock[0];
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, false, 30),
                false);
        lose = t -> t.equals(ComputeMessages.BLOB) || t.equals(ComputeMessages.REFUSE);
        JobSpec spec = spec("upper.wasm", "restarted".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        awaitWorker(q.digest(), JobState.FETCHING);
        await(q.digest(), in(JobState.FETCHING));
        worker.resume(); // as after a restart: the job it was fetching for ends failed, its refusal is lost
        awaitWorker(q.digest(), JobState.FAILED);
        lose = null;
        clock[0] += 30;
        buyer.sweep();
        JobEntry end = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("failed", end.state());
        assertTrue(end.error().contains("the worker restarted"), end.error());
    }

    @Test
    void aWorkerAnswersARepeatedRequestAtMostOncePerJobEveryFewSecondsAndOnlyToItsBuyer() throws Exception {
        start(0, 0);
        long[] clock = { 50_000 };
        List<String> sent = new ArrayList<>();
        Worker w = new Worker(worker.offer(), workerSecret, workerBook, workerBlobs, execution(), runner,
                r -> Optional.empty(), (peer, type, body) -> {
                    synchronized (sent) {
                        sent.add(peer + " " + type.substring(type.lastIndexOf('/') + 1));
                    }
                    return true;
                }, published::add, (x, p) -> null, new Worker.Settings(4, 4096, false, 0, false), () -> clock[0],
                Math::random);
        JobSpec spec = spec("upper.wasm", "again".getBytes(StandardCharsets.UTF_8), 100_000_000);
        workerBlobs.put(module("upper.wasm"));
        workerBlobs.put("again".getBytes(StandardCharsets.UTF_8));
        Request q = request(spec, 0);
        w.request(BUYER, buyerKey, q.body());
        awaitPublished(); // the last step of a free job: saved done, key sent, final record published
        synchronized (sent) {
            assertEquals(List.of(BUYER + " sealed", BUYER + " key"), sent);
            sent.clear();
        }
        w.request(BUYER, buyerKey, q.body());
        w.request(BUYER, buyerKey, q.body());
        clock[0] += Worker.REPEAT_SECONDS - 1;
        w.request(BUYER, buyerKey, q.body());
        w.request("did:peer:someone-else", buyerKey, q.body());
        synchronized (sent) {
            // another peer sending the buyer's request gets its refusal (the request names another buyer), not the job
            assertEquals(List.of(BUYER + " sealed", BUYER + " key", "did:peer:someone-else refuse"), sent,
                    "one repeat in REPEAT_SECONDS, nothing of the job to another peer");
            sent.clear();
        }
        clock[0] += 1;
        w.request(BUYER, buyerKey, q.body());
        synchronized (sent) {
            assertEquals(List.of(BUYER + " sealed", BUYER + " key"), sent);
        }
        assertEquals(1, published.size(), "run once");
    }

    @Test
    void aChunkSentAgainMustBeTheSameBytes() throws Exception {
        start(0, 0);
        List<ObjectNode> refusals = new ArrayList<>();
        Worker w = new Worker(worker.offer(), workerSecret, workerBook, workerBlobs, execution(), runner,
                r -> Optional.empty(), (peer, type, body) -> {
                    if (type.equals(ComputeMessages.REFUSE)) {
                        refusals.add(body);
                    }
                    return true;
                }, published::add, (x, p) -> null, new Worker.Settings(4, 4096, false, 0, false),
                () -> System.currentTimeMillis() / 1000, Math::random);
        byte[] input = "0123456789abcdefghij".getBytes(StandardCharsets.UTF_8);
        workerBlobs.put(module("upper.wasm"));
        JobSpec spec = new JobSpec(JobSpec.sha256(module("upper.wasm")), JobSpec.sha256(input), List.of(), 100_000_000,
                32, 0, ZEROS);
        Request q = new Request(spec, 0, "", "ef".repeat(16), BUYER, Optional.empty());
        w.request(BUYER, buyerKey, q.body());
        assertEquals("fetching", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state());
        byte[] first = java.util.Arrays.copyOfRange(input, 0, 10);
        w.blob(BUYER, ComputeMessages.blob(q.digest(), spec.input(), 0, input.length, first));
        w.blob(BUYER, ComputeMessages.blob(q.digest(), spec.input(), 0, input.length, first)); // the same again
        w.blob(BUYER, ComputeMessages.blob(q.digest(), spec.input(), 5, input.length,
                java.util.Arrays.copyOfRange(input, 5, 10))); // inside what is held
        assertTrue(refusals.isEmpty(), refusals.toString());
        byte[] other = first.clone();
        other[3] ^= 1;
        w.blob(BUYER, ComputeMessages.blob(q.digest(), spec.input(), 0, input.length, other));
        assertEquals(1, refusals.size());
        assertEquals("invalid", refusals.get(0).path("reason").asText());
        assertTrue(refusals.get(0).path("detail").asText().contains("differs"), refusals.toString());
        assertEquals("refused", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state());
        assertFalse(workerBlobs.has(spec.input()));
    }

    @Test
    void aRequestNamingAnotherBuyerThanTheLinksPeerIsRefusedAndNotTaken() throws Exception {
        start(0, 0);
        List<String> refusals = new ArrayList<>();
        Worker w = new Worker(worker.offer(), workerSecret, workerBook, workerBlobs, execution(), runner,
                r -> Optional.empty(), (peer, type, body) -> {
                    if (type.equals(ComputeMessages.REFUSE)) {
                        refusals.add(peer + " " + body.path("request").asText() + " " + body.path("reason").asText()
                                + ": " + body.path("detail").asText());
                    }
                    return true;
                }, published::add, (x, p) -> null, new Worker.Settings(4, 4096, false, 0, false),
                () -> System.currentTimeMillis() / 1000, Math::random);
        JobSpec spec = spec("upper.wasm", "abc".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = new Request(spec, 0, "", "ab".repeat(16), "did:peer:someone-else", Optional.empty());
        w.request(BUYER, buyerKey, q.body());
        assertEquals(List.of(BUYER + " " + q.digest() + " invalid: the request's buyer is did:peer:someone-else, not this"
                + " link's peer " + BUYER), refusals);
        assertTrue(workerBook.find(JobEntry.Role.WORKER, q.digest()).isEmpty(), "no job taken");
    }
    // ------------------------------------------------ the job book or the ledger failing (a database restarting)

    /** Waits until {@code check} holds (10 s at most). */
    static void until(java.util.function.BooleanSupplier check, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!check.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(10);
        }
    }

    String buyerState(String id) {
        return buyerBook.find(JobEntry.Role.BUYER, id).map(JobEntry::state).orElse("");
    }

    /**
     * The buyer's job book fails just as the payment succeeds (its database restarting): the thread following the
     * payment cannot save the key and gives up. Once the book is back, the sweep follows the payment again (the rail's
     * pay on a hash it paid reports that payment) and the job ends done, paid once. Before, the job stayed paying until
     * the node restarted (found by the chaos suite, seed 33139751641258, which killed the buyer's postmaster).
     */
    @Test
    void aPaymentWhoseKeyCouldNotBeSavedIsFollowedAgainByTheSweepAndEndsDone() throws Exception {
        start(1, 1000);
        lose = t -> t.equals(ComputeMessages.KEY); // the key reaches the buyer by the payment only
        afterPay = () -> buyerBook.down = true;
        JobSpec spec = spec("upper.wasm", "outage".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        until(() -> buyerBook.failures.get() > 0, "the buyer's book failed");
        afterPay = null;
        Thread.sleep(200); // the follower gives up
        buyerBook.down = false;
        assertEquals("paying", buyerState(q.digest()), "left paying: no thread follows it now");
        Thread.sleep(1500);
        assertEquals("paying", buyerState(q.digest()), "still paying: nothing else takes it up");
        buyer.sweep();
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertEquals(-done.priceMsat(), ledger.balance(Accounts.INCOME), "paid once");
    }

    /**
     * The job book fails as a paid job's opened result is saved: the job stays paid (its key is saved) and the sweep
     * opens it again. Before, the failure was taken for a bad seal and the job ended failed, its result lost although
     * paid for.
     */
    @Test
    void aFailureToSaveTheOpenedResultLeavesTheJobPaidNotFailedAndTheSweepOpensIt() throws Exception {
        start(1, 1000);
        lose = t -> t.equals(ComputeMessages.KEY);
        buyerBook.failSave = e -> e.role() == JobEntry.Role.BUYER && e.state().equals(JobState.DONE.word());
        JobSpec spec = spec("upper.wasm", "half".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        until(() -> buyerBook.failures.get() > 0, "the save of done failed");
        Thread.sleep(200);
        assertEquals("paid", buyerState(q.digest()), buyerBook.find(JobEntry.Role.BUYER, q.digest()).get().error());
        buyer.sweep();
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertArrayEquals("HALF".getBytes(StandardCharsets.UTF_8), ResultJson.read(done.result()).stdout());
    }

    /**
     * The worker's job book fails as a paid job is to move to paid: the escrow's paid report is kept and the release
     * retry takes it up, whatever state the job is in. Before, only jobs already paid were retried: this one waited
     * sealed, and the buyer's payment with it, until the invoice expired.
     */
    @Test
    void aPaidReportTheWorkersJobBookFailedToRecordIsReleasedByTheRetry() throws Exception {
        start(1, 1000);
        workerBook.failSave = e -> e.state().equals(JobState.PAID.word());
        JobSpec spec = spec("upper.wasm", "report".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        until(() -> workerBook.failures.get() > 0, "the worker's save of paid failed");
        Thread.sleep(1500);
        assertEquals("sealed", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state());
        assertEquals("paying", buyerState(q.digest()));
        assertEquals(1, worker.retryPaid(3600), "the kept report is tried at once, whatever its age");
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertEquals("done", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state());
        assertEquals(0, worker.retryPaid(3600), "nothing left to retry");
    }

    /**
     * The escrows' ledger fails when the rail reports the payment accepted (the rail reports each state once): the
     * report is kept and recorded by the retry, and the job goes on to done. Before, the escrow stayed invoiced and the
     * payment waited unseen until the invoice expired.
     */
    @Test
    void aPaymentReportTheLedgerFailedToRecordIsRecordedByTheRetry() throws Exception {
        start(1, 1000);
        JobSpec spec = spec("upper.wasm", "ledger".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        // down from the buyer's first pay on (the rail reports ACCEPTED inside it) until the test lifts it
        java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
        Buyer.Payer payer = railPayer();
        buyer = new Buyer(buyerKey, buyerBook, buyerBlobs, MarketFlowTest.<Buyer.Payer>only("ln", new Buyer.Payer() {
            @Override
            public org.fleetmesh.spi.settlement.DecodedRequest decode(String invoice) {
                return payer.decode(invoice);
            }

            @Override
            public org.fleetmesh.spi.settlement.PaymentResult pay(String invoice, long maxFeeMsat) {
                if (once.compareAndSet(false, true)) {
                    ledgerDown = true;
                }
                return payer.pay(invoice, maxFeeMsat);
            }
        })::apply, Optional.of(execution()), payments, (peer, type, body) -> {
            toWorker.execute(() -> toWorker(type, body));
            return true;
        }, (w, id) -> false, (job, record, claimed, local, k) -> { }, new Buyer.Settings(1000, 4096, 600, false),
                () -> buyerClock.getAsLong());
        buyer.submit(WORKER, workerKey, q, true);
        until(once::get, "the buyer paid");
        Thread.sleep(1500);
        ledgerDown = false;
        JobEntry paying = buyerBook.find(JobEntry.Role.BUYER, q.digest()).get();
        assertEquals("paying", paying.state());
        PaymentHash h = PaymentHash.ofHex(paying.paymentHash());
        assertEquals(EscrowState.INVOICED, ledger.escrow(h).get().state(), "the accepted payment is not recorded");
        assertEquals(1, agent.retryUnrecorded());
        JobEntry done = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
        assertEquals(EscrowState.KEY_RELEASED, ledger.escrow(h).get().state());
        assertEquals(0, agent.retryUnrecorded(), "nothing left");
    }

    /**
     * The worker's job book is down as a request comes: the request is dropped (it is not known whether it is new),
     * and the buyer's resend, once the book is back, runs it. No queue place is lost: the queue holds one job here and
     * a second runs after it.
     */
    @Test
    void aRequestMetByADownJobBookIsRunOnItsResend() throws Exception {
        start(1, 1000, new Worker.Settings(1, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, false),
                false);
        workerBook.down = true;
        JobSpec spec = spec("upper.wasm", "first".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        until(() -> workerBook.failures.get() > 0, "the worker's book failed");
        Thread.sleep(200);
        workerBook.down = false;
        assertEquals("requested", buyerState(q.digest()));
        assertEquals(1, buyer.relinked(WORKER), "sent again");
        assertEquals("done", await(q.digest(), e -> JobState.of(e.state()).isFinal()).state());
        // the queue holds one job: the place the failed request took is free again
        JobSpec spec2 = spec("upper.wasm", "second".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q2 = new Request(spec2, 1_000_000, "ln", "ef".repeat(16), BUYER, Optional.empty());
        buyer.submit(WORKER, workerKey, q2, true);
        JobEntry done = await(q2.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
    }

    // ------------------------------------------------ more of the same, from a review of the change above

    static boolean paidStep(String method, Object[] args) {
        return method.equals("apply") && args != null && args[0] instanceof org.fleetmesh.spi.settlement.EscrowStep st
                && st.after().state() == EscrowState.PAID;
    }

    /**
     * The ledger commits the escrow's move to PAID but the answer is lost (the connection dies at the commit): the
     * report is kept, and its retry, which finds the step already applied, tells the worker all the same. Before, it
     * told nobody: the worker's job stayed sealed and the buyer's payment held until the invoice ran out.
     */
    @Test
    void anAcceptedReportCommittedButReportedFailedIsToldByTheRetry() throws Exception {
        start(1, 1000);
        ledgerCommitsThenFails = true;
        ledgerFailOnce = MarketFlowTest::paidStep;
        JobSpec spec = spec("upper.wasm", "ambiguous".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry paying = await(q.digest(), in(JobState.PAYING));
        PaymentHash h = PaymentHash.ofHex(paying.paymentHash());
        until(() -> ledgerFailOnce == null, "the PAID step committed and failed");
        Thread.sleep(300);
        assertEquals(EscrowState.PAID, ledger.escrow(h).get().state(), "the ledger has it paid");
        // what the running node does every 10 s
        agent.retryUnrecorded();
        worker.retryPaid(30);
        buyer.sweep();
        Thread.sleep(1500);
        agent.retryUnrecorded();
        worker.retryPaid(30);
        assertEquals("done", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state(),
                "the worker's job, whose escrow is PAID in the ledger");
    }

    /**
     * The rail reports the invoice expired; the ledger records EXPIRED but its confirmation fails (the database dies
     * between the two calls). The report is kept, and its retry tells the worker, whose job ends expired. Before, the
     * retry found the escrow final and told no one: the job stayed sealed for good.
     */
    @Test
    void anExpiryRecordedButNotConfirmedIsToldTheWorkerByTheRetry() throws Exception {
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, true),
                false);
        JobSpec spec = spec("upper.wasm", "expiry split".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry sealed = await(q.digest(), in(JobState.SEALED));
        PaymentHash h = PaymentHash.ofHex(sealed.paymentHash());
        ledgerCommitsThenFails = false;
        ledgerFailOnce = (m, a) -> m.equals("markEffectDone");
        rail.expire(h);
        assertEquals(EscrowState.EXPIRED, ledger.escrow(h).get().state());
        agent.retryUnrecorded();
        worker.retryPaid(30);
        agent.retryUnrecorded();
        assertEquals("expired", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state());
    }

    /**
     * The rail reports the invoice expired and the ledger records it, but the worker's job book fails as the job is
     * ended (Worker.ended, on the rail's thread): the end is kept and the retry saves it. Before, nothing tried again
     * and the job stayed sealed for good.
     */
    @Test
    void anExpiryTheWorkersJobBookFailedToRecordIsEndedByTheRetry() throws Exception {
        start(1, 1000, new Worker.Settings(4, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, true),
                false);
        JobSpec spec = spec("upper.wasm", "expiry lost".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry sealed = await(q.digest(), in(JobState.SEALED));
        PaymentHash h = PaymentHash.ofHex(sealed.paymentHash());
        workerBook.failSave = e -> e.role() == JobEntry.Role.WORKER && e.state().equals(JobState.EXPIRED.word());
        rail.expire(h);
        assertEquals(1, workerBook.failures.get(), "the save of expired failed");
        agent.retryUnrecorded();
        worker.retryPaid(30);
        agent.retryUnrecorded();
        assertEquals("expired", workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state());
    }

    /**
     * The worker's book fails after a request took its queue place (the save of fetching): the buyer is told to ask
     * again and the place is given back (the queue holds one job here, and the next one runs).
     */
    @Test
    void aQueuePlaceTakenBeforeTheBookFailedIsGivenBack() throws Exception {
        start(1, 1000, new Worker.Settings(1, 4096, false, 0, false), new Buyer.Settings(1000, 4096, 600, false),
                false);
        workerBook.failSave = e -> e.role() == JobEntry.Role.WORKER && e.state().equals(JobState.FETCHING.word());
        JobSpec spec = spec("upper.wasm", "first!".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        JobEntry refused = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("failed", refused.state());
        JobSpec spec2 = spec("upper.wasm", "second!".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q2 = new Request(spec2, 1_000_000, "ln", "ef".repeat(16), BUYER, Optional.empty());
        buyer.submit(WORKER, workerKey, q2, true);
        JobEntry done = await(q2.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", done.state(), done.error());
    }

    /** After that refusal the worker's own record of the job is ended by the retry, not left open until a restart. */
    @Test
    void theWorkersJobLeftByABookFailureBeforeItRanIsEndedByTheRetry() throws Exception {
        start(1, 1000);
        workerBook.failSave = e -> e.role() == JobEntry.Role.WORKER && e.state().equals(JobState.FETCHING.word());
        JobSpec spec = spec("upper.wasm", "left open".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 1_000_000);
        buyer.submit(WORKER, workerKey, q, true);
        await(q.digest(), e -> JobState.of(e.state()).isFinal());
        worker.retryPaid(30);
        assertTrue(JobState.of(workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state()).isFinal(),
                workerBook.find(JobEntry.Role.WORKER, q.digest()).get().state());
    }

    /**
     * A repeated request (the buyer resends one it heard nothing about) that meets a one-second blip of the worker's
     * job book is dropped, not refused: the worker may have the job (here done, its sealed result and key lost on the
     * link), and the next resend gets the answer. A first version of this change refused it 'error' and the buyer
     * ended a job the worker had done failed.
     */
    @Test
    void aRepeatedRequestMeetingABookBlipIsDroppedNotRefused() throws Exception {
        start(0, 0);
        lose = t -> t.equals(ComputeMessages.SEALED) || t.equals(ComputeMessages.KEY);
        JobSpec spec = spec("upper.wasm", "blip".getBytes(StandardCharsets.UTF_8), 100_000_000);
        Request q = request(spec, 0);
        buyer.submit(WORKER, workerKey, q, true);
        awaitWorker(q.digest(), JobState.DONE);
        lose = null;
        workerBook.down = true; // its PostgreSQL restarting, for a second
        assertEquals(1, buyer.relinked(WORKER));
        until(() -> workerBook.failures.get() > 0, "the worker's book failed on the repeated request");
        Thread.sleep(300);
        workerBook.down = false;
        buyer.relinked(WORKER); // the next resend
        JobEntry end = await(q.digest(), e -> JobState.of(e.state()).isFinal());
        assertEquals("done", end.state(), end.error());
    }
}
