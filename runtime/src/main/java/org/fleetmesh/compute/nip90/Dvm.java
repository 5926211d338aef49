package org.fleetmesh.compute.nip90;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.market.Market;
import org.fleetmesh.compute.market.Market.MarketException;
import org.fleetmesh.nostr.Event;

/**
 * The NIP-90 service provider (docs/spec/compute-agent.md, "NIP-90 bridge"): takes kind 5600 requests, runs each
 * through {@link Market#submit}, and answers with feedback (kind 7000) and the result (kind 6600). When the job costs
 * something, the customer is billed first ({@code payment-required} with this node's bolt11) and the result is
 * published only once that bill is paid; a remote worker is paid ({@link Market#pay}) only after the customer paid.
 * {@link #request} is called for each request, {@link #tick} regularly to move pending jobs on. Thread-safe.
 */
public final class Dvm {

    /** Signs an event as this node (the service provider). */
    @FunctionalInterface
    public interface Signer {
        Event sign(int kind, List<List<String>> tags, String content);
    }

    /** Bills customers: a bolt11 for {@code msat} and whether it was paid. */
    public interface Payments {
        /** A bill of {@code msat}, payable for {@code expiry}. */
        Bill bill(long msat, String memo, Duration expiry) throws DvmException;

        boolean paid(String paymentHash);

        /** When the worker's invoice {@code invoice} on {@code rail} expires (epoch ms), if it can be read here. */
        default OptionalLong expiresAtMillis(String rail, String invoice) {
            return OptionalLong.empty();
        }

        /** The request of the bill ended without it: a payment held on it (a hold invoice) is given back. */
        default void forget(String paymentHash) {
        }

        /** Whether a payment has reached the bill (held on it, or taken): such a bill never yields its place. */
        default boolean paymentArrived(String paymentHash) {
            return paid(paymentHash);
        }
    }

    /**
     * What the worker's invoice must outlast the customer's bill by: the node pays the worker only once the bill is
     * paid, and that payment may take up to the rail's payment timeout (60 s by default).
     */
    static final Duration BILL_MARGIN = Duration.ofSeconds(120);
    /** The least time a bill is left to be paid; a worker's invoice that leaves less is not billed. */
    static final Duration MIN_BILL = Duration.ofSeconds(30);

    public record Bill(String bolt11, String paymentHash) {
    }

    /** Gets a module this node does not hold from its {@code url}; the caller checks the hash. */
    @FunctionalInterface
    public interface Fetcher {
        byte[] fetch(String url) throws DvmException;
    }

    /**
     * {@code worker}: "local", "any" or a peer DID; fuel and memory defaults and caps; {@code maxTime} caps the
     * request's {@code time}; {@code maxPriceMsat} caps what a remote job may cost (and a request's {@code bid} lowers
     * it); {@code pricePerKfuel}: what a local run costs, msat per 1000 fuel (rounded up); {@code maxPending} jobs at
     * once; {@code billExpiry}: how long a bill waits to be paid; {@code maxContent}: the most characters the relay
     * stores in an event's content (a result past it is an {@code error}, never billed, never called a success);
     * {@code billYield}: how long a bill nobody has paid holds its place while the pending requests are at
     * {@code maxPending} and another comes (then it ends, its bill canceled, and the newcomer takes its place).
     */
    public record Config(String worker, long defaultFuel, long maxFuel, int memoryPages, Duration maxTime,
            long maxPriceMsat, long pricePerKfuel, int maxPending, Duration billExpiry, int maxContent,
            Duration billYield) {
        public Config(String worker, long defaultFuel, long maxFuel, int memoryPages, Duration maxTime,
                long maxPriceMsat, long pricePerKfuel, int maxPending, Duration billExpiry, int maxContent) {
            this(worker, defaultFuel, maxFuel, memoryPages, maxTime, maxPriceMsat, pricePerKfuel, maxPending,
                    billExpiry, maxContent, Duration.ofSeconds(60));
        }
    }

    private enum Step {
        RUNNING, BILLED, PAYING_WORKER
    }

