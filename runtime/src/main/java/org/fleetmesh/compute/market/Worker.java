package org.fleetmesh.compute.market;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

import org.fleetmesh.compute.Commitment;
import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Snippet;
import org.fleetmesh.spi.compute.JobBook;
import org.fleetmesh.spi.compute.JobEntry;
import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Preimage;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The worker's side of compute/1.0 (docs/spec/compute.md, "Worker"): takes a request within its offer, fetches what
 * it lacks, runs the job, seals the result under a fresh k, persists, invoices on SHA-256(k) over the request's rail
 * (any the offer lists: the escrow of that rail) and sends the sealed result; when the escrow reports the payment
 * locked in, releases k (settles) and sends it; publishes the job record. Each state is saved in the {@link JobBook}
 * before its side effect. Message handlers return at once: jobs run on {@code runner}.
 */
public final class Worker {
    private static final Logger LOG = Logger.getLogger(Worker.class);

    /** Sends a compute/1.0 message to a peer (short DID); false when it has no open link. */
    public interface Peers {
        boolean send(String peer, String type, ObjectNode body);
    }

    /** The escrow as the worker uses it (the EscrowAgent over one of the node's rails). */
    public interface Payee {
        Invoice open(PaymentHash hash, String peerDid, long amountMsat, String memo);

        void release(Preimage k);

        /** The step of the amounts the rail carries (1000 msat on a Cashu mint in sat): a price is a whole number of it. */
        default long amountStepMsat() {
            return 1;
        }
    }

    /** {@code price} rounded up to a whole number of {@code step} msat (at most 2^63 − 1). */
    static long roundUp(long price, long step) {
        if (step <= 1 || price % step == 0) {
            return price;
        }
        long up = (price / step + 1) * step;
        return up < 0 ? Long.MAX_VALUE : up;
    }

    /** The escrow of each rail this node has, by rail id; empty for a rail it does not have. */
    public interface Payees {
        Optional<Payee> of(String rail);
    }

    /** Checks a request's capability token; null when it may run, else why not. */
    public interface Tokens {
        String problem(Request q, String peerDid);
    }

    /** The settings a worker runs by. {@code cheatRate} is a test switch (docs/OPERATING.md). */
    public record Settings(int queue, int chunkBytes, boolean requireToken, double cheatRate, boolean withholdKey) {
    }

    private final Offer offer;
    private final byte[] nostrSecret;
    private final JobBook book;
    private final BlobStore blobs;
    private final Execution execution;
    private final Executor runner;
    private final Payees payees;
    private final Peers peers;
    private final java.util.function.Consumer<Event> publish;
    private final Tokens tokens;
    private final Settings settings;
    private final LongSupplier seconds;
    private final DoubleSupplier random;
    private final AtomicInteger pending = new AtomicInteger();
    private final Map<String, Fetching> fetching = new ConcurrentHashMap<>();
    private final Map<PaymentHash, String> byHash = new ConcurrentHashMap<>();
    private final AtomicInteger cheated = new AtomicInteger();

    /** A blob's bytes as they arrive; a chunk sent again is compared with what came before, not appended twice. */
    private static final class Part extends ByteArrayOutputStream {
        /** Whether {@code n} bytes of {@code data} are the bytes already held at {@code offset}. */
        boolean holds(int offset, byte[] data, int n) {
            return java.util.Arrays.equals(buf, offset, offset + n, data, 0, n);
        }
    }

    /** A request whose blobs are on their way. */
    private static final class Fetching {
        final String peer;
        final String buyerKey;
        final Request request;
        final Map<String, Part> parts = new ConcurrentHashMap<>();

        Fetching(String peer, String buyerKey, Request request) {
            this.peer = peer;
            this.buyerKey = buyerKey;
            this.request = request;
        }
    }

    public Worker(Offer offer, byte[] nostrSecret, JobBook book, BlobStore blobs, Execution execution, Executor runner,
            Payees payees, Peers peers, java.util.function.Consumer<Event> publish, Tokens tokens,
            Settings settings, LongSupplier seconds, DoubleSupplier random) {
        this.offer = offer;
        this.nostrSecret = nostrSecret.clone();
        this.book = book;
        this.blobs = blobs;
        this.execution = execution;
        this.runner = runner;
        this.payees = payees;
        this.peers = peers;
        this.publish = publish;
        this.tokens = tokens;
        this.settings = settings;
        this.seconds = seconds;
        this.random = random;
    }

    public Offer offer() {
        return offer;
    }

    /** Jobs falsified by the test switch so far. */
    public int cheated() {
        return cheated.get();
    }

