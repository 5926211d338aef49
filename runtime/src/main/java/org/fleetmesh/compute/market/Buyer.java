package org.fleetmesh.compute.market;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;

import org.fleetmesh.compute.Commitment;
import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.compute.JobBook;
import org.fleetmesh.spi.compute.JobEntry;
import org.fleetmesh.spi.settlement.DecodedRequest;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementException;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The buyer's side of compute/1.0 (docs/spec/compute.md, "Buyer"): sends the request, serves the module and input the
 * worker fetches, checks the sealed result's record and invoice before paying, pays only from {@code sealed} (moving
 * to {@code paying} first, so a restart follows the payment instead of paying again), learns k from the payment (or
 * the {@code key} message), opens the seal and checks the commitment and fuel; re-executes a sample here. Each state
 * is saved in the {@link JobBook} before its side effect. A job is paid on the rail its request names, and its
 * record keeps that rail, so a restart follows the payment on the same rail.
 */
public final class Buyer {
    private static final Logger LOG = Logger.getLogger(Buyer.class);
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);

    /** How the buyer pays (one of the node's rails). */
    public interface Payer {
        DecodedRequest decode(String invoice);

        PaymentResult pay(String invoice, long maxFeeMsat);
    }

    /** Each rail this node pays with, by rail id; empty for a rail it does not have. */
    public interface Payers {
        Optional<Payer> of(String rail);
    }

    /** Whether to re-execute a job of {@code worker} here. */
    public interface Sampler {
        boolean sample(String worker, String jobId);
    }

    /** A re-execution that disagreed with the worker's signed record: evidence for a compute finding. */
    public interface Findings {
        void mismatch(JobEntry job, Event record, JobResult claimed, JobResult local, Preimage k);
    }

    /**
     * {@code resendSeconds}: a job that waits on its worker ({@code requested}, {@code fetching}, a free job
     * {@code sealed} without its key) and has heard nothing from it nor sent it anything this long has its request
     * sent again (0: only when the worker's link opens again).
     */
    public record Settings(long maxFeeMsat, int chunkBytes, long expirySeconds, boolean neverPay, long resendSeconds) {
        public Settings(long maxFeeMsat, int chunkBytes, long expirySeconds, boolean neverPay) {
            this(maxFeeMsat, chunkBytes, expirySeconds, neverPay, 0);
        }
    }

    private final String selfPubkeyHex;
    private final JobBook book;
    private final BlobStore blobs;
    private final Payers payers;
    private final Optional<Execution> execution;
    private final Executor runner;
    private final Worker.Peers peers;
    private final Sampler sampler;
    private final Findings findings;
    private final Settings settings;
    private final LongSupplier seconds;

    public Buyer(String selfPubkeyHex, JobBook book, BlobStore blobs, Payers payers,
            Optional<Execution> execution, Executor runner, Worker.Peers peers, Sampler sampler, Findings findings,
            Settings settings, LongSupplier seconds) {
        this.selfPubkeyHex = selfPubkeyHex;
        this.book = book;
        this.blobs = blobs;
        this.payers = payers;
        this.execution = execution;
        this.runner = runner;
        this.peers = peers;
        this.sampler = sampler;
        this.findings = findings;
        this.settings = settings;
        this.seconds = seconds;
    }

    /**
     * Sends {@code q} to {@code worker} (short DID) whose link proved {@code workerKey}; saved first. The stored request
     * also keeps {@code auto_pay} and {@code worker_key} (and {@code owner}), which are not sent.
     */
    public JobEntry submit(String worker, PubKey workerKey, Request q, boolean autoPay) throws MarketProtocolException {
        return submit(worker, workerKey, q, autoPay, "");
    }

    /** The same, keeping {@code owner} (when not empty) in the stored request: who submitted it, never sent. */
    public JobEntry submit(String worker, PubKey workerKey, Request q, boolean autoPay, String owner)
            throws MarketProtocolException {
        ObjectNode stored = q.body();
        stored.put("auto_pay", autoPay);
        stored.put("worker_key", workerKey.hex());
        if (!owner.isEmpty()) {
            stored.put("owner", owner);
        }
        JobEntry e = JobEntry.fresh(q.digest(), JobEntry.Role.BUYER, worker, stored.toString(),
                JobState.REQUESTED.word(), seconds.getAsLong());
        if (!book.save(e)) {
            throw new MarketProtocolException("a job with this request digest exists");
        }
        if (!peers.send(worker, ComputeMessages.REQUEST, q.body())) {
            JobEntry f = e.moved(JobState.FAILED.word(), seconds.getAsLong()).withError("no link to " + worker);
            book.save(f);
            return f;
        }
        lastActive.put(e.id(), seconds.getAsLong());
        return e;
    }

    /**
     * Per job, when its request was last sent or its worker's last {@code fetch} came (epoch s), for
     * {@link #sweep}'s resend; the job's update time else.
     */
    private final java.util.Map<String, Long> lastActive = new java.util.concurrent.ConcurrentHashMap<>();

    /** Whether a job waits on something the worker sends, so that a request sent again is answered usefully. */
    private static boolean waiting(JobEntry e) {
        JobState s = JobState.of(e.state());
        // a free job sealed but without its key: the key message was lost (a paid job learns k from the payment)
        return s == JobState.REQUESTED || s == JobState.FETCHING || (s == JobState.SEALED && e.priceMsat() == 0);
    }

    /**
     * The link to {@code peer} opened (again): every job waiting on that worker has its request sent again, since
     * what was sent on the link before may have been lost with it. The worker answers a repeated request by the
     * job's state (docs/spec/compute.md, "Lost messages"). Returns how many were sent.
     */
    public int relinked(String peer) {
        int n = 0;
        for (JobEntry e : book.inStates(JobEntry.Role.BUYER, List.of(JobState.REQUESTED.word(),
                JobState.FETCHING.word(), JobState.SEALED.word()))) {
            if (e.peer().equals(peer) && waiting(e) && sendAgain(e)) {
                n++;
            }
        }
        return n;
    }

    private boolean sendAgain(JobEntry e) {
        if (!peers.send(e.peer(), ComputeMessages.REQUEST, request(e).body())) {
            return false;
        }
        lastActive.put(e.id(), seconds.getAsLong());
        LOG.debugf("job %s: its request was sent to %s again", e.id(), e.peer());
        return true;
    }

    private Optional<JobEntry> mine(String peer, JsonNode body) {
        JsonNode id = body == null ? null : body.get("request");
        if (id == null || !id.isTextual()) {
            return Optional.empty();
        }
        return book.find(JobEntry.Role.BUYER, id.textValue()).filter(e -> e.peer().equals(peer));
    }

    private static Request request(JobEntry e) {
        try {
            return Request.fromJson(ComputeMessages.JSON.readTree(e.request()));
        } catch (Exception ex) {
            throw new IllegalStateException("job " + e.id() + ": its stored request does not read", ex);
        }
    }

    private static JsonNode stored(JobEntry e, String member) {
        try {
            return ComputeMessages.JSON.readTree(e.request()).path(member);
        } catch (Exception ex) {
            return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
        }
    }

    /** The worker asks for blobs: only the job's own module and input are served, in chunks. */
    public void fetch(String peer, JsonNode body) {
        Optional<JobEntry> found = mine(peer, body);
        if (found.isEmpty()) {
            return;
        }
        JobEntry e = found.get();
        JobState s = JobState.of(e.state());
        if (s != JobState.REQUESTED && s != JobState.FETCHING) {
            return;
        }
        Request q = request(e);
        lastActive.put(e.id(), seconds.getAsLong());
        if (s == JobState.REQUESTED) {
            e = e.moved(JobState.FETCHING.word(), seconds.getAsLong());
            book.save(e);
        }
        JsonNode hashes = body.path("hashes");
        if (!hashes.isArray() || hashes.size() > ComputeMessages.MAX_FETCH) {
            return;
        }
        for (JsonNode h : hashes) {
            String hash = h.asText();
            if (!hash.equals(q.spec().module()) && !hash.equals(q.spec().input())) {
                continue; // never serve what the job does not name
            }
            Optional<byte[]> bytes = blobs.get(hash);
            if (bytes.isEmpty()) {
                book.find(JobEntry.Role.BUYER, e.id()).ifPresent(now -> book.save(now.moved(JobState.FAILED.word(),
                        seconds.getAsLong()).withError("blob " + hash + " is no longer in this node's store")));
                return;
            }
            byte[] b = bytes.get();
            int chunk = Math.min(settings.chunkBytes(), ComputeMessages.MAX_CHUNK);
            for (int off = 0; off < b.length || off == 0; off += chunk) {
                int n = Math.min(chunk, b.length - off);
                byte[] part = java.util.Arrays.copyOfRange(b, off, off + n);
                peers.send(peer, ComputeMessages.BLOB, ComputeMessages.blob(e.id(), hash, off, b.length, part));
                if (b.length == 0) {
                    break;
                }
            }
        }
    }

    /** The worker refused or could not run the job. */
    public void refuse(String peer, JsonNode body) {
        mine(peer, body).ifPresent(e -> {
            JobState s = JobState.of(e.state());
            if (s.isFinal() || s == JobState.PAYING || s == JobState.PAID) {
                return;
            }
            String reason = body.path("reason").asText("");
            String detail = body.path("detail").asText("");
            boolean failure = false;
            for (JobFailure.Reason r : JobFailure.Reason.values()) {
                failure |= reason.equals(r.words());
            }
            JobState to = failure || reason.equals("error") ? JobState.FAILED : JobState.REFUSED;
            String why = detail.startsWith(reason) ? detail : reason + ": " + detail;
            book.save(e.moved(to.word(), seconds.getAsLong()).withError(why));
        });
    }

    /** The sealed result, the signed record and the invoice: checked, then paid when the job said auto-pay. */
    public void sealed(String peer, JsonNode body) {
        Optional<JobEntry> found = mine(peer, body);
        if (found.isEmpty()) {
            return;
        }
        JobEntry e = found.get();
        JobState s = JobState.of(e.state());
        if (s != JobState.REQUESTED && s != JobState.FETCHING) {
            return;
        }
        Request q = request(e);
        String problem;
        JobRecord rec = null;
        String invoice = null;
        long price = 0;
        try {
            ComputeMessages.base64(body, "nonce");
            ComputeMessages.base64(body, "ciphertext");
            Event ev = PARSER.parseEvent(body.path("record").toString());
            rec = JobRecord.parse(ev);
            problem = JobRecord.mismatch(ev, rec, q, PubKey.ofHex(stored(e, "worker_key").asText()), selfPubkeyHex);
            JsonNode inv = body.get("invoice");
            price = rec.priceMsat();
            if (problem == null && price > 0) {
                if (inv == null || !inv.isTextual()) {
                    problem = "invoice: the record asks " + price + " msat and no invoice came";
                } else if (payers.of(q.rail()).isEmpty()) {
                    // the request named the rail: the invoice is paid on it or not at all
                    problem = q.rail().isEmpty() ? "rail: this node has no rail to pay with"
                            : "rail: this node has no rail " + q.rail() + " to pay with";
                } else {
                    invoice = inv.textValue();
                    DecodedRequest d = payers.of(q.rail()).get().decode(invoice);
                    if (!d.paymentHash().hex().equals(rec.paymentHash())) {
                        problem = "invoice: its payment hash " + d.paymentHash().hex() + " is not the record's "
                                + rec.paymentHash();
                    } else if (d.amountMsat().isEmpty() || d.amountMsat().getAsLong() != price) {
                        problem = "invoice: its amount is not the record's price " + price + " msat";
                    } else if (price > q.maxPriceMsat()) {
                        problem = "price: " + price + " msat is above max_price_msat " + q.maxPriceMsat();
                    }
                }
            }
        } catch (MarketProtocolException | ProtocolException | IllegalArgumentException | SettlementException ex) {
            problem = "sealed: " + ex.getMessage();
        }
        if (problem != null) {
            book.save(e.moved(JobState.FAILED.word(), seconds.getAsLong()).withError(problem));
            LOG.warnf("job %s: the sealed result of %s is refused: %s", e.id(), peer, problem);
            return;
        }
        JobEntry sealedEntry = e.moved(JobState.SEALED.word(), seconds.getAsLong())
                .withPrice(price, price == 0 ? "" : q.rail(), invoice, rec.paymentHash())
                .withSealed(body.toString());
        book.save(sealedEntry);
        if (price > 0 && stored(e, "auto_pay").asBoolean(false)) {
            try {
                pay(e.id());
            } catch (MarketProtocolException ex) {
                LOG.warnf("job %s: %s", e.id(), ex.getMessage());
            }
        }
    }

    /** Pays a sealed job's invoice: only from {@code sealed}, moving to {@code paying} before the rail is called. */
    public JobEntry pay(String id) throws MarketProtocolException {
        JobEntry e = book.find(JobEntry.Role.BUYER, id)
                .orElseThrow(() -> new MarketProtocolException("no job " + id));
        if (!e.state().equals(JobState.SEALED.word()) || e.invoice().isEmpty()) {
            throw new MarketProtocolException("job " + id + " is " + e.state() + "; only a sealed job with an invoice"
                    + " is paid");
        }
        if (payers.of(e.rail()).isEmpty()) {
            throw new MarketProtocolException("job " + id + " is billed on rail " + e.rail()
                    + ", which this node does not have now");
        }
        if (settings.neverPay()) {
            LOG.warnf("job %s: the test switch never pays", id);
            return e;
        }
        JobEntry p = e.moved(JobState.PAYING.word(), seconds.getAsLong());
        if (!book.save(p)) {
            throw new MarketProtocolException("job " + id + " moved meanwhile");
        }
        follow(p);
        return p;
    }

    /**
     * Jobs whose payment a thread follows now. A job left {@code paying} that none follows (its follower failed on the
     * job book, a database restarting, or found no thread) is followed again by {@link #sweep}.
     */
    private final java.util.Set<String> followed = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Calls the rail (pay is repeatable: a second call follows the first payment) until the payment ends. */
    private void follow(JobEntry p) {
        if (!followed.add(p.id())) {
            return; // followed already
        }
        try {
            runner.execute(() -> {
                try {
                    following(p);
                } catch (RuntimeException ex) {
                    LOG.warnf("job %s: following the payment failed (%s); the sweep follows it again", p.id(),
                            ex.toString());
                } finally {
                    followed.remove(p.id());
                }
            });
        } catch (RejectedExecutionException ex) {
            followed.remove(p.id());
            LOG.warnf("job %s: no thread to follow the payment now; the sweep follows it", p.id());
        }
    }

    private void following(JobEntry p) {
        if (book.find(JobEntry.Role.BUYER, p.id()).map(x -> !x.state().equals(JobState.PAYING.word())).orElse(true)) {
            return; // it moved on meanwhile (the key came; a follower before this one ended it)
        }
        Payer payer = payers.of(p.rail()).orElseThrow(() -> new IllegalStateException("job " + p.id()
                + ": this node does not have its rail " + p.rail() + " now"));
        Instant expires = payer.decode(p.invoice()).expiresAt();
        while (true) {
            PaymentResult r;
            try {
                r = payer.pay(p.invoice(), settings.maxFeeMsat());
            } catch (SettlementException ex) {
                if (ex.reason() == SettlementException.Reason.EXPIRED) {
                    end(p.id(), JobState.EXPIRED, "expired: " + ex.getMessage());
                    return;
                }
                r = PaymentResult.pending(ex.getMessage()); // the call failed; the payment may be in flight
            }
            if (r.succeeded()) {
                keyLearned(p.id(), r.preimage().get());
                return;
            }
            if (r.status() == PaymentResult.Status.FAILED) {
                boolean expired = !Instant.ofEpochSecond(seconds.getAsLong()).isBefore(expires)
                        || r.failure().get() == SettlementException.Reason.EXPIRED
                        || r.failure().get() == SettlementException.Reason.ALREADY_CANCELED
                        // the payee failed the HTLCs back: its hold invoice was canceled (or ran out)
                        || r.failure().get() == SettlementException.Reason.UNKNOWN_PAYMENT_HASH;
                end(p.id(), expired ? JobState.EXPIRED : JobState.FAILED, (expired ? "expired: " : "payment failed: ")
                        + r.detail());
                return;
            }
            if (book.find(JobEntry.Role.BUYER, p.id()).map(x -> JobState.of(x.state()).isFinal()
                    || x.state().equals(JobState.PAID.word())).orElse(true)) {
                return; // the key came by message meanwhile
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void end(String id, JobState to, String why) {
        book.find(JobEntry.Role.BUYER, id).ifPresent(e -> {
            if (!JobState.of(e.state()).isFinal() && !e.state().equals(JobState.PAID.word())) {
                book.save(e.moved(to.word(), seconds.getAsLong()).withError(why));
            }
        });
    }

    /** The worker sent k (a free job, or after settling). */
    public void key(String peer, JsonNode body) {
        Optional<JobEntry> e = mine(peer, body);
        if (e.isEmpty() || e.get().paymentHash().isEmpty()) {
            return;
        }
        Preimage k;
        try {
            k = Preimage.ofHex(ComputeMessages.text(body, "key"));
        } catch (MarketProtocolException | IllegalArgumentException ex) {
            return;
        }
        if (!k.unlocks(PaymentHash.ofHex(e.get().paymentHash()))) {
            LOG.warnf("job %s: %s sent a key that is not the preimage of the payment hash", e.get().id(), peer);
            return;
        }
        keyLearned(e.get().id(), k);
    }

    /** k is known: saved (paid), then the seal opened and the result checked against the record. */
    private synchronized void keyLearned(String id, Preimage k) {
        JobEntry e = book.find(JobEntry.Role.BUYER, id).orElse(null);
        if (e == null) {
            return;
        }
        JobState s = JobState.of(e.state());
        if (s.isFinal() && s != JobState.EXPIRED && s != JobState.FAILED) {
            return;
        }
        if (s != JobState.PAID) {
            e = e.moved(JobState.PAID.word(), seconds.getAsLong()).withKey(k.revealHex()).withError("");
            book.save(e);
        }
        open(e, k);
    }

    /** A paid job (k saved) whose result was not opened yet: opened now, unless it moved meanwhile. */
    private synchronized void reopen(String id) {
        JobEntry e = book.find(JobEntry.Role.BUYER, id).orElse(null);
        if (e != null && e.state().equals(JobState.PAID.word()) && !e.key().isEmpty()) {
            open(e, Preimage.ofHex(e.key()));
        }
    }

    /**
     * Opens the seal and checks the result against the record: done, or failed for what the worker sent. A failure
     * of the job book itself is thrown, never taken for the worker's: the job stays paid and is opened again (by the
     * sweep, or at the next start).
     */
    private void open(JobEntry e, Preimage k) {
        Event ev = null;
        JobResult r = null;
        String problem;
        try {
            JsonNode sealed = ComputeMessages.JSON.readTree(e.sealed());
            ev = PARSER.parseEvent(sealed.path("record").toString());
            JobRecord rec = JobRecord.parse(ev);
            byte[] plain = Seal.open(k.toBytes(), ComputeMessages.base64(sealed, "nonce"), e.id(),
                    ComputeMessages.base64(sealed, "ciphertext"));
            r = ResultJson.read(new String(plain, StandardCharsets.UTF_8));
            problem = null;
            if (!Commitment.of(k.toBytes(), Commitment.Summary.of(r)).equals(rec.commitment())) {
                problem = "commitment: the opened result does not match the record's commitment";
            } else if (r.fuelUsed() != rec.fuel()) {
                problem = "fuel: the result says " + r.fuelUsed() + ", the record " + rec.fuel();
            } else if (!org.fleetmesh.compute.JobSpec.sha256(r.stdout()).equals(r.outputDigest())
                    || !r.moduleHash().equals(rec.module()) || !r.inputDigest().equals(rec.input())) {
                problem = "result: its digests do not match its bytes or the job";
            }
        } catch (Exception ex) {
            problem = "sealed: " + ex.getMessage();
        }
        if (problem != null) {
            book.save(e.moved(JobState.FAILED.word(), seconds.getAsLong()).withError(problem));
            return;
        }
        JobEntry done = e.moved(JobState.DONE.word(), seconds.getAsLong()).withResult(ResultJson.write(r));
        if (book.save(done)) {
            sample(done, ev, r, k);
        }
    }

    private final java.util.concurrent.atomic.AtomicLong sampled = new java.util.concurrent.atomic.AtomicLong();

    /** Jobs chosen for re-execution so far (each is chosen when it ends done, before its re-execution starts). */
    public long sampled() {
        return sampled.get();
    }

    private void sample(JobEntry done, Event record, JobResult claimed, Preimage k) {
        if (execution.isEmpty() || !sampler.sample(done.peer(), done.id())) {
            return;
        }
        sampled.incrementAndGet();
        try {
            runner.execute(() -> reexecute(done, record, claimed, k));
        } catch (RejectedExecutionException ex) {
            LOG.warnf("job %s: no thread to re-execute it", done.id());
        }
    }

    private void reexecute(JobEntry done, Event record, JobResult claimed, Preimage k) {
        Request q = request(done);
        Optional<byte[]> module = blobs.get(q.spec().module());
        Optional<byte[]> input = blobs.get(q.spec().input());
        if (module.isEmpty() || input.isEmpty()) {
            LOG.warnf("job %s: not re-executed, its blobs left the store", done.id());
            return;
        }
        boolean match;
        JobResult local = null;
        try {
            local = execution.get().run(module.get(), input.get(), q.spec());
            match = local.exitCode() == claimed.exitCode() && local.fuelUsed() == claimed.fuelUsed()
                    && local.outputDigest().equals(claimed.outputDigest());
        } catch (JobFailure f) {
            if (f.reason() == JobFailure.Reason.TIMEOUT) {
                // this node's wall clock, not the job, ended it: nothing is known about the worker's result
                LOG.warnf("job %s: not judged, the re-execution here timed out", done.id());
                return;
            }
            match = false;
            LOG.warnf("job %s: the worker returned a result, the re-execution here: %s", done.id(), f.getMessage());
        }
        Verdict v = new Verdict(done, record, claimed, local, k, match);
        try {
            v.record();
        } catch (RuntimeException ex) {
            // the job book (or the findings' store) failed, a database restarting: the verdict is kept here and the
            // sweep records it; lost only if the node also stops before that (the start re-executes it again)
            if (verdicts.size() < MAX_VERDICTS) {
                verdicts.put(done.id(), v);
            }
            LOG.warnf("job %s: its re-execution's verdict (%s) was not recorded (%s); the sweep records it", done.id(),
                    match ? "match" : "mismatch", ex.toString());
        }
    }

    /** Verdicts of re-executions that could not be recorded yet, by job id (at most {@link #MAX_VERDICTS}). */
    private final java.util.Map<String, Verdict> verdicts = new java.util.concurrent.ConcurrentHashMap<>();
    static final int MAX_VERDICTS = 1024;

    /** A re-execution's outcome: saved on the job, then (a mismatch) handed to the findings, each once. */
    private final class Verdict {
        final JobEntry done;
        final Event record;
        final JobResult claimed;
        final JobResult local;
        final Preimage k;
        final boolean match;
        volatile boolean saved;
        int tries;

        Verdict(JobEntry done, Event record, JobResult claimed, JobResult local, Preimage k, boolean match) {
            this.done = done;
            this.record = record;
            this.claimed = claimed;
            this.local = local;
            this.k = k;
            this.match = match;
        }

        /** Records what is not recorded yet; throws what the stores throw. */
        synchronized void record() {
            if (!saved) {
                JobEntry now = book.find(JobEntry.Role.BUYER, done.id()).orElse(done);
                // saved, or a verdict is there already; a save that met another move is tried again
                saved = !now.reexecution().isEmpty() || book.save(new JobEntry(now.id(), now.role(), now.peer(),
                        now.request(), now.state(), now.priceMsat(), now.rail(), now.invoice(), now.paymentHash(),
                        now.key(), now.sealed(), now.result(), now.error(), match ? "match" : "mismatch",
                        now.createdAt(), seconds.getAsLong(), now.version() + 1));
                if (!saved) {
                    throw new IllegalStateException("the job moved while its verdict was saved");
                }
            }
            if (!match && local != null) {
                findings.mismatch(done, record, claimed, local, k);
            }
        }
    }

    /** How far back a restart looks for done jobs whose re-execution never finished. */
    static final long RESUME_SAMPLES_WITHIN_SECONDS = 86_400;

    /**
     * After a restart: payments in {@code paying} are followed (never paid afresh: the rail's pay on a hash it paid
     * tracks that payment), paid jobs are opened again, and a job that ended done in the last day without a verdict
     * of its re-execution (the node stopped while it ran) is offered to the sampler again: the sampler's choice is
     * keyed, so a job chosen before is chosen again, and a cheater cannot escape by a crash of its buyer.
     */
    public void resume() {
        for (JobEntry e : book.inStates(JobEntry.Role.BUYER, List.of(JobState.PAYING.word()))) {
            if (payers.of(e.rail()).isPresent()) {
                follow(e); // on the rail it was paid with, never another
            } else {
                LOG.warnf("job %s: its payment on rail %s is not followed: this node does not have that rail now",
                        e.id(), e.rail());
            }
        }
        for (JobEntry e : book.inStates(JobEntry.Role.BUYER, List.of(JobState.PAID.word()))) {
            try {
                reopen(e.id());
            } catch (RuntimeException ex) {
                LOG.warnf("job %s: not opened at resume (%s); the sweep opens it", e.id(), ex.toString());
            }
        }
        // sealed with an invoice and auto-pay, not paid: the node stopped between saving the sealed result and paying
        // it (before, such a job waited sealed until it expired)
        for (JobEntry e : book.inStates(JobEntry.Role.BUYER, List.of(JobState.SEALED.word()))) {
            if (e.priceMsat() > 0 && !e.invoice().isEmpty() && stored(e, "auto_pay").asBoolean(false)) {
                try {
                    pay(e.id());
                } catch (MarketProtocolException | RuntimeException ex) {
                    LOG.warnf("job %s: its payment cannot be resumed: %s", e.id(), ex.getMessage());
                }
            }
        }
        long now = seconds.getAsLong();
        for (JobEntry e : book.inStates(JobEntry.Role.BUYER, List.of(JobState.DONE.word()))) {
            if (!e.reexecution().isEmpty() || e.key().isEmpty() || e.sealed().isEmpty() || e.result().isEmpty()
                    || now - e.updatedAt() > RESUME_SAMPLES_WITHIN_SECONDS) {
                continue;
            }
            try {
                Event record = PARSER.parseEvent(ComputeMessages.JSON.readTree(e.sealed()).path("record").toString());
                sample(e, record, ResultJson.read(e.result()), Preimage.ofHex(e.key()));
            } catch (Exception ex) {
                LOG.warnf("job %s: its re-execution cannot be resumed: %s", e.id(), ex.getMessage());
            }
        }
    }

    /**
     * Jobs that waited past {@code expirySeconds} for a sealed result (or sealed and unpaid) end expired; a job that
     * waits on its worker and has had nothing on its link for {@code resendSeconds} (no request sent, no fetch heard)
     * has its request sent again: a request the worker's grant refused, a message lost on a link that has not noticed
     * yet, or a repeated request the worker dropped (a worker answers a job again at most every 2 s) would otherwise
     * leave it waiting until it expires. The worker answers nothing while the job runs, so a long run costs one small
     * message per {@code resendSeconds}.
     */
    public void sweep() {
        long now = seconds.getAsLong();
        java.util.Set<String> open = new java.util.HashSet<>();
        for (JobEntry e : book.inStates(JobEntry.Role.BUYER, List.of(JobState.REQUESTED.word(),
                JobState.FETCHING.word(), JobState.SEALED.word()))) {
            if (now - e.updatedAt() > settings.expirySeconds()) {
                book.save(e.moved(JobState.EXPIRED.word(), now).withError("expired: no answer in "
                        + settings.expirySeconds() + " s"));
                continue;
            }
            open.add(e.id());
            if (settings.resendSeconds() > 0 && waiting(e)
                    && now - lastActive.getOrDefault(e.id(), e.updatedAt()) >= settings.resendSeconds()) {
                sendAgain(e);
            }
            if (e.state().equals(JobState.SEALED.word()) && now - e.updatedAt() >= STUCK_SECONDS) {
                payStuck(e);
            }
        }
        lastActive.keySet().retainAll(open);
        recover();
    }

    /**
     * How long a job stays {@code sealed} (auto-pay, with an invoice) before the sweep pays it: the payment that
     * should have followed its sealed result did not start (the job book failed when it was to move to
     * {@code paying}).
     */
    static final long STUCK_SECONDS = 10;

    private void payStuck(JobEntry e) {
        if (e.priceMsat() <= 0 || e.invoice().isEmpty() || !stored(e, "auto_pay").asBoolean(false)
                || settings.neverPay() || payers.of(e.rail()).isEmpty()) {
            return;
        }
        try {
            pay(e.id());
            LOG.infof("job %s: its payment, which had not started, is started by the sweep", e.id());
        } catch (MarketProtocolException ex) {
            LOG.debugf("job %s: %s", e.id(), ex.getMessage());
        }
    }

    /**
     * What a failure of the job book (a database restarting under the node) left half done is taken up again while
     * the node runs, not only at its next start: a payment no thread follows is followed, a paid job whose result was
     * not opened is opened, a re-execution's verdict not recorded is recorded.
     */
    private void recover() {
        for (JobEntry e : book.inStates(JobEntry.Role.BUYER, List.of(JobState.PAYING.word()))) {
            if (!followed.contains(e.id()) && payers.of(e.rail()).isPresent()) {
                LOG.infof("job %s: its payment is followed again", e.id());
                follow(e);
            }
        }
        for (JobEntry e : book.inStates(JobEntry.Role.BUYER, List.of(JobState.PAID.word()))) {
            try {
                reopen(e.id()); // each on its own: one failing holds up no other, nor the verdicts below
            } catch (RuntimeException ex) {
                LOG.warnf("job %s: not opened (%s); the next sweep tries again", e.id(), ex.toString());
            }
        }
        for (Verdict v : List.copyOf(verdicts.values())) {
            try {
                v.record();
                verdicts.remove(v.done.id());
            } catch (RuntimeException ex) {
                if (++v.tries >= MAX_VERDICT_TRIES) {
                    verdicts.remove(v.done.id());
                    LOG.errorf("job %s: its re-execution's verdict (%s) could not be recorded in %d tries (%s); given up",
                            v.done.id(), v.match ? "match" : "mismatch", v.tries, ex.toString());
                }
            }
        }
    }

    /** Sweeps a verdict is tried in before it is given up (about 5 minutes). */
    static final int MAX_VERDICT_TRIES = 30;
}
