package org.fleetmesh.compute.quarkus;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.fleetmesh.compute.Commitment;
import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.verify.Sampling;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.market.BlobStore;
import org.fleetmesh.compute.market.Buyer;
import org.fleetmesh.compute.market.ComputeMessages;
import org.fleetmesh.compute.market.Execution;
import org.fleetmesh.compute.market.JobState;
import org.fleetmesh.compute.market.JobView;
import org.fleetmesh.compute.market.Market;
import org.fleetmesh.compute.market.MarketProtocolException;
import org.fleetmesh.compute.market.Offer;
import org.fleetmesh.compute.market.Request;
import org.fleetmesh.compute.market.RequestTokens;
import org.fleetmesh.compute.market.ResultJson;
import org.fleetmesh.compute.market.Worker;
import org.fleetmesh.compute.market.WorkerChoice;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.link.EventLink;
import org.fleetmesh.peering.link.EventLinks;
import org.fleetmesh.peering.link.GrantMessages;
import org.fleetmesh.peering.quarkus.EvidenceLedger;
import org.fleetmesh.peering.quarkus.GrantedLinkSessions;
import org.fleetmesh.relay.Origin;
import org.fleetmesh.relay.quarkus.RelayRuntime;
import org.fleetmesh.settlement.EscrowAgent;
import org.fleetmesh.settlement.quarkus.SettlementRuntime;
import org.fleetmesh.spi.compute.JobBook;
import org.fleetmesh.spi.compute.JobEntry;
import org.fleetmesh.spi.peers.Evidence;
import org.fleetmesh.spi.schedule.Repeating;
import org.fleetmesh.spi.settlement.DecodedRequest;
import org.fleetmesh.spi.settlement.EscrowState;
import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementRail;
import org.fleetmesh.standing.FindingEvidence;
import org.fleetmesh.standing.quarkus.StandingRuntime;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.runtime.StartupEvent;

/**
 * The node's compute market (docs/spec/compute.md): the {@link Market} the agent API and the NIP-90 bridge use, and
 * compute/1.0 on the mesh links. As a worker it publishes its offer (kind 30810) to its relay and to each linked peer
 * and serves requests ({@link Worker}) on any of the node's rails, over the escrow agent of the request's rail; as a
 * buyer it sends requests and pays ({@link Buyer}) with one of its rails the worker takes, choosing workers by offer
 * price and {@code view_compute}. Jobs for {@code "local"} run here on the
 * node's sandbox, nothing paid.
 */