    /** A request from {@code peer} (short DID), whose Nostr key (proven on the link) is {@code buyerKey} (hex). */
    public void request(String peer, String buyerKey, JsonNode body) {
        Request q;
        try {
            q = Request.fromJson(body);
        } catch (MarketProtocolException e) {
            // no digest without a readable request: the refusal names none
            peers.send(peer, ComputeMessages.REFUSE, ComputeMessages.refuse("", ComputeMessages.INVALID,
                    e.getMessage()));
            return;
        }
        String id = q.digest();
        String why = refusal(q, peer);
        if (why != null) {
            int colon = why.indexOf(':');
            peers.send(peer, ComputeMessages.REFUSE, ComputeMessages.refuse(id, why.substring(0, colon),
                    why.substring(colon + 1).trim()));
            return;
        }
        Optional<JobEntry> known;
        try {
            known = book.find(JobEntry.Role.WORKER, id);
        } catch (RuntimeException ex) {
            // not known whether this is a new job or a repeated request for one under way here (or done, its answer
            // lost): dropped, never refused, as the buyer repeats a request it has no answer to
            LOG.warnf("job %s: the job book failed (%s); the request is dropped (its buyer sends it again)", id,
                    ex.toString());
            return;
        }
        if (known.isPresent()) {
            // a repeated request (the buyer relinked, or heard nothing): the job's last answer is sent again
            if (known.get().peer().equals(peer)) {
                answerAgain(known.get());
            }
            return;
        }
        if (pending.incrementAndGet() > settings.queue()) {
            pending.decrementAndGet();
            peers.send(peer, ComputeMessages.REFUSE, ComputeMessages.refuse(id, ComputeMessages.BUSY,
                    settings.queue() + " jobs are waiting here"));
            return;
        }
        try {
            long now = seconds.getAsLong();
            JobEntry e = JobEntry.fresh(id, JobEntry.Role.WORKER, peer, q.body().toString(),
                    JobState.REQUESTED.word(), now);
            if (!book.save(e)) {
                pending.decrementAndGet();
                return;
            }
            List<String> missing = new ArrayList<>();
            for (String h : List.of(q.spec().module(), q.spec().input())) {
                if (!blobs.has(h) && !missing.contains(h)) {
                    missing.add(h);
                }
            }
            if (missing.isEmpty()) {
                run(e, q, buyerKey);
                return;
            }
            JobEntry f = e.moved(JobState.FETCHING.word(), now);
            book.save(f);
            fetching.put(id, new Fetching(peer, buyerKey, q));
            peers.send(peer, ComputeMessages.FETCH, ComputeMessages.fetch(id, missing));
        } catch (RuntimeException ex) {
            unrecorded(peer, id, ex);
        }
    }

    /**
     * The job book failed (a database restarting) before the job ran: its place in the queue is given back and the
     * buyer is told to ask again ({@code error}), instead of waiting for an answer that would never come.
     */
    private void unrecorded(String peer, String id, RuntimeException ex) {
        fetching.remove(id);
        pending.decrementAndGet();
        toEnd(id, JobState.FAILED, "error: the worker could not record the job (its job book failed); ask again");
        LOG.warnf("job %s: the job book failed before it ran (%s); the buyer is told to ask again", id, ex.toString());
        peers.send(peer, ComputeMessages.REFUSE, ComputeMessages.refuse(id, "error",
                "the worker could not record the job (its job book failed); ask again"));
    }

    /** Per job, when its last answer was sent again (epoch s): at most one repeat per job in REPEAT_SECONDS. */
    private final Map<String, Long> repeated = new ConcurrentHashMap<>();
    static final long REPEAT_SECONDS = 2;
    static final int MAX_REPEATED = 4096;