    private static final class Pending {
        final DvmRequest request;
        final String jobId;
        final boolean local;
        final long deadline;
        Step step = Step.RUNNING;
        Bill bill;
        long amount;
        long billDeadline;
        long billedAt;
        JobResult held;
        /** Ended here while another thread held it (its place given to another request): stepped no more. */
        boolean gone;
        /** Held while the tick steps it or a newcomer takes its place (tried, never waited for, by the latter). */
        final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();

        Pending(DvmRequest request, String jobId, boolean local, long deadline) {
            this.request = request;
            this.jobId = jobId;
            this.local = local;
            this.deadline = deadline;
        }
    }

    private static final int SEEN = 10_000;

    private final Market market;
    private final Payments payments;
    private final Fetcher fetcher;
    private final Signer signer;
    private final java.util.function.Consumer<Event> publisher;
    private final LongSupplier nowMillis;
    private final Config config;
    private final RequestRate rate;
    private final String selfHex;
    private final Map<String, Pending> pending = new LinkedHashMap<>();
    private final Set<String> seen = new LinkedHashSet<>();
    /** Requests past the max-pending check and not yet pending (guarded by {@code pending}). */
    private int starting;
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong limited = new AtomicLong();
    private final AtomicLong results = new AtomicLong();

    /** {@code payments}: null when this node takes no payments (then only free jobs run). */
    public Dvm(Market market, Payments payments, Fetcher fetcher, Signer signer,
            java.util.function.Consumer<Event> publisher, LongSupplier nowMillis, Config config, RequestRate rate,
            String selfPubkeyHex) {
        this.market = market;
        this.payments = payments;
        this.fetcher = fetcher;
        this.signer = signer;
        this.publisher = publisher;
        this.nowMillis = nowMillis;
        this.config = config;
        this.rate = rate;
        this.selfHex = selfPubkeyHex;
    }