@ApplicationScoped
public class MarketRuntime implements Market {
    private static final Logger LOG = Logger.getLogger(MarketRuntime.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);
    /** Compute messages waiting to be handled (each at most a link frame, 1 MiB by default). */
    static final int MESSAGE_QUEUE = 256;
    /** Offers heard from peers, at most. */
    private static final int MAX_OFFERS = 1024;

    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "fleetmesh.data-dir", defaultValue = "./data")
    String dataDir;

    @Inject
    MarketConfig config;

    @Inject
    JobBook book;

    @Inject
    Instance<Execution> execution;

    @Inject
    NodeIdentity identity;

    @Inject
    GrantedLinkSessions sessions;

    @Inject
    RelayRuntime relays;

    @Inject
    SettlementRuntime settlement;

    @Inject
    StandingRuntime standing;

    @Inject
    EvidenceLedger evidence;

    private volatile BlobStore blobs;
    private volatile Worker worker;
    private volatile Buyer buyer;
    private volatile Event offerEvent;
    private final Map<String, PeerOffer> offers = new ConcurrentHashMap<>();
    private ThreadPoolExecutor messages;
    private ThreadPoolExecutor runner;
    private ThreadPoolExecutor payments;
    private ThreadPoolExecutor escrows;
    private ScheduledExecutorService sweeper;
    private final AtomicLong refusedMessages = new AtomicLong();
    private final AtomicLong mismatches = new AtomicLong();

    /** An offer a linked peer sent, with the Nostr key its link proved. */
    record PeerOffer(Offer offer, Event event, PubKey key, long receivedAt) {
    }

    void onStart(@Observes StartupEvent e) {
        start();
    }

    /** Wires the market (idempotent). */
    synchronized void start() {
        if (buyer != null) {
            return;
        }
        messages = pool("fleetmesh-compute-messages", 1, MESSAGE_QUEUE);
        runner = pool("fleetmesh-compute-jobs", 1, Math.max(1, config.queue()));
        payments = pool("fleetmesh-compute-payments", 4, 1024);
        // the worker's escrow steps (a paid report's release, the release retry) never wait behind the buyer's
        // payment followers, which hold a payments thread for as long as a payment is in flight
        escrows = pool("fleetmesh-compute-escrows", 2, 1024);
        sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleetmesh-compute-sweep");
            t.setDaemon(true);
            return t;
        });
        byte[] nostr = identity.secrets().nostr().bytes();
        Optional<Execution> exec = execution.isUnsatisfied() ? Optional.empty() : Optional.of(execution.get());
        // every rail, preferred first: the offer lists them all, a request may name any
        List<String> rails = List.copyOf(settlement.rails().keySet());
        Worker.Peers peers = this::send;
        if (config.sell() && exec.isPresent()) {
            boolean free = config.pricePerKfuel() == 0 && config.minPrice() == 0;
            if (!free && rails.isEmpty()) {
                LOG.warn("compute market: the offer has a price but this node has no rail; it sells nothing"
                        + " (set fleetmesh.lightning.enabled, or fleetmesh.cashu.enabled with fleetmesh.cashu.mint-url,"
                        + " or a price of 0)");
            } else {
                Offer offer = new Offer(config.offerId(), selfDid(), List.of(exec.get().runtime()),
                        config.pricePerKfuel(), config.minPrice(), config.maxFuel(), config.maxMemoryPages(),
                        config.maxModuleBytes(), rails, "");
                Worker.Payees payees = railId -> settlement.agent(railId).map(a -> new Worker.Payee() {
                    @Override
                    public Invoice open(PaymentHash hash, String peerDid, long amountMsat, String memo) {
                        return a.open(hash, peerDid, amountMsat, memo);
                    }

                    @Override
                    public void release(Preimage k) {
                        a.release(k, 0);
                    }

                    @Override
                    public long amountStepMsat() {
                        return settlement.rail(railId).map(r -> r.amountStepMsat()).orElse(1L);
                    }
                });
                worker = new Worker(offer, nostr, book, blobs(), exec.get(), runner, payees, peers, this::publish,
                        this::tokenProblem, new Worker.Settings(config.queue(), config.chunkBytes(),
                                config.requireToken(), config.testCheatRate(), config.testWithholdKey()),
                        MarketRuntime::now, RANDOM::nextDouble);
                offerEvent = offer.sign(nostr, now());
                publish(offerEvent);
                settlement.listen(esc -> {
                    Worker w = worker;
                    if (esc.state() == EscrowState.PAID) {
                        boolean queued = submitAsync(() -> {
                            try {
                                w.paid(esc.paymentHash());
                            } catch (RuntimeException ex) {
                                LOG.warnf("escrow %s is paid, but its key was not released (%s); tried again every %d s",
                                        esc.paymentHash(), ex.toString(), RETRY_PERIOD_SECONDS);
                            }
                        });
                        if (!queued) {
                            w.paidLater(esc.paymentHash());
                        }
                    } else if (esc.state() == EscrowState.EXPIRED || esc.state() == EscrowState.REFUNDED) {
                        w.ended(esc.paymentHash(), esc.state() == EscrowState.EXPIRED);
                    }
                });
            }
        }
        Buyer.Payers payers = railId -> settlement.rail(railId).map(r -> new Buyer.Payer() {
            @Override
            public DecodedRequest decode(String invoice) {
                return r.decode(invoice);
            }

            @Override
            public PaymentResult pay(String invoice, long maxFeeMsat) {
                return r.pay(invoice, maxFeeMsat);
            }
        });
        buyer = new Buyer(identity.secrets().publicKeys().nostr().hex(), book, blobs(), payers, exec, payments, peers,
                this::sample, this::mismatch, new Buyer.Settings(config.maxFeeMsat(), config.chunkBytes(),
                        config.invoiceExpiry().toSeconds() + 60, config.testNeverPay(),
                        config.requestResend().toSeconds()),
                MarketRuntime::now);
        EventLinks links = sessions.links();
        links.handle(ComputeMessages.PROTOCOL, new EventLinks.DidcommHandler() {
            @Override
            public void opened(EventLink link) {
                Event o = offerEvent;
                if (o != null) {
                    link.send(ComputeMessages.OFFER, Optional.empty(), ComputeMessages.offer(o));
                }
                // what this node sent the peer on an earlier link may have been lost with it
                String peer = link.peer().shortDid();
                try {
                    messages.execute(() -> {
                        int n = buyer.relinked(peer);
                        if (n > 0) {
                            LOG.infof("compute market: %d request(s) sent again to %s, whose link opened", n, peer);
                        }
                    });
                } catch (RejectedExecutionException ex) {
                    LOG.warnf("compute market: the requests waiting on %s are not sent again now (the queue is full);"
                            + " the sweep sends them", peer);
                }
            }

            @Override
            public void received(EventLink link, GrantMessages.Received m) {
                try {
                    messages.execute(() -> dispatch(link.peer(), m));
                } catch (RejectedExecutionException ex) {
                    refusedMessages.incrementAndGet();
                    if (m.type().equals(ComputeMessages.REQUEST) && worker != null) {
                        link.send(ComputeMessages.REFUSE, Optional.empty(), ComputeMessages.refuse("",
                                ComputeMessages.BUSY, "the worker's message queue is full"));
                    }
                }
            }

            @Override
            public void closed(EventLink link) {
                // the offer stays known: a relinking peer sends it again
            }
        });
        // what a restart left (escrows, jobs under way on either side) is taken up off the start-up path, as the first
        // task of the message thread: every compute message from a peer is handled after it, in order, and a rail
        // slow to answer (an LND still starting) does not hold the node's start
        messages.execute(this::resume);
        sweeper.scheduleWithFixedDelay(Repeating.surviving("the compute sweep", () -> buyer.sweep()), 10, 10, TimeUnit.SECONDS);
        // releases the rail refused for a while (an LND restarting, a mint answering 500) are tried again while the
        // node runs, not only at its next start: the payer's HTLC does not wait for ever
        sweeper.scheduleWithFixedDelay(Repeating.surviving("the release retry", () -> {
            Worker w = worker;
            // one run at a time: a rail that hangs (30 s a call) must not pile runs up on the escrows' thread
            if (resumed && w != null && retrying.compareAndSet(false, true)) {
                try {
                    escrows.execute(() -> {
                        try {
                            settlement.retryUnrecorded();
                            w.retryPaid(RELEASE_RETRY_SECONDS);
                        } catch (RuntimeException ex) {
                            // the store is down still (a database restarting): the next run tries again
                            LOG.warnf("the release retry failed (%s); it runs again in %d s", ex.toString(),
                                    RETRY_PERIOD_SECONDS);
                        } finally {
                            retrying.set(false);
                        }
                    });
                } catch (RejectedExecutionException ex) {
                    retrying.set(false);
                }
            }
        }), RETRY_PERIOD_SECONDS, RETRY_PERIOD_SECONDS, TimeUnit.SECONDS);
        for (String on : testSwitchesOn(config)) {
            LOG.warnf("compute market: TEST SWITCH %s is on: this node misbehaves on purpose (never in production)", on);
        }
        LOG.infof("compute market: %s; buying %s", worker == null ? "not selling"
                : "selling (" + worker.offer().runtimes() + ", " + worker.offer().pricePerKfuel() + " msat per kfuel, min "
                        + worker.offer().minPrice() + " msat)", rails.isEmpty() ? "free jobs only (no rail)"
                                : "with rails " + rails);
    }

    /** The escrows and jobs a restart left, taken up once (see start). */
    private void resume() {
        long t0 = System.nanoTime();
        Worker w = worker;
        try {
            List<EscrowAgent.Resumed> done = settlement.resume(h -> w == null ? Optional.empty() : w.key(h));
            for (EscrowAgent.Resumed r : done) {
                // each escrow on its own: one whose release fails (its rail still down) holds up no other
                if (r.action().equals("decide") && r.error().isEmpty() && w != null) {
                    try {
                        w.paid(r.hash());
                    } catch (RuntimeException ex) {
                        LOG.warnf("escrow %s: its key was not released at resume (%s); tried again every %d s",
                                r.hash(), ex.toString(), RETRY_PERIOD_SECONDS);
                    }
                }
                r.error().ifPresent(err -> LOG.warnf("escrow %s: resume %s failed: %s", r.hash(), r.action(), err));
            }
        } catch (RuntimeException ex) {
            LOG.errorf(ex, "resuming escrows failed");
        }
        try {
            if (w != null) {
                w.resume();
            }
        } catch (RuntimeException ex) {
            LOG.errorf(ex, "resuming the worker's jobs failed");
        }
        try {
            buyer.resume();
        } catch (RuntimeException ex) {
            LOG.errorf(ex, "resuming the bought jobs failed");
        }
        resumed = true;
        LOG.debugf("compute market: escrows and jobs resumed in %d ms", (System.nanoTime() - t0) / 1_000_000);
    }

    /** A release retry is running. */
    private final java.util.concurrent.atomic.AtomicBoolean retrying = new java.util.concurrent.atomic.AtomicBoolean();

    /** After how long a job left paid (its release refused by the rail) is released again. */
    static final long RELEASE_RETRY_SECONDS = 30;

    /**
     * How often the release retry runs: a paid report whose release failed before the job moved to paid (the job book
     * or ledger failing, a database restarting) is taken up on the next run, a job left paid once it is
     * {@link #RELEASE_RETRY_SECONDS} old; and the escrows' rail reports the ledger failed to record are recorded.
     */
    static final long RETRY_PERIOD_SECONDS = 10;

    /** Set once the escrows and jobs a restart left are taken up. */
    private volatile boolean resumed;

    private boolean submitAsync(Runnable r) {
        try {
            escrows.execute(r);
            return true;
        } catch (RejectedExecutionException ex) {
            LOG.warn("compute market: no thread for an escrow step now; the release retry takes it up");
            return false;
        }
    }

    private static ThreadPoolExecutor pool(String name, int threads, int queue) {
        ThreadPoolExecutor p = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(queue), r -> {
                    Thread t = new Thread(r, name);
                    t.setDaemon(true);
                    return t;
                });
        p.allowCoreThreadTimeOut(true);
        return p;
    }

    private void dispatch(PeerIdentity from, GrantMessages.Received m) {
        String peer = from.shortDid();
        String key = from.nostr().map(PubKey::hex).orElse("");
        ObjectNode body = m.body();
        switch (m.type()) {
            case ComputeMessages.OFFER -> offered(from, body);
            case ComputeMessages.REQUEST -> {
                Worker w = worker;
                if (w == null || key.isEmpty()) {
                    String id;
                    try {
                        id = Request.fromJson(body).digest();
                    } catch (MarketProtocolException ex) {
                        id = "";
                    }
                    send(peer, ComputeMessages.REFUSE, ComputeMessages.refuse(id, ComputeMessages.LIMITS,
                            "this node sells no compute"));
                } else {
                    w.request(peer, key, body);
                }
            }
            case ComputeMessages.BLOB -> {
                if (worker != null) {
                    worker.blob(peer, body);
                }
            }
            case ComputeMessages.FETCH -> buyer.fetch(peer, body);
            case ComputeMessages.SEALED -> buyer.sealed(peer, body);
            case ComputeMessages.REFUSE -> buyer.refuse(peer, body);
            case ComputeMessages.KEY -> buyer.key(peer, body);
            default -> LOG.debugf("compute message %s from %s is not served", m.type(), peer);
        }
    }

    private void offered(PeerIdentity from, JsonNode body) {
        try {
            Event e = PARSER.parseEvent(body.path("offer").toString());
            Offer o = Offer.parse(e);
            if (from.nostr().isEmpty() || !from.nostr().get().equals(e.pubkey())
                    || !PeerIdentity.shortForm(o.did()).equals(from.shortDid())) {
                LOG.warnf("an offer from %s is not signed by its key or names another DID", from.shortDid());
                return;
            }
            if (offers.size() >= MAX_OFFERS && !offers.containsKey(from.shortDid())) {
                return;
            }
            offers.put(from.shortDid(), new PeerOffer(o, e, e.pubkey(), now()));
        } catch (Exception ex) {
            LOG.debugf("an offer from %s does not read: %s", from.shortDid(), ex.getMessage());
        }
    }

    private boolean send(String peer, String type, ObjectNode body) {
        Optional<EventLink> l = sessions.links().link(peer);
        return l.isPresent() && l.get().send(type, Optional.empty(), body);
    }

    private void publish(Event e) {
        relays.relay().ingest().submit(List.of(e), new Origin.Import()).thenAccept(outcomes -> {
            if (!outcomes.get(0).accepted()) {
                LOG.warnf("compute event kind %d was not stored: %s", e.kind(), outcomes.get(0).message());
            }
        });
    }

    private String selfDid() {
        return NodeDidDocument.of(identity.secrets().publicKeys(),
                NodeEndpoints.of("ws://localhost/", "ws://localhost/mesh", "http://localhost/didcomm")).shortForm();
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    /** A capability token from one of the configured roots or the buyer node itself (its DID as its link proved it). */
    private String tokenProblem(Request q, String peerDid) {
        List<String> roots = new ArrayList<>(config.tokenRoots().orElse(List.of()));
        sessions.links().link(peerDid).ifPresent(l -> roots.add(l.peer().did()));
        return RequestTokens.problem(q.token().get(), q.spec().fuelLimit(), roots, DidResolver.offline(),
                Instant.now());
    }

    /** Re-execute: at the configured rate, and always for Tier 0 workers and those of low view_compute. */
    private boolean sample(String workerDid, String jobId) {
        int tier = sessions.links().known(workerDid).map(a -> a.tier().level()).orElse(0);
        double view = standing.views().compute(workerDid);
        boolean always = (config.alwaysSampleTier0() && tier == 0) || view < config.alwaysSampleBelow();
        return sampling().decide(jobId, config.sampleRate(), always);
    }

    private volatile Sampling sampling;

    /** Keyed by a secret derived from the node's key: the same jobs are chosen after a restart. */
    private Sampling sampling() {
        Sampling s = sampling;
        if (s == null) {
            try {
                java.security.MessageDigest d = java.security.MessageDigest.getInstance("SHA-256");
                d.update("fleetmesh compute sampling".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                d.update(identity.secrets().nostr().bytes());
                s = new Sampling(d.digest());
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            sampling = s;
        }
        return s;
    }

    /** A re-execution that disagreed: an S2 compute finding through the evidence ledger. */
    private void mismatch(JobEntry job, Event record, JobResult claimed, JobResult local, Preimage k) {
        mismatches.incrementAndGet();
        JobSpec spec;
        try {
            spec = JobSpec.fromJson(JSON.readTree(job.request()).get("job"));
        } catch (java.io.IOException ex) {
            throw new IllegalStateException(ex);
        }
        byte[] module = blobs().get(spec.module()).filter(b -> b.length <= INLINE_EVIDENCE).orElse(null);
        byte[] input = blobs().get(spec.input()).filter(b -> b.length <= INLINE_EVIDENCE).orElse(null);
        String detail = FindingEvidence.reexecution(record, spec, k.toBytes(), Commitment.Summary.of(claimed),
                Commitment.Summary.of(local), module, input);
        long at = System.currentTimeMillis();
        LOG.warnf("job %s: the re-execution here disagrees with %s (output %s vs %s, fuel %d vs %d)", job.id(),
                job.peer(), local.outputDigest(), claimed.outputDigest(), local.fuelUsed(), claimed.fuelUsed());
        evidence.addEvidence(new Evidence(0, job.peer(), "S2", "reexecution: the result differs", 0, at, at, 0, "",
                "", detail));
    }

    /** Modules and inputs up to this size go into the evidence itself, so any node can re-run the job. */
    private static final int INLINE_EVIDENCE = 16_384;

    BlobStore blobs() {
        BlobStore b = blobs;
        if (b == null) {
            synchronized (this) {
                if (blobs == null) {
                    // on disk under the data dir: a restart keeps what open jobs need (the buyer's re-execution)
                    java.nio.file.Path dir = java.nio.file.Path.of(dataDir, "compute", "blobs");
                    try {
                        blobs = new BlobStore(config.maxModuleBytes(), config.blobStoreBytes(),
                                config.blobTtl().toMillis(), System::currentTimeMillis, dir);
                    } catch (java.io.IOException | RuntimeException ex) {
                        LOG.warnf("compute market: blobs kept in memory only (%s: %s)", dir, ex.getMessage());
                        blobs = new BlobStore(config.maxModuleBytes(), config.blobStoreBytes(),
                                config.blobTtl().toMillis(), System::currentTimeMillis);
                    }
                }
                b = blobs;
            }
        }
        return b;
    }

    @Override
    public List<Map<String, Object>> offers() {
        List<Map<String, Object>> out = new ArrayList<>();
        Worker w = worker;
        Event own = offerEvent;
        List<PeerOffer> all = new ArrayList<>(offers.values());
        all.sort(Comparator.comparingLong((PeerOffer p) -> p.event().createdAt()).reversed());
        if (w != null && own != null) {
            Map<String, Object> m = w.offer().toJson();
            m.put("self", true);
            m.put("event", JSON.convertValue(JSON.valueToTree(eventTree(own)), Map.class));
            out.add(m);
        }
        for (PeerOffer p : all) {
            Map<String, Object> m = p.offer().toJson();
            m.put("self", false);
            m.put("linked", sessions.links().isOpen(PeerIdentity.shortForm(p.offer().did())));
            m.put("view_compute", standing.views().compute(PeerIdentity.shortForm(p.offer().did())));
            m.put("event", eventTree(p.event()));
            out.add(m);
        }
        return out;
    }

    private static Map<String, Object> eventTree(Event e) {
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = JSON.readValue(e.json(), Map.class);
            return m;
        } catch (java.io.IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public String putBlob(byte[] bytes) throws MarketException {
        try {
            return blobs().put(bytes);
        } catch (BlobStore.Refused e) {
            throw new MarketException(e.tooLarge() ? 413 : 507, e.getMessage());
        }
    }

    @Override
    public Optional<byte[]> blob(String sha256Hex) {
        return blobs().get(sha256Hex);
    }

    @Override
    public Map<String, Object> submit(Submission s) throws MarketException {
        start();
        JobSpec spec = s.spec();
        if (!blobs().has(spec.module())) {
            throw new MarketException(404, "module " + spec.module() + " is not in the blob store (PUT it first)");
        }
        if (!blobs().has(spec.input())) {
            throw new MarketException(404, "input " + spec.input() + " is not in the blob store (PUT it first)");
        }
        if (s.worker().equals("local")) {
            return local(s);
        }
        long open = book.counts(JobEntry.Role.BUYER).entrySet().stream()
                .filter(x -> !JobState.of(x.getKey()).isFinal()).mapToLong(Map.Entry::getValue).sum();
        if (open >= config.maxOpenPurchases()) {
            throw new MarketException(429, "this node is buying " + open + " jobs already (max-open-purchases)");
        }
        PeerOffer chosen = s.worker().equals("any") ? cheapest(s) : named(s);
        // the chosen offer fits: unless it is free, it lists one of buyerRails
        String rail = chosen.offer().free() ? "" : WorkerChoice.rail(chosen.offer(), buyerRails(s)).orElse("");
        Request q = new Request(spec, s.maxPriceMsat(), rail, nonce(), selfDid(), s.token());
        try {
            JobEntry e = buyer.submit(PeerIdentity.shortForm(chosen.offer().did()), chosen.key(), q, s.autoPay(),
                    s.owner() == null ? "" : s.owner());
            return JobView.of(e);
        } catch (MarketProtocolException ex) {
            throw new MarketException(409, ex.getMessage());
        }
    }

    private PeerOffer named(Submission s) throws MarketException {
        String peer = PeerIdentity.shortForm(s.worker());
        PeerOffer p = offers.get(peer);
        if (p == null) {
            throw new MarketException(404, "no offer from " + peer + " (is it linked and selling?)");
        }
        String why = WorkerChoice.unfit(candidate(p), s.spec(), s.maxPriceMsat(), buyerRails(s),
                config.minViewCompute());
        if (why != null) {
            throw new MarketException(why.endsWith("no open link") ? 409 : 422, why);
        }
        return p;
    }

    private PeerOffer cheapest(Submission s) throws MarketException {
        List<WorkerChoice.Candidate> all = new ArrayList<>();
        Map<Offer, PeerOffer> back = new java.util.IdentityHashMap<>();
        for (PeerOffer p : offers.values()) {
            WorkerChoice.Candidate c = candidate(p);
            all.add(c);
            back.put(c.offer(), p);
        }
        WorkerChoice.Choice c = WorkerChoice.cheapest(all, s.spec(), s.maxPriceMsat(), buyerRails(s),
                config.minViewCompute());
        if (c.chosen().isEmpty()) {
            throw new MarketException(422, c.reason());
        }
        return back.get(c.chosen().get().offer());
    }

    private WorkerChoice.Candidate candidate(PeerOffer p) {
        String peer = PeerIdentity.shortForm(p.offer().did());
        return new WorkerChoice.Candidate(p.offer(), standing.views().compute(peer), sessions.links().isOpen(peer));
    }

    /**
     * The rails this node may pay the submission with, preferred first: the one it names when this node has it (else
     * none), or, when it names none, all of this node's.
     */
    private List<String> buyerRails(Submission s) {
        if (s.rail() == null || s.rail().isEmpty()) {
            return List.copyOf(settlement.rails().keySet());
        }
        return settlement.rail(s.rail()).map(r -> List.of(r.id())).orElse(List.of());
    }

    private Map<String, Object> local(Submission s) throws MarketException {
        if (execution.isUnsatisfied()) {
            throw new MarketException(503, "this node has no sandbox to run jobs");
        }
        JobSpec spec = s.spec();
        byte[] module = blobs().get(spec.module())
                .orElseThrow(() -> new MarketException(404, "module " + spec.module() + " is not in the blob store"));
        byte[] input = blobs().get(spec.input())
                .orElseThrow(() -> new MarketException(404, "input " + spec.input() + " is not in the blob store"));
        Request q = new Request(spec, s.maxPriceMsat(), "", nonce(), "local", s.token());
        com.fasterxml.jackson.databind.node.ObjectNode stored = q.body();
        if (s.owner() != null && !s.owner().isEmpty()) {
            stored.put("owner", s.owner());
        }
        JobEntry e = JobEntry.fresh(q.digest(), JobEntry.Role.BUYER, "local", stored.toString(),
                JobState.RUNNING.word(), now());
        // on the market's job pool (one at a time, a bounded queue, shared with the jobs this node sells), not on the
        // caller's thread: the answer is the job as it starts, and a full queue is refused busy before anything is kept
        CompletableFuture<Void> saved = new CompletableFuture<>();
        try {
            runner.execute(() -> {
                try {
                    saved.join();
                } catch (java.util.concurrent.CompletionException notKept) {
                    return; // the submission failed with it
                }
                book.save(runLocal(e, module, input, spec));
            });
        } catch (RejectedExecutionException full) {
            throw new MarketException(429, "busy: this node's compute queue is full (" + runner.getQueue().size()
                    + " jobs waiting); try again later");
        }
        try {
            book.save(e);
        } catch (RuntimeException ex) {
            saved.completeExceptionally(ex);
            throw ex;
        }
        saved.complete(null);
        return JobView.of(e);
    }

    /** Runs a local job; its entry as it ended. */
    private JobEntry runLocal(JobEntry e, byte[] module, byte[] input, JobSpec spec) {
        try {
            JobResult r = execution.get().run(module, input, spec);
            return e.moved(JobState.DONE.word(), now()).withResult(ResultJson.write(r));
        } catch (JobFailure f) {
            return e.moved(JobState.FAILED.word(), now()).withError(f.getMessage());
        } catch (RuntimeException ex) {
            LOG.errorf(ex, "local job %s failed", e.id());
            return e.moved(JobState.FAILED.word(), now()).withError("error: " + ex.getMessage());
        }
    }

    private static String nonce() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    @Override
    public Optional<Map<String, Object>> job(String id) {
        return book.find(JobEntry.Role.BUYER, id).map(JobView::of);
    }

    @Override
    public List<Owned> owned(int limit) {
        List<Owned> out = new ArrayList<>();
        for (JobEntry e : book.recent(JobEntry.Role.BUYER, Math.max(0, limit))) {
            try {
                String owner = JSON.readTree(e.request()).path("owner").asText("");
                if (!owner.isEmpty()) {
                    out.add(new Owned(e.id(), owner, JobState.of(e.state()).isFinal()));
                }
            } catch (java.io.IOException ex) {
                LOG.debugf("job %s: its stored request does not read: %s", e.id(), ex.getMessage());
            }
        }
        return out;
    }

    @Override
    public List<Map<String, Object>> jobs(int limit) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (JobEntry e : book.recent(JobEntry.Role.BUYER, Math.max(0, Math.min(limit, 1000)))) {
            out.add(JobView.of(e));
        }
        return out;
    }

    @Override
    public Map<String, Object> pay(String id) throws MarketException {
        start();
        JobEntry e = book.find(JobEntry.Role.BUYER, id).orElseThrow(() -> new MarketException(404, "no job " + id));
        if (e.peer().equals("local") || e.invoice().isEmpty()) {
            throw new MarketException(409, "job " + id + " is " + e.state() + ", it has no invoice to pay");
        }
        try {
            return JobView.of(buyer.pay(id));
        } catch (MarketProtocolException ex) {
            throw new MarketException(409, ex.getMessage());
        }
    }

    @Override
    public Optional<JobResult> result(String id) {
        return book.find(JobEntry.Role.BUYER, id).filter(e -> e.state().equals(JobState.DONE.word()))
                .map(e -> ResultJson.read(e.result()));
    }

    /** The worker-side jobs (for tests and the status page). */
    public Optional<JobEntry> workerJob(String id) {
        return book.find(JobEntry.Role.WORKER, id);
    }

    /** {@code /mesh/status}'s {@code compute} member: jobs per state on both sides, blobs, offers, mismatches. */
    public Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("selling", worker != null);
        // false from the start until the escrows and jobs a restart left are taken up (off the start-up path)
        m.put("resumed", resumed);
        m.put("offers_known", offers.size());
        m.put("worker_jobs", book.counts(JobEntry.Role.WORKER));
        m.put("buyer_jobs", book.counts(JobEntry.Role.BUYER));
        m.put("blobs", blobs().count());
        m.put("blob_bytes", blobs().used());
        m.put("reexecutions_chosen", buyer == null ? 0 : buyer.sampled());
        m.put("reexecution_mismatches", mismatches.get());
        m.put("messages_refused", refusedMessages.get());
        Worker w = worker;
        m.put("cheated", w == null ? 0 : w.cheated());
        // credit balances are negative (debits - credits): income shows as earned msat
        m.put("income_msat", -settlement.ledger().balance(org.fleetmesh.spi.settlement.Accounts.INCOME));
        m.put("rails", List.copyOf(settlement.rails().keySet()));
        m.put("rail", settlement.rail().map(SettlementRail::id).orElse(null)); // the preferred one (older readers)
        return m;
    }

    @PreDestroy
    void stop() {
        for (java.util.concurrent.ExecutorService p : new java.util.concurrent.ExecutorService[] { messages, runner,
                payments, escrows, sweeper }) {
            if (p != null) {
                p.shutdownNow();
            }
        }
    }

    /** The test switches set (docs/OPERATING.md: never in production), as the settings an operator would grep for. */
    static List<String> testSwitchesOn(MarketConfig config) {
        List<String> on = new ArrayList<>();
        if (config.testCheatRate() > 0) {
            on.add("fleetmesh.compute.market.test-cheat-rate=" + config.testCheatRate() + " (results falsified)");
        }
        if (config.testWithholdKey()) {
            on.add("fleetmesh.compute.market.test-withhold-key (paid keys never released)");
        }
        if (config.testNeverPay()) {
            on.add("fleetmesh.compute.market.test-never-pay (bought jobs never paid)");
        }
        return on;
    }
}