    /**
     * Answers a repeated request by the job's state, as the first answer would have (docs/spec/compute.md, "Lost
     * messages"): {@code fetch} for what is still missing, {@code sealed} (once invoiced), {@code sealed} and
     * {@code key} for a job done, {@code refuse} with the saved reason for a job that ended otherwise; nothing while it
     * is taken, running or paid (its next message is coming). At most once per job every {@link #REPEAT_SECONDS}, so
     * a peer repeating a request cannot make the worker send a sealed result more often than that.
     */
    private void answerAgain(JobEntry e) {
        long now = seconds.getAsLong();
        Long last = repeated.get(e.id());
        if (last != null && now - last < REPEAT_SECONDS) {
            return;
        }
        if (repeated.size() >= MAX_REPEATED) {
            repeated.clear();
        }
        repeated.put(e.id(), now);
        JobState s = JobState.of(e.state());
        switch (s) {
            case FETCHING -> {
                Fetching f = fetching.get(e.id());
                if (f == null) {
                    return;
                }
                List<String> missing = new ArrayList<>();
                for (String h : List.of(f.request.spec().module(), f.request.spec().input())) {
                    if (!blobs.has(h) && !missing.contains(h)) {
                        missing.add(h);
                    }
                }
                if (!missing.isEmpty()) {
                    peers.send(e.peer(), ComputeMessages.FETCH, ComputeMessages.fetch(e.id(), missing));
                }
            }
            case SEALED, DONE -> {
                if (e.sealed().isEmpty() || (e.priceMsat() > 0 && e.invoice().isEmpty())) {
                    return; // sealed, not yet invoiced: the sealed message goes out with its invoice
                }
                try {
                    peers.send(e.peer(), ComputeMessages.SEALED, (ObjectNode) ComputeMessages.JSON.readTree(e.sealed()));
                } catch (java.io.IOException | ClassCastException ex) {
                    LOG.warnf("job %s: its saved sealed result does not read: %s", e.id(), ex.getMessage());
                    return;
                }
                if (s == JobState.DONE && !e.key().isEmpty()) {
                    peers.send(e.peer(), ComputeMessages.KEY, ComputeMessages.key(e.id(), e.key()));
                }
            }
            case REFUSED, FAILED, EXPIRED -> {
                String err = e.error().isEmpty() ? s.word() : e.error();
                int colon = err.indexOf(':');
                // the saved error is "<reason>: <detail>" or the reason's words alone (a job failure's message)
                String reason = colon > 0 ? err.substring(0, colon) : err;
                peers.send(e.peer(), ComputeMessages.REFUSE, ComputeMessages.refuse(e.id(), reason, err));
            }
            default -> {
                // requested, running, paid: under way; its next message is coming
            }
        }
    }

    /** Why the request does not fit this worker's offer, as {@code "<reason>: <detail>"}, or null. */
    private String refusal(Request q, String peer) {
        if (!q.buyer().equals(peer)) {
            // the digest binds the buyer: a request naming another node is not this peer's to make
            return ComputeMessages.INVALID + ": the request's buyer is " + Snippet.of(q.buyer(), 200)
                    + ", not this link's peer " + peer;
        }
        JobSpec s = q.spec();
        if (s.fuelLimit() > offer.maxFuel()) {
            return ComputeMessages.LIMITS + ": fuel_limit " + s.fuelLimit() + " is above max_fuel " + offer.maxFuel();
        }
        if (s.memoryPages() > offer.maxMemoryPages()) {
            return ComputeMessages.LIMITS + ": memory_pages " + s.memoryPages() + " is above max_memory_pages "
                    + offer.maxMemoryPages();
        }
        if (!offer.free()) {
            // any rail the offer lists, and the escrow is opened on that rail
            if (!offer.rails().contains(q.rail()) || payees.of(q.rail()).isEmpty()) {
                return ComputeMessages.RAIL + ": this worker takes " + offer.rails() + ", not \"" + q.rail() + "\"";
            }
            if (offer.minPrice() > q.maxPriceMsat()) {
                return ComputeMessages.PRICE + ": min_price " + offer.minPrice() + " msat is above max_price_msat "
                        + q.maxPriceMsat();
            }
        }
        if (q.token().isPresent() || settings.requireToken()) {
            if (q.token().isEmpty()) {
                return ComputeMessages.TOKEN + ": this worker runs jobs only with a capability token";
            }
            String p = tokens.problem(q, peer);
            if (p != null) {
                return ComputeMessages.TOKEN + ": " + p;
            }
        }
        return null;
    }