    /** Counters for status: accepted, refused (with an error feedback), rate-limited (dropped), results. */
    public Map<String, Long> counters() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("accepted", accepted.get());
        m.put("refused", refused.get());
        m.put("rate_limited", limited.get());
        m.put("bills_yielded", yielded.get());
        m.put("results", results.get());
        synchronized (pending) {
            m.put("pending", (long) pending.size());
        }
        return m;
    }

    /**
     * A kind 5600 event the relay stored. Requests for other providers and repeats are ignored; over a pubkey's rate
     * they are dropped without an answer (an answer would let a flood make this node write); every other refusal is
     * an {@code error} feedback.
     */
    public void request(Event e) {
        if (e.kind() != DvmRequest.KIND) {
            return;
        }
        if (!firstSight(e)) {
            return;
        }
        DvmRequest r;
        try {
            r = DvmRequest.parse(e);
        } catch (DvmException ex) {
            if (!namesAnotherProvider(e) && rate.take(e.pubkey().hex(), nowMillis.getAsLong())) {
                refuseUnparsed(e, ex.getMessage());
            }
            return;
        }
        if (r.forSomeoneElse(selfHex)) {
            return;
        }
        if (!rate.take(e.pubkey().hex(), nowMillis.getAsLong())) {
            limited.incrementAndGet();
            return;
        }
        try {
            start(r);
        } catch (DvmException ex) {
            refuse(r, ex.getMessage());
        }
    }

    /**
     * A kind 5600 request the bridge had no room to queue: answered with an {@code error} feedback "busy" so its
     * customer does not wait for nothing, unless it is a repeat, for another provider, or over its pubkey's rate
     * (then dropped, as {@link #request} would). Nothing is parsed past the tags.
     */
    public void overflow(Event e) {
        if (e.kind() != DvmRequest.KIND) {
            return;
        }
        if (!firstSight(e)) {
            return;
        }
        if (namesAnotherProvider(e)) {
            return;
        }
        if (!rate.take(e.pubkey().hex(), nowMillis.getAsLong())) {
            limited.incrementAndGet();
            return;
        }
        refuseUnparsed(e, "busy: the requests waiting here fill the queue; try later");
    }

    /** False for a request seen before (the last {@value #SEEN} ids are remembered). */
    private boolean firstSight(Event e) {
        synchronized (pending) {
            if (!seen.add(e.id().hex())) {
                return false;
            }
            if (seen.size() > SEEN) {
                Iterator<String> it = seen.iterator();
                it.next();
                it.remove();
            }
            return true;
        }
    }

    /** A {@code p} tag naming another service provider, read from the tags alone (the request may not parse). */
    private boolean namesAnotherProvider(Event e) {
        return e.tags().stream().anyMatch(t -> t.size() >= 2 && t.get(0).equals("p") && !t.get(1).equals(selfHex));
    }

    private void start(DvmRequest r) throws DvmException {
        Pending gave = null;
        synchronized (pending) {
            // requests being started on other threads hold their place too: max-pending holds with several at once
            if (pending.size() + starting >= config.maxPending()) {
                gave = yieldIdleBill();
                if (gave == null) {
                    throw new DvmException("busy: " + (pending.size() + starting) + " jobs are pending here; try later");
                }
            }
            starting++;
        }
        if (gave != null) {
            refuse(gave.request, "payment-required: the bill of " + gave.amount + " msat was not paid within "
                    + config.billYield().toSeconds() + " s while other requests waited; ask again");
        }
        try {
            begin(r);
        } finally {
            synchronized (pending) {
                starting--;
            }
        }
    }

    private void begin(DvmRequest r) throws DvmException {
        if (r.timeMillis() > config.maxTime().toMillis()) {
            throw new DvmException("time: at most " + config.maxTime().toMillis() + " ms here, asked "
                    + r.timeMillis());
        }
        long fuel = r.fuel().orElse(config.defaultFuel());
        if (fuel > config.maxFuel()) {
            throw new DvmException("fuel: at most " + config.maxFuel() + " here, asked " + fuel);
        }
        long maxPrice = Math.min(config.maxPriceMsat(), r.bidMsat().orElse(Long.MAX_VALUE));
        try {
            if (market.blob(r.checksum()).isEmpty()) {
                if (r.url().isEmpty()) {
                    throw new DvmException("module " + r.checksum() + " is not stored here and the request has no url");
                }
                byte[] module = fetcher.fetch(r.url());
                String got = JobSpec.sha256(module);
                if (!got.equals(r.checksum())) {
                    throw new DvmException("checksum mismatch: the module at the url has SHA-256 " + got);
                }
                market.putBlob(module);
            }
            String input = market.putBlob(r.stdin());
            // the clock is the request's created_at and the seed its id: the same request runs the same everywhere
            JobSpec spec = new JobSpec(r.checksum(), input, r.args(), fuel,
                    r.memoryPages().orElse(config.memoryPages()), r.event().createdAt(), r.event().id().hex());
            boolean local = config.worker().equals("local");
            Map<String, Object> view = market.submit(new Market.Submission(config.worker(), spec, maxPrice, "", false,
                    Optional.empty()));
            Object id = view.get("id");
            if (!(id instanceof String jobId)) {
                throw new DvmException("the market gave the job no id");
            }
            synchronized (pending) {
                pending.put(r.event().id().hex(), new Pending(r, jobId, local, nowMillis.getAsLong() + r.timeMillis()));
            }
            accepted.incrementAndGet();
            publish(DvmRequest.FEEDBACK_KIND, DvmEvents.feedback(r, DvmEvents.PROCESSING, null, 0, null), "");
        } catch (MarketException ex) {
            throw new DvmException(ex.getMessage());
        } catch (IllegalArgumentException ex) {
            throw new DvmException("invalid job: " + ex.getMessage());
        }
    }

    /** Requests whose unpaid bills gave their places to newer ones. */
    private final AtomicLong yielded = new AtomicLong();

    /**
     * Called with {@code pending} held and the pending requests at max-pending: ends the request whose bill has waited
     * longest, unpaid, for at least {@code billYield}, cancels its bill and frees its place (that request, which the
     * caller tells); null when there is none. Without it, requests from throwaway keys that are never paid would hold every place for
     * {@code billExpiry} (found by an outside audit). A bill a payment has reached never yields.
     */
    private Pending yieldIdleBill() {
        if (payments == null) {
            return null;
        }
        long now = nowMillis.getAsLong();
        for (Pending p : pending.values()) { // oldest first
            if (!p.lock.tryLock()) {
                continue; // the tick steps it now
            }
            try {
                if (p.gone || p.step != Step.BILLED || now - p.billedAt < config.billYield().toMillis()
                        || payments.paymentArrived(p.bill.paymentHash())) {
                    continue;
                }
                p.gone = true;
                forgetBill(p);
            } finally {
                p.lock.unlock();
            }
            pending.remove(p.request.event().id().hex());
            yielded.incrementAndGet();
            return p;
        }
        return null;
    }

    /** Moves every pending job on by what the market and the payments say now. */
    public void tick() {
        List<Pending> now;
        synchronized (pending) {
            now = new ArrayList<>(pending.values());
        }
        for (Pending p : now) {
            boolean finished;
            p.lock.lock();
            try {
                if (p.gone) {
                    continue; // its place went to another request
                }
                try {
                    finished = step(p);
                } catch (DvmException ex) {
                    refuse(p.request, ex.getMessage());
                    finished = true;
                    forgetBill(p);
                } catch (RuntimeException ex) {
                    refuse(p.request, "internal error: " + ex.getMessage());
                    finished = true;
                    forgetBill(p);
                }
            } finally {
                p.lock.unlock();
            }
            if (finished) {
                synchronized (pending) {
                    pending.remove(p.request.event().id().hex());
                }
            }
        }
    }

    public int pending() {
        synchronized (pending) {
            return pending.size();
        }
    }

    /** True when the job is finished here (its result or an error was published). */
    private boolean step(Pending p) throws DvmException {
        long now = nowMillis.getAsLong();
        Optional<Map<String, Object>> v = market.job(p.jobId);
        if (v.isEmpty()) {
            throw new DvmException("the job " + p.jobId + " is no longer known");
        }
        String state = String.valueOf(v.get().get("state"));
        if (state.equals("refused") || state.equals("failed") || state.equals("expired")) {
            Object err = v.get().get("error");
            throw new DvmException((p.step == Step.RUNNING ? "" : "after payment: ") + "the job " + state
                    + (err == null ? "" : ": " + err));
        }
        switch (p.step) {
            case RUNNING -> {
                if (!p.local && state.equals("sealed")) {
                    long price = number(v.get().get("price_msat"));
                    if (price > 0) {
                        // the customer's bill expires before the worker's invoice does, with a margin to pay it: a
                        // bill paid after the worker's invoice expired would take the customer's money for nothing
                        Object rail = v.get().get("rail");
                        Object invoice = v.get().get("invoice");
                        OptionalLong workerEnds = rail == null || invoice == null ? OptionalLong.empty()
                                : payments == null ? OptionalLong.empty()
                                        : payments.expiresAtMillis(String.valueOf(rail), String.valueOf(invoice));
                        bill(p, price, now, workerEnds);
                    }
                    return false;
                }
                if (state.equals("done")) {
                    JobResult res = market.result(p.jobId)
                            .orElseThrow(() -> new DvmException("the job is done but its result is not here"));
                    fits(res, "");
                    long amount = p.local ? price(res.fuelUsed()) : 0;
                    if (amount > 0) {
                        long bid = p.request.bidMsat().orElse(Long.MAX_VALUE);
                        if (amount > bid) {
                            throw new DvmException("price " + amount + " msat (" + res.fuelUsed()
                                    + " fuel) is over the bid of " + bid + " msat");
                        }
                        p.held = res;
                        bill(p, amount, now, OptionalLong.empty());
                        return false;
                    }
                    publishResult(p, res);
                    return true;
                }
                if (now > p.deadline) {
                    throw new DvmException("timeout: no result within " + p.request.timeMillis() + " ms");
                }
                return false;
            }
            case BILLED -> {
                if (payments.paid(p.bill.paymentHash())) {
                    if (p.held != null) {
                        publishResult(p, p.held);
                        return true;
                    }
                    try {
                        market.pay(p.jobId);
                    } catch (MarketException ex) {
                        throw new DvmException("after payment: the worker could not be paid: " + ex.getMessage());
                    }
                    p.step = Step.PAYING_WORKER;
                    return false;
                }
                if (now > p.billDeadline) {
                    throw new DvmException("payment-required: the bill of " + p.amount
                            + " msat was not paid in time");
                }
                return false;
            }
            case PAYING_WORKER -> {
                if (state.equals("done")) {
                    JobResult res = market.result(p.jobId)
                            .orElseThrow(() -> new DvmException("after payment: the job is done but has no result"));
                    publishResult(p, res);
                    return true;
                }
                if (now > p.billDeadline + config.billExpiry().toMillis()) {
                    throw new DvmException("after payment: the worker did not release the result in time");
                }
                return false;
            }
            default -> throw new IllegalStateException(p.step.toString());
        }
    }

    /** A request that ended with an error while billed: its bill, if a payment is held on it, is given back. */
    private void forgetBill(Pending p) {
        if (p.bill != null && p.step == Step.BILLED && payments != null) {
            try {
                payments.forget(p.bill.paymentHash());
            } catch (RuntimeException ex) {
                // the held payment returns when its HTLC times out
            }
        }
    }

    private void bill(Pending p, long amount, long now, OptionalLong workerEnds) throws DvmException {
        if (payments == null) {
            throw new DvmException("the job costs " + amount + " msat and this node takes no payments");
        }
        long expiry = config.billExpiry().toMillis();
        if (workerEnds.isPresent()) {
            expiry = Math.min(expiry, workerEnds.getAsLong() - now - BILL_MARGIN.toMillis());
            if (expiry < MIN_BILL.toMillis()) {
                throw new DvmException("the worker's invoice expires too soon to bill it (in "
                        + Math.max(0, (workerEnds.getAsLong() - now) / 1000) + " s)");
            }
        }
        p.bill = payments.bill(amount, "fleetmesh NIP-90 job " + p.request.event().id().hex().substring(0, 16),
                Duration.ofMillis(expiry));
        p.amount = amount;
        p.billDeadline = now + expiry;
        p.billedAt = now;
        p.step = Step.BILLED;
        publish(DvmRequest.FEEDBACK_KIND, DvmEvents.feedback(p.request, DvmEvents.PAYMENT_REQUIRED, null, amount,
                p.bill.bolt11()), "");
    }

    private long price(long fuel) {
        long kfuel = fuel / 1000 + (fuel % 1000 == 0 ? 0 : 1);
        return Math.multiplyExact(kfuel, config.pricePerKfuel());
    }

    /** Refuses a result the relay would not store as a kind 6600 content, before it is billed or announced. */
    private void fits(JobResult res, String when) throws DvmException {
        int n = DvmEvents.content(res).length();
        if (n > config.maxContent()) {
            throw new DvmException(when + "output too large: the result is " + n + " characters as content, this"
                    + " relay stores at most " + config.maxContent());
        }
    }

    private void publishResult(Pending p, JobResult res) throws DvmException {
        fits(res, p.step == Step.RUNNING ? "" : "after payment: ");
        publish(DvmRequest.RESULT_KIND, DvmEvents.result(p.request, res, p.amount, p.bill == null ? null
                : p.bill.bolt11()), DvmEvents.content(res));
        publish(DvmRequest.FEEDBACK_KIND, DvmEvents.feedback(p.request, DvmEvents.SUCCESS, null, 0, null), "");
        results.incrementAndGet();
    }

    private void refuse(DvmRequest r, String reason) {
        refused.incrementAndGet();
        publish(DvmRequest.FEEDBACK_KIND, DvmEvents.feedback(r, DvmEvents.ERROR, reason, 0, null), "");
    }

    private void refuseUnparsed(Event e, String reason) {
        refused.incrementAndGet();
        List<List<String>> tags = List.of(List.of("status", DvmEvents.ERROR, reason), List.of("e", e.id().hex()),
                List.of("p", e.pubkey().hex()));
        publish(DvmRequest.FEEDBACK_KIND, tags, "");
    }

    private void publish(int kind, List<List<String>> tags, String content) {
        publisher.accept(signer.sign(kind, tags, content));
    }

    private static long number(Object o) {
        return o instanceof Number n ? n.longValue() : 0;
    }
}
