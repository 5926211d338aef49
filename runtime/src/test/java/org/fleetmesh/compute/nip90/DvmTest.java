package org.fleetmesh.compute.nip90;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.agent.FakeMarket;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DvmTest {
    static final byte[] NODE = key(1);
    static final byte[] CUSTOMER = key(2);
    static final String NODE_HEX = new PubKey(Schnorr.publicKey(NODE)).hex();
    static final byte[] MODULE = {0, 'a', 's', 'm', 1, 0, 0, 0};
    /** The relay's content limit in these tests (characters). */
    static final int MAX_CONTENT = 64;

    FakeMarket market;
    List<Event> published;
    long now;
    Set<String> paidHashes;
    List<Long> bills;
    List<String> fetched;
    byte[] atUrl;

    static byte[] key(int b) {
        byte[] k = new byte[32];
        k[31] = (byte) b;
        return k;
    }

    @BeforeEach
    void setUp() {
        market = new FakeMarket();
        published = new ArrayList<>();
        paidHashes = new HashSet<>();
        bills = new ArrayList<>();
        fetched = new ArrayList<>();
        atUrl = MODULE;
        now = 1_000_000;
    }

    Dvm dvm(String worker, long pricePerKfuel, int maxPending) {
        Dvm.Payments payments = new Dvm.Payments() {
            @Override
            public Dvm.Bill bill(long msat, String memo, Duration expiry) {
                bills.add(msat);
                billExpiries.add(expiry);
                return new Dvm.Bill("lnbcrt" + msat + "n1bill" + bills.size(), "hash" + bills.size());
            }

            @Override
            public void forget(String paymentHash) {
                forgotten.add(paymentHash);
            }

            @Override
            public java.util.OptionalLong expiresAtMillis(String rail, String invoice) {
                Long at = workerInvoiceEnds.get(rail + " " + invoice);
                return at == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(at);
            }

            @Override
            public boolean paid(String hash) {
                return paidHashes.contains(hash);
            }
        };
        Dvm.Config c = new Dvm.Config(worker, 1000, 1_000_000, 16, Duration.ofMinutes(10), 50_000, pricePerKfuel,
                maxPending, Duration.ofMinutes(10), MAX_CONTENT);
        return new Dvm(market, payments, url -> {
            fetched.add(url);
            return atUrl;
        }, (kind, tags, content) -> Events.sign(NODE, now / 1000, kind, tags, content), published::add, () -> now, c,
                new RequestRate(5, 100), NODE_HEX);
    }

    static String iJson(String checksum, String function, String url) {
        return "{\"url\":\"" + url + "\"," + (function == null ? "" : "\"function\":\"" + function + "\",")
                + "\"input\":\"Hello World\",\"time\":1000,\"checksum\":\"" + checksum + "\"}";
    }

    Event request(List<List<String>> extra) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("i", iJson(JobSpec.sha256(MODULE), "_start", "https://mods.example/m.wasm"), "text"));
        tags.addAll(extra);
        return Events.sign(CUSTOMER, 1_700_000_000L + published.size(), 5600, tags, "");
    }

    List<String> statuses() {
        List<String> s = new ArrayList<>();
        List<Event> seen;
        synchronized (published) { // a synchronized list's own lock, when a test made it one
            seen = new ArrayList<>(published);
        }
        for (Event e : seen) {
            if (e.kind() == 7000) {
                s.add(e.firstTagValue("status"));
            } else {
                s.add("result:" + e.kind());
            }
        }
        return s;
    }

    static String tag(Event e, String name, int i) {
        return e.tags().stream().filter(t -> t.get(0).equals(name)).findFirst().map(t -> t.get(i)).orElse(null);
    }

    @Test
    void freeLocalJobGetsProcessingThenTheResultWithNip90Tags() throws Exception {
        market.putBlob(MODULE);
        Dvm d = dvm("local", 0, 4);
        Event req = request(List.of(List.of("param", "arg", "-n"), List.of("param", "fuel", "5000")));
        d.request(req);
        assertEquals(List.of("processing"), statuses());
        JobSpec spec = market.submitted.get(0).spec();
        assertEquals(JobSpec.sha256(MODULE), spec.module());
        assertEquals(JobSpec.sha256("Hello World".getBytes()), spec.input());
        assertEquals(List.of("-n"), spec.args());
        assertEquals(5000, spec.fuelLimit());
        assertEquals(req.createdAt(), spec.time(), "the clock is the request's created_at");
        assertEquals(req.id().hex(), spec.seed(), "the seed is the request's id");
        assertEquals("local", market.submitted.get(0).worker());
        assertTrue(fetched.isEmpty(), "a stored module is not fetched");

        d.tick();
        assertEquals(1, published.size(), "nothing until the job is done");
        String id = market.views.keySet().iterator().next();
        market.finish(id, "{\"count\":3}", 1234);
        d.tick();
        assertEquals(List.of("processing", "result:6600", "success"), statuses());
        Event res = published.get(1);
        assertEquals("{\"count\":3}", res.content());
        assertEquals(req.json(), tag(res, "request", 1));
        assertEquals(req.id().hex(), tag(res, "e", 1));
        assertEquals(req.pubkey().hex(), tag(res, "p", 1));
        assertEquals(tag(req, "i", 1), tag(res, "i", 1));
        assertEquals("1234", tag(res, "fuel", 1));
        assertEquals(null, tag(res, "amount", 1), "a free job asks for no amount");
        for (Event e : published) {
            assertEquals(req.id().hex(), tag(e, "e", 1));
            assertEquals(NODE_HEX, e.pubkey().hex());
        }
        assertEquals(0, d.pending());
    }

    @Test
    void pricedLocalJobIsPublishedOnlyAfterTheBillIsPaid() throws Exception {
        market.putBlob(MODULE);
        Dvm d = dvm("local", 10, 4);
        d.request(request(List.of(List.of("bid", "100"))));
        String id = market.views.keySet().iterator().next();
        market.finish(id, "out", 2500);
        d.tick();
        assertEquals(List.of("processing", "payment-required"), statuses());
        Event pr = published.get(1);
        assertEquals("30", tag(pr, "amount", 1), "3 kfuel (2500 rounded up) at 10 msat");
        assertEquals("lnbcrt30n1bill1", tag(pr, "amount", 2));
        d.tick();
        assertEquals(2, published.size(), "no result before payment");
        paidHashes.add("hash1");
        d.tick();
        assertEquals(List.of("processing", "payment-required", "result:6600", "success"), statuses());
        assertEquals("30", tag(published.get(2), "amount", 1));
        assertEquals("out", published.get(2).content());
    }

    /**
     * A result longer than the relay stores as content is an error, never a success without a result, and a priced
     * one is never billed: the relay refused such a 6600 and the customer saw only "success".
     */
    @Test
    void aResultTheRelayWouldNotStoreIsAnErrorAndIsNotBilled() throws Exception {
        market.putBlob(MODULE);
        for (long price : new long[] {0, 10}) {
            published.clear();
            market.views.clear();
            Dvm d = dvm("local", price, 4);
            d.request(request(List.of(List.of("bid", "100000"))));
            String id = market.views.keySet().iterator().next();
            market.finish(id, "x".repeat(MAX_CONTENT + 1), 2500);
            d.tick();
            assertEquals(List.of("processing", "error"), statuses(), "price " + price);
            assertTrue(tag(published.get(1), "status", 2).startsWith("output too large: the result is 65 characters"),
                    tag(published.get(1), "status", 2));
            assertTrue(bills.isEmpty(), "nothing billed");
            assertEquals(0, d.pending());
        }
        published.clear();
        market.views.clear();
        Dvm d = dvm("local", 0, 4);
        d.request(request(List.of()));
        market.finish(market.views.keySet().iterator().next(), "x".repeat(MAX_CONTENT), 2500);
        d.tick();
        assertEquals(List.of("processing", "result:6600", "success"), statuses(), "at the limit it fits");
    }

    @Test
    void priceOverTheBidIsAnError() throws Exception {
        market.putBlob(MODULE);
        Dvm d = dvm("local", 10, 4);
        d.request(request(List.of(List.of("bid", "5"))));
        market.finish(market.views.keySet().iterator().next(), "out", 2500);
        d.tick();
        assertEquals(List.of("processing", "error"), statuses());
        assertTrue(tag(published.get(1), "status", 2).contains("over the bid"));
        assertTrue(bills.isEmpty());
    }

    @Test
    void remoteWorkerIsPaidOnlyAfterTheCustomerPaid() throws Exception {
        market.putBlob(MODULE);
        Dvm d = dvm("any", 0, 4);
        d.request(request(List.of(List.of("bid", "9000"))));
        assertEquals(9000, market.submitted.get(0).maxPriceMsat(), "the bid caps the price");
        assertEquals(false, market.submitted.get(0).autoPay());
        String id = market.views.keySet().iterator().next();
        market.seal(id, 7000, "lnbcrt70n1worker");
        d.tick();
        assertEquals(List.of("processing", "payment-required"), statuses());
        assertEquals("7000", tag(published.get(1), "amount", 1));
        assertTrue(market.paid.isEmpty(), "the worker is not paid before the customer");
        d.tick();
        assertTrue(market.paid.isEmpty());
        paidHashes.add("hash1");
        d.tick();
        assertEquals(List.of(id), market.paid);
        market.finish(id, "r", 10);
        d.tick();
        d.tick();
        assertEquals(List.of("processing", "payment-required", "result:6600", "success"), statuses());
        assertEquals(List.of(id), market.paid, "paid once");
    }

    final List<Duration> billExpiries = new ArrayList<>();
    final List<String> forgotten = new ArrayList<>();
    final java.util.Map<String, Long> workerInvoiceEnds = new java.util.HashMap<>();

    /**
     * The customer's bill expires two minutes before the worker's invoice does (the node pays the worker only after
     * the bill is paid, and that payment may take the rail's payment timeout): a bill paid after the worker's invoice
     * expired took the customer's money and could not pay the worker (found by an outside audit of the money paths);
     * a worker's invoice that leaves less than 30 s to pay a bill is not billed at all. An unpaid bill that ends is
     * given back (a hold invoice: canceled).
     */
    @Test
    void theBillExpiresBeforeTheWorkersInvoice() throws Exception {
        market.putBlob(MODULE);
        Dvm d = dvm("any", 0, 4);
        d.request(request(List.of()));
        String id = market.views.keySet().iterator().next();
        market.seal(id, 7000, "lnbcrt70n1worker");
        market.views.get(id).put("rail", "ln");
        workerInvoiceEnds.put("ln lnbcrt70n1worker", now + 200_000);
        d.tick();
        assertEquals(List.of("processing", "payment-required"), statuses());
        assertEquals(List.of(Duration.ofSeconds(80)), billExpiries, "200 s left on the worker's invoice, less 120");
        now += 81_000;
        d.tick();
        assertEquals(List.of("processing", "payment-required", "error"), statuses(), "expired with the bill");
        assertTrue(market.paid.isEmpty());
        assertEquals(List.of("hash1"), forgotten, "the unpaid bill is given back");

        d.request(request(List.of()));
        String second = market.views.keySet().stream().filter(k -> !k.equals(id)).findFirst().orElseThrow();
        market.seal(second, 7000, "lnbcrt70n1soon");
        market.views.get(second).put("rail", "ln");
        workerInvoiceEnds.put("ln lnbcrt70n1soon", now + 140_000);
        d.tick();
        Event err = published.get(published.size() - 1);
        assertEquals("error", err.firstTagValue("status"));
        assertTrue(tag(err, "status", 2).contains("expires too soon"), err.tags().toString());
        assertEquals(1, billExpiries.size(), "not billed");
    }

    @Test
    void unpaidBillExpiresWithAnErrorAndTheWorkerIsNeverPaid() throws Exception {
        market.putBlob(MODULE);
        Dvm d = dvm("any", 0, 4);
        d.request(request(List.of()));
        String id = market.views.keySet().iterator().next();
        market.seal(id, 7000, "lnbcrt70n1worker");
        d.tick();
        now += Duration.ofMinutes(11).toMillis();
        d.tick();
        assertEquals(List.of("processing", "payment-required", "error"), statuses());
        assertTrue(market.paid.isEmpty());
        assertEquals(0, d.pending());
    }

    @Test
    void failedJobIsAnErrorWithTheMarketsReason() throws Exception {
        market.putBlob(MODULE);
        Dvm d = dvm("local", 0, 4);
        d.request(request(List.of()));
        market.fail(market.views.keySet().iterator().next(), "fuel exhausted");
        d.tick();
        assertEquals(List.of("processing", "error"), statuses());
        assertTrue(tag(published.get(1), "status", 2).contains("fuel exhausted"));
    }

    @Test
    void jobWithoutResultWithinTimeIsATimeout() throws Exception {
        market.putBlob(MODULE);
        Dvm d = dvm("local", 0, 4);
        d.request(request(List.of()));
        now += 1001;
        d.tick();
        assertEquals(List.of("processing", "error"), statuses());
        assertTrue(tag(published.get(1), "status", 2).startsWith("timeout"));
    }

    @Test
    void moduleIsFetchedFromTheUrlAndCheckedAgainstTheChecksum() throws Exception {
        Dvm d = dvm("local", 0, 4);
        d.request(request(List.of()));
        assertEquals(List.of("https://mods.example/m.wasm"), fetched);
        assertTrue(market.blobs.containsKey(JobSpec.sha256(MODULE)));
        atUrl = new byte[] {1, 2, 3};
        market.blobs.clear();
        d.request(request(List.of(List.of("param", "arg", "other"))));
        assertEquals(List.of("processing", "error"), statuses());
        assertTrue(tag(published.get(1), "status", 2).startsWith("checksum mismatch"));
    }

    @Test
    void pendingJobsAreBounded() throws Exception {
        market.putBlob(MODULE);
        Dvm d = dvm("local", 0, 2);
        for (int i = 0; i < 3; i++) {
            d.request(request(List.of(List.of("param", "arg", "n" + i))));
        }
        assertEquals(List.of("processing", "processing", "error"), statuses());
        assertTrue(tag(published.get(2), "status", 2).startsWith("busy"));
        assertEquals(2, market.submitted.size());
    }

    /**
     * Requests whose bills nobody pays (throwaway keys cost nothing) do not hold every place for the bill's whole
     * expiry: once a bill has waited {@code billYield} (60 s) unpaid, a newcomer at max-pending takes its place, the
     * unpaid request ends with an error and its bill is canceled. A bill a payment reached never yields, nor a young
     * one. Found by an outside audit (before, 16 unpaid requests blocked the bridge for 10 minutes).
     */
    @Test
    void anUnpaidBillYieldsItsPlaceToANewcomerAfterBillYieldButAPaidOneNever() throws Exception {
        market.putBlob(MODULE);
        Dvm d = dvm("local", 10, 2);
        for (int i = 0; i < 2; i++) {
            d.request(request(List.of(List.of("param", "arg", "n" + i))));
        }
        for (String id : market.views.keySet()) {
            market.finish(id, "out", 2500);
        }
        d.tick();
        assertEquals(List.of("processing", "processing", "payment-required", "payment-required"), statuses());
        d.request(request(List.of(List.of("param", "arg", "young"))));
        assertTrue(tag(published.get(4), "status", 2).startsWith("busy"), "bills 0 s old hold their places");
        now += 61_000;
        paidHashes.add("hash2"); // the second bill's payment arrived (not yet taken up by a tick)
        d.request(request(List.of(List.of("param", "arg", "newcomer"))));
        assertEquals(List.of("processing", "processing", "payment-required", "payment-required", "error", "error",
                "processing"), statuses());
        assertTrue(tag(published.get(5), "status", 2).startsWith("payment-required: the bill of 30 msat was not paid"
                + " within 60 s"), published.get(5).json());
        assertEquals(tag(published.get(5), "e", 1), tag(published.get(0), "e", 1), "the first request ended");
        assertEquals(List.of("hash1"), forgotten, "its bill canceled");
        assertEquals(2, d.pending());
        assertEquals(1L, d.counters().get("bills_yielded"));
        d.request(request(List.of(List.of("param", "arg", "later"))));
        assertTrue(tag(published.get(7), "status", 2).startsWith("busy"), "a paid bill and a running job: no place");
        d.tick();
        assertTrue(statuses().contains("result:6600"), "the paid one is served: " + statuses());
    }

    @Test
    void pendingJobsStayBoundedWhenRequestsAreStartedOnSeveralThreads() throws Exception {
        market.putBlob(MODULE);
        published = java.util.Collections.synchronizedList(new ArrayList<>());
        Dvm d = dvm("local", 0, 2);
        java.util.concurrent.CountDownLatch inSubmit = new java.util.concurrent.CountDownLatch(2);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        market.onSubmit = () -> {
            inSubmit.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        List<Event> requests = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            requests.add(request(List.of(List.of("param", "arg", "t" + i))));
        }
        List<Thread> threads = new ArrayList<>();
        for (Event e : requests) {
            Thread t = new Thread(() -> d.request(e));
            threads.add(t);
            t.start();
        }
        assertTrue(inSubmit.await(10, TimeUnit.SECONDS), "two requests reach the market");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (statuses().size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(10); // the other two are refused while those two are still being started
        }
        assertEquals(List.of("error", "error"), statuses(), "two places, two started: the others busy");
        release.countDown();
        for (Thread t : threads) {
            t.join(10_000);
        }
        assertEquals(2, market.submitted.size());
        assertEquals(2, d.pending());
    }

    @Test
    void requestsOverThePubkeysRateAreDroppedAndRepeatsIgnored() throws Exception {
        market.putBlob(MODULE);
        Dvm d = dvm("local", 0, 100);
        Event first = request(List.of(List.of("param", "arg", "x")));
        d.request(first);
        d.request(first);
        assertEquals(1, market.submitted.size(), "the same request runs once");
        for (int i = 0; i < 10; i++) {
            d.request(request(List.of(List.of("param", "arg", "n" + i))));
        }
        assertEquals(5, market.submitted.size(), "5 a minute");
        assertEquals(6, d.counters().get("rate_limited"));
        now += 60_000;
        d.request(request(List.of(List.of("param", "arg", "later"))));
        assertEquals(6, market.submitted.size(), "the bucket refills");
    }

    @Test
    void aRequestTheQueueHadNoRoomForIsAnsweredBusyWithinItsPubkeysRate() throws Exception {
        Dvm d = dvm("local", 0, 4);
        Event first = request(List.of(List.of("param", "arg", "x")));
        d.overflow(first);
        assertEquals(List.of("error"), statuses());
        assertTrue(tag(published.get(0), "status", 2).startsWith("busy"), published.get(0).json());
        assertEquals(first.id().hex(), tag(published.get(0), "e", 1));
        assertEquals(first.pubkey().hex(), tag(published.get(0), "p", 1));
        d.overflow(first);
        d.request(first);
        assertEquals(1, published.size(), "a repeat is not answered again, nor run");
        d.overflow(request(List.of(List.of("p", "ab".repeat(32)))));
        assertEquals(1, published.size(), "a request for another provider is not answered");
        for (int i = 0; i < 10; i++) {
            d.overflow(request(List.of(List.of("param", "arg", "n" + i))));
        }
        assertEquals(5, published.size(), "5 a minute, answers included");
        assertEquals(6, d.counters().get("rate_limited"));
        assertTrue(market.submitted.isEmpty());
    }

    @Test
    void requestForAnotherProviderIsIgnored() throws Exception {
        market.putBlob(MODULE);
        Dvm d = dvm("local", 0, 4);
        d.request(request(List.of(List.of("p", "ab".repeat(32)))));
        assertTrue(published.isEmpty());
        d.request(request(List.of(List.of("p", NODE_HEX))));
        assertEquals(List.of("processing"), statuses());
    }

    @Test
    void badRequestsGetAnErrorFeedback() throws Exception {
        Dvm d = dvm("local", 0, 4);
        d.request(Events.sign(CUSTOMER, 1, 5600, List.of(List.of("i",
                iJson(JobSpec.sha256(MODULE), "count_vowels", ""), "text")), ""));
        d.request(Events.sign(CUSTOMER, 2, 5600, List.of(), ""));
        d.request(Events.sign(CUSTOMER, 3, 5600, List.of(List.of("i", iJson(JobSpec.sha256(MODULE), null, ""), "text"),
                List.of("param", "fuel", "2000000")), ""));
        assertEquals(List.of("error", "error", "error"), statuses());
        assertTrue(tag(published.get(0), "status", 2).contains("WASI commands"));
        assertTrue(tag(published.get(1), "status", 2).startsWith("no i tag"));
        assertTrue(tag(published.get(2), "status", 2).startsWith("fuel: at most"));
        assertTrue(market.submitted.isEmpty());
    }
}