    /** A chunk of a blob this worker fetched. */
    public void blob(String peer, JsonNode body) {
        String id;
        String hash;
        long offset;
        long total;
        byte[] data;
        try {
            id = ComputeMessages.text(body, "request");
            hash = ComputeMessages.text(body, "hash");
            offset = ComputeMessages.integer(body, "offset");
            total = ComputeMessages.integer(body, "total");
            data = ComputeMessages.base64(body, "data");
        } catch (MarketProtocolException e) {
            LOG.debugf("a blob from %s is malformed: %s", peer, e.getMessage());
            return;
        }
        Fetching f = fetching.get(id);
        if (f == null || !f.peer.equals(peer)) {
            return; // not asked for (or already complete)
        }
        Request q = f.request;
        if (!hash.equals(q.spec().module()) && !hash.equals(q.spec().input())) {
            fail(id, ComputeMessages.INVALID, "blob " + hash + " is not part of the job");
            return;
        }
        if (data.length > ComputeMessages.MAX_CHUNK || total > blobs.maxBlob()) {
            fail(id, ComputeMessages.LIMITS, "a blob is at most " + blobs.maxBlob() + " bytes, a chunk at most "
                    + ComputeMessages.MAX_CHUNK);
            return;
        }
        Part part = f.parts.computeIfAbsent(hash, h -> new Part());
        synchronized (part) {
            int have = part.size();
            if (offset > have || offset + data.length > total) {
                fail(id, ComputeMessages.INVALID, "blob " + hash + ": chunk at " + offset + " after " + have
                        + " bytes of " + total);
                return;
            }
            int from = 0;
            if (offset < have) {
                // sent again (the buyer answered a repeated fetch): the bytes held must be the same
                int overlap = (int) Math.min(have - offset, data.length);
                if (!part.holds((int) offset, data, overlap)) {
                    fail(id, ComputeMessages.INVALID, "blob " + hash + ": a chunk sent again at " + offset
                            + " differs from the bytes sent before");
                    return;
                }
                if (overlap == data.length) {
                    return; // nothing new
                }
                from = overlap;
            }
            part.write(data, from, data.length - from);
            if (part.size() < total) {
                return;
            }
            byte[] whole = part.toByteArray();
            if (!JobSpec.sha256(whole).equals(hash)) {
                fail(id, ComputeMessages.INVALID, "blob " + hash + ": the bytes hash to " + JobSpec.sha256(whole));
                return;
            }
            try {
                blobs.put(whole);
            } catch (BlobStore.Refused r) {
                fail(id, r.tooLarge() ? ComputeMessages.LIMITS : ComputeMessages.BUSY, r.getMessage());
                return;
            }
        }
        if (blobs.has(q.spec().module()) && blobs.has(q.spec().input()) && fetching.remove(id) != null) {
            try {
                book.find(JobEntry.Role.WORKER, id).ifPresent(e -> run(e, q, f.buyerKey));
            } catch (RuntimeException ex) {
                unrecorded(f.peer, id, ex);
            }
        }
    }

    /** Ends a job that had not run yet, telling the buyer why. */
    private void fail(String id, String reason, String detail) {
        Fetching f = fetching.remove(id);
        boolean[] told = new boolean[1];
        try {
            book.find(JobEntry.Role.WORKER, id).ifPresent(e -> {
                if (!JobState.of(e.state()).isFinal()) {
                    book.save(e.moved(JobState.REFUSED.word(), seconds.getAsLong()).withError(reason + ": " + detail));
                    told[0] = true;
                    pending.decrementAndGet();
                    peers.send(e.peer(), ComputeMessages.REFUSE, ComputeMessages.refuse(id, reason, detail));
                }
            });
        } catch (RuntimeException ex) {
            if (f != null && !told[0]) {
                // not recorded; the buyer still hears why, and the place in the queue is given back
                pending.decrementAndGet();
                toEnd(id, JobState.REFUSED, reason + ": " + detail);
                LOG.warnf("job %s: its refusal was not recorded (%s)", id, ex.toString());
                peers.send(f.peer, ComputeMessages.REFUSE, ComputeMessages.refuse(id, reason, detail));
            }
        }
        if (f == null) {
            LOG.debugf("job %s: %s: %s", id, reason, detail);
        }
    }

    /** Moves a job to running and hands it to the runner; throws what the job book throws before anything ran. */
    private void run(JobEntry e, Request q, String buyerKey) {
        JobEntry r = e.moved(JobState.RUNNING.word(), seconds.getAsLong());
        book.save(r);
        try {
            runner.execute(() -> execute(r, q, buyerKey));
        } catch (RejectedExecutionException ex) {
            pending.decrementAndGet();
            try {
                book.save(r.moved(JobState.REFUSED.word(), seconds.getAsLong()).withError("busy: the runner is full"));
            } catch (RuntimeException x) {
                LOG.warnf("job %s: its refusal was not recorded (%s)", e.id(), x.toString());
                toEnd(e.id(), JobState.REFUSED, "busy: the runner is full");
            }
            peers.send(e.peer(), ComputeMessages.REFUSE, ComputeMessages.refuse(e.id(), ComputeMessages.BUSY,
                    "the runner is full"));
        }
    }

    private void execute(JobEntry e, Request q, String buyerKey) {
        try {
            byte[] module = blobs.get(q.spec().module()).orElse(null);
            byte[] input = blobs.get(q.spec().input()).orElse(null);
            if (module == null || input == null) {
                // not fail(): the pending count drops once, in finally
                String why = "the module or input left the store before the job ran";
                book.save(e.moved(JobState.REFUSED.word(), seconds.getAsLong()).withError("blob: " + why));
                peers.send(e.peer(), ComputeMessages.REFUSE, ComputeMessages.refuse(e.id(),
                        ComputeMessages.BLOB_MISSING, why));
                return;
            }
            JobResult result;
            try {
                result = execution.run(module, input, q.spec());
            } catch (JobFailure f) {
                book.save(e.moved(JobState.FAILED.word(), seconds.getAsLong()).withError(f.getMessage()));
                peers.send(e.peer(), ComputeMessages.REFUSE, ComputeMessages.refuse(e.id(), f.reason().words(),
                        f.getMessage()));
                return;
            }
            sealAndInvoice(e, q, buyerKey, result);
        } catch (RuntimeException ex) {
            LOG.errorf(ex, "job %s failed here", e.id());
            try {
                book.find(JobEntry.Role.WORKER, e.id()).ifPresent(now -> {
                    if (!JobState.of(now.state()).isFinal()) {
                        book.save(now.moved(JobState.FAILED.word(), seconds.getAsLong()).withError("error: "
                                + ex.getMessage()));
                    }
                });
            } catch (RuntimeException x) {
                // the job book is down (what failed the job, likely): the buyer hears it all the same
                LOG.warnf("job %s: its failure was not recorded (%s)", e.id(), x.toString());
                toEnd(e.id(), JobState.FAILED, "error: " + ex.getMessage());
            }
            peers.send(e.peer(), ComputeMessages.REFUSE, ComputeMessages.refuse(e.id(), "error",
                    "the worker failed: " + ex.getClass().getSimpleName()));
        } finally {
            pending.decrementAndGet();
        }
    }

    private void sealAndInvoice(JobEntry e, Request q, String buyerKey, JobResult honest) {
        JobResult result = honest;
        if (settings.cheatRate() > 0 && random.getAsDouble() < settings.cheatRate()) {
            result = falsified(honest);
            cheated.incrementAndGet();
        }
        long price = offer.free() ? 0 : offer.price(result.fuelUsed());
        if (price > 0) {
            // a rail that carries whole sat only (a Cashu mint in sat) cannot be asked for 29,008 msat: the price is
            // rounded up to its step here, before it is signed, not refused by the rail after the job ran
            long step = payees.of(q.rail()).map(Payee::amountStepMsat).orElse(1L);
            price = roundUp(price, step);
        }
        if (price > q.maxPriceMsat()) {
            book.save(e.moved(JobState.REFUSED.word(), seconds.getAsLong()).withError("price: " + price + " msat"));
            peers.send(e.peer(), ComputeMessages.REFUSE, ComputeMessages.refuse(e.id(), ComputeMessages.PRICE,
                    "the job used " + result.fuelUsed() + " fuel: " + price + " msat, above max_price_msat "
                            + q.maxPriceMsat()));
            return;
        }
        Preimage k = Preimage.random();
        byte[] key = k.toBytes();
        String commitment = Commitment.of(key, Commitment.Summary.of(result));
        JobRecord rec = new JobRecord(e.id(), q.spec().digest(), q.spec().module(), q.spec().input(), commitment,
                k.hash().hex(), result.fuelUsed(), price, execution.runtime(), buyerKey, Optional.empty());
        Event recordEvent = rec.sign(nostrSecret, seconds.getAsLong());
        Seal.Sealed sealed = Seal.seal(key, e.id(), ResultJson.write(result).getBytes(StandardCharsets.UTF_8));
        String rail = price == 0 ? "" : q.rail();
        // persisted with k before any invoice exists: a crash here loses nothing the buyer could have paid for
        JobEntry s = e.moved(JobState.SEALED.word(), seconds.getAsLong()).withKey(k.revealHex())
                .withPrice(price, rail, "", k.hash().hex())
                .withSealed(ComputeMessages.sealed(e.id(), sealed.nonce(), sealed.ciphertext(), recordEvent, null)
                        .toString())
                .withResult(ResultJson.write(result));
        book.save(s);
        byHash.put(k.hash(), e.id());
        if (price == 0) {
            peers.send(e.peer(), ComputeMessages.SEALED, ComputeMessages.sealed(e.id(), sealed.nonce(),
                    sealed.ciphertext(), recordEvent, null));
            if (!settings.withholdKey()) {
                released(s, k);
            }
            return;
        }
        Payee payee = payees.of(rail).orElseThrow(() -> new IllegalStateException("rail " + rail + " is gone"));
        Invoice inv = payee.open(k.hash(), e.peer(), price, "fleetmesh compute job " + e.id());
        ObjectNode body = ComputeMessages.sealed(e.id(), sealed.nonce(), sealed.ciphertext(), recordEvent,
                inv.paymentRequest());
        JobEntry invoiced = book.find(JobEntry.Role.WORKER, e.id()).orElse(s);
        book.save(invoiced.moved(JobState.SEALED.word(), seconds.getAsLong())
                .withPrice(price, rail, inv.paymentRequest(), k.hash().hex()).withSealed(body.toString()));
        peers.send(e.peer(), ComputeMessages.SEALED, body);
    }

    /** The test switch's lie: one output byte flipped, digests recomputed (the seal and commitment stay consistent). */
    static JobResult falsified(JobResult r) {
        byte[] out = r.stdout().length == 0 ? new byte[] { 'x' } : r.stdout().clone();
        out[0] ^= 0x01;
        return new JobResult(r.exitCode(), out, r.stderr(), r.fuelUsed(), r.moduleHash(), r.inputDigest(),
                JobSpec.sha256(out));
    }

    /** Jobs whose key is being released now (a report of the rail, a resume and a retry may meet on one job). */
    private final java.util.Set<String> releasing = ConcurrentHashMap.newKeySet();

    /**
     * The escrow of {@code hash} is paid (the payment locked in): release k, tell the buyer, publish the record. Throws
     * what the rail throws when the release does not go through (the job stays {@code paid}; {@link #retryPaid} tries
     * again); one release runs at a time per job.
     */
    public void paid(PaymentHash hash) {
        try {
            if (releaseOf(hash)) {
                unreleased.remove(hash);
            } // else another thread releases it now; on failure it keeps the hash
        } catch (RuntimeException ex) {
            // kept until a retry goes through: a job the job book failed to move to paid (a database restarting)
            // would otherwise wait, sealed, until its escrow expired, and the buyer's payment with it
            if (unreleased.size() < MAX_UNRELEASED) {
                unreleased.add(hash);
            }
            throw ex;
        }
    }

    /**
     * Escrows reported paid whose release did not go through yet, tried again by {@link #retryPaid} whatever state
     * their job is in (a job still {@code sealed} is not found by its state).
     */
    private final java.util.Set<PaymentHash> unreleased = ConcurrentHashMap.newKeySet();
    static final int MAX_UNRELEASED = 4096;

    /** A paid report to take up later: it could not be handled now (no thread for it). */
    public void paidLater(PaymentHash hash) {
        if (unreleased.size() < MAX_UNRELEASED) {
            unreleased.add(hash);
        }
    }

    /** Releases the key of the job paid on {@code hash}; false when another thread is releasing it right now. */
    private boolean releaseOf(PaymentHash hash) {
        Optional<JobEntry> found = entry(hash);
        if (found.isEmpty()) {
            LOG.warnf("an escrow on %s was paid, but no job here has that payment hash", hash);
            return true;
        }
        String id = found.get().id();
        if (!releasing.add(id)) {
            return false; // released right now by another thread
        }
        try {
            Optional<JobEntry> e = book.find(JobEntry.Role.WORKER, id); // as it is now that this thread has it
            if (e.isPresent()) {
                release(e.get());
            }
        } finally {
            releasing.remove(id);
        }
        return true;
    }

    /**
     * Jobs to end, by id, with the state and error to save: their end could not be saved when it came (the job book
     * failing); {@link #retryPaid} saves them, so that the worker's own record does not stay open until a restart.
     */
    private final Map<String, String[]> ends = new ConcurrentHashMap<>();

    private void toEnd(String id, JobState to, String error) {
        if (ends.size() < MAX_UNRELEASED) {
            ends.put(id, new String[] { to.word(), error });
        }
    }

    /** Escrows that ended unpaid whose job could not be ended when the report came, by hash (true: expired). */
    private final Map<PaymentHash, Boolean> endedEscrows = new ConcurrentHashMap<>();

    /**
     * Tries again the release of every job left {@code paid} for {@code olderThanSeconds} or more (a release the rail
     * refused for a while: an LND restarting, a mint answering 500); a job whose payment the rail has already given
     * back (the invoice canceled or expired, the HTLC refunded) can no longer be released and ends {@code expired}.
     * Returns how many were tried. Each job on its own: one failing does not hold up the others.
     */
    public int retryPaid(long olderThanSeconds) {
        int tried = 0;
        long now = seconds.getAsLong();
        for (Map.Entry<String, String[]> end : List.copyOf(ends.entrySet())) {
            tried++;
            try {
                book.find(JobEntry.Role.WORKER, end.getKey()).ifPresent(e -> {
                    if (!JobState.of(e.state()).isFinal()) {
                        book.save(e.moved(end.getValue()[0], now).withError(end.getValue()[1]));
                    }
                });
                ends.remove(end.getKey());
            } catch (RuntimeException ex) {
                LOG.debugf("job %s: its end is not saved yet (%s)", end.getKey(), ex.toString());
            }
        }
        for (Map.Entry<PaymentHash, Boolean> end : List.copyOf(endedEscrows.entrySet())) {
            tried++;
            try {
                ended(end.getKey(), end.getValue());
            } catch (RuntimeException ex) {
                LOG.debugf("escrow %s ended; its job is not ended yet (%s)", end.getKey(), ex.toString());
            }
        }
        for (PaymentHash h : List.copyOf(unreleased)) {
            try {
                Optional<JobEntry> e = entry(h);
                if (e.isEmpty() || !e.get().state().equals(JobState.SEALED.word())) {
                    // paid: retried below, once old enough, like every job left paid; ended or gone: nothing to do
                    unreleased.remove(h);
                    continue;
                }
                tried++;
                paid(h);
                LOG.infof("escrow %s: its paid report is taken up now", h);
            } catch (RuntimeException ex) {
                LOG.warnf("escrow %s is paid, but its key is not released yet (%s); tried again later", h,
                        ex.toString());
            }
        }
        for (JobEntry e : book.inStates(JobEntry.Role.WORKER, List.of(JobState.PAID.word()))) {
            if (now - e.updatedAt() < olderThanSeconds || e.paymentHash().isEmpty()) {
                continue;
            }
            tried++;
            try {
                paid(PaymentHash.ofHex(e.paymentHash()));
            } catch (org.fleetmesh.spi.settlement.SettlementException ex) {
                if (ex.reason() == org.fleetmesh.spi.settlement.SettlementException.Reason.ALREADY_CANCELED
                        || ex.reason() == org.fleetmesh.spi.settlement.SettlementException.Reason.EXPIRED) {
                    LOG.errorf("job %s: its payment was returned to the buyer before its key could be released (%s);"
                            + " the job ends expired, and its escrow's income in the ledger was never received", e.id(),
                            ex.getMessage());
                    book.save(e.moved(JobState.EXPIRED.word(), now).withError(
                            "expired: the payment was returned before the key could be released"));
                } else {
                    LOG.warnf("job %s: its key is not released yet (%s); tried again later", e.id(), ex.getMessage());
                }
            } catch (org.fleetmesh.spi.settlement.LedgerException ex) {
                if (ex.reason() == org.fleetmesh.spi.settlement.LedgerException.Reason.ILLEGAL_TRANSITION
                        || ex.reason() == org.fleetmesh.spi.settlement.LedgerException.Reason.UNKNOWN_ESCROW) {
                    // the escrow ended meanwhile (expired, refunded) and its report did not reach the job: end it too
                    LOG.warnf("job %s: its escrow cannot be released (%s); the job ends expired", e.id(),
                            ex.getMessage());
                    book.save(e.moved(JobState.EXPIRED.word(), now).withError("expired: " + ex.getMessage()));
                } else {
                    // the ledger's store failed (a database restarting), or a write met another: not the escrow's end
                    LOG.warnf("job %s: its key is not released yet (%s); tried again later", e.id(), ex.getMessage());
                }
            } catch (RuntimeException ex) {
                LOG.warnf("job %s: its key is not released yet (%s); tried again later", e.id(), ex.toString());
            }
        }
        return tried;
    }

    private void release(JobEntry p) {
        if (p.state().equals(JobState.SEALED.word())) {
            p = p.moved(JobState.PAID.word(), seconds.getAsLong());
            book.save(p);
        }
        if (!p.state().equals(JobState.PAID.word())) {
            return;
        }
        if (settings.withholdKey()) {
            LOG.warnf("job %s is paid; the test switch withholds its key", p.id());
            return;
        }
        Optional<Payee> payee = payees.of(p.rail());
        if (payee.isEmpty()) {
            // the escrow is on the job's rail only: k waits here until that rail is configured again
            LOG.warnf("job %s is paid on rail %s, which this node does not have now; its key is not released", p.id(),
                    p.rail());
            return;
        }
        Preimage k = Preimage.ofHex(p.key());
        payee.get().release(k);
        released(p, k);
    }

    private void released(JobEntry e, Preimage k) {
        JobEntry d = e.moved(JobState.DONE.word(), seconds.getAsLong());
        book.save(d);
        peers.send(e.peer(), ComputeMessages.KEY, ComputeMessages.key(e.id(), k.revealHex()));
        publishFinal(d);
    }

    private void publishFinal(JobEntry d) {
        try {
            JsonNode sealed = ComputeMessages.JSON.readTree(d.sealed());
            Event rec = new org.fleetmesh.nostr.MessageParser(org.fleetmesh.nostr.MessageParser.Limits.DEFAULT)
                    .parseEvent(sealed.get("record").toString());
            JobRecord r = JobRecord.parse(rec);
            String out = ResultJson.read(d.result()).outputDigest();
            publish.accept(r.withOutput(out).sign(nostrSecret, Math.max(seconds.getAsLong(), rec.createdAt() + 1)));
        } catch (Exception ex) {
            LOG.errorf(ex, "the final record of job %s was not published", d.id());
        }
    }

    /** The escrow of {@code hash} ended unpaid (canceled or expired): k stays here. */
    public void ended(PaymentHash hash, boolean expired) {
        try {
            entry(hash).ifPresent(e -> {
                if (!JobState.of(e.state()).isFinal()) {
                    book.save(e.moved(JobState.EXPIRED.word(), seconds.getAsLong())
                            .withError(expired ? "expired: the invoice was not paid in time" : "refunded"));
                }
            });
            endedEscrows.remove(hash);
        } catch (RuntimeException ex) {
            if (endedEscrows.size() < MAX_UNRELEASED) {
                endedEscrows.put(hash, expired); // the escrow's report comes once: ended by the retry
            }
            throw ex;
        }
    }

    private Optional<JobEntry> entry(PaymentHash hash) {
        String id = byHash.get(hash);
        if (id != null) {
            return book.find(JobEntry.Role.WORKER, id);
        }
        for (JobEntry e : book.inStates(JobEntry.Role.WORKER, List.of(JobState.SEALED.word(),
                JobState.PAID.word()))) {
            if (e.paymentHash().equals(hash.hex())) {
                byHash.put(hash, e.id());
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    /** The key of an escrow, for {@code EscrowAgent.resume} (a release that had not reached the rail). */
    public Optional<Preimage> key(PaymentHash hash) {
        return entry(hash).filter(e -> !e.key().isEmpty()).map(e -> Preimage.ofHex(e.key()));
    }

    /**
     * After a restart: jobs that were requested, fetching or running are refused (their runs are gone; the buyer may
     * ask again), and so are priced jobs sealed but not yet invoiced (stopped between saving the sealed result and
     * saving its invoice: the buyer never saw an invoice, so nothing can have been paid, and a repeated request would
     * otherwise be answered by nothing, ever). Paid ones get their key released, and so do free ones sealed (stopped
     * before the release). Sealed ones with their invoice wait for the escrow's reports.
     */
    public void resume() {
        List<JobEntry> stopped = new ArrayList<>(book.inStates(JobEntry.Role.WORKER, List.of(
                JobState.REQUESTED.word(), JobState.FETCHING.word(), JobState.RUNNING.word())));
        List<JobEntry> free = new ArrayList<>();
        for (JobEntry e : book.inStates(JobEntry.Role.WORKER, List.of(JobState.SEALED.word()))) {
            if (e.priceMsat() > 0 && e.invoice().isEmpty()) {
                stopped.add(e);
            } else if (e.priceMsat() == 0 && !e.key().isEmpty() && !settings.withholdKey()) {
                free.add(e); // stopped between saving it and releasing its key: released now
            }
        }
        // each job on its own: one that fails (a rail still down) does not hold up the others
        for (JobEntry e : free) {
            try {
                released(e, Preimage.ofHex(e.key()));
            } catch (RuntimeException ex) {
                LOG.warnf("job %s: its key was not released at resume: %s", e.id(), ex.toString());
            }
        }
        for (JobEntry e : stopped) {
            try {
                book.save(e.moved(JobState.FAILED.word(), seconds.getAsLong()).withError("error: the worker restarted"));
                peers.send(e.peer(), ComputeMessages.REFUSE, ComputeMessages.refuse(e.id(), "error",
                        "the worker restarted; ask again"));
            } catch (RuntimeException ex) {
                LOG.warnf("job %s: not ended at resume: %s", e.id(), ex.toString());
            }
        }
        for (JobEntry e : book.inStates(JobEntry.Role.WORKER, List.of(JobState.PAID.word()))) {
            try {
                paid(PaymentHash.ofHex(e.paymentHash()));
            } catch (RuntimeException ex) {
                LOG.warnf("job %s: its key was not released at resume (%s); tried again while the node runs", e.id(),
                        ex.toString());
            }
        }
    }
}
