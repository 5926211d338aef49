package org.fleetmesh.standing.quarkus;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.compute.quarkus.SandboxRuntime;
import org.fleetmesh.compute.verify.Reexecution;
import org.fleetmesh.delivery.quarkus.DeliveryRuntime;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.link.EventLinks;
import org.fleetmesh.peering.quarkus.GrantedLinkSessions;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.relay.Origin;
import org.fleetmesh.relay.quarkus.RelayRuntime;
import org.fleetmesh.shards.quarkus.SamplingConfig;
import org.fleetmesh.spi.peers.Evidence;
import org.fleetmesh.spi.standing.FindingRecord;
import org.fleetmesh.spi.standing.StandingBook;
import org.fleetmesh.standing.Check;
import org.fleetmesh.standing.CheckQueue;
import org.fleetmesh.standing.Draft;
import org.fleetmesh.standing.Finding;
import org.fleetmesh.standing.FindingEvidence;
import org.fleetmesh.standing.FindingRecords;
import org.fleetmesh.standing.FindingVerifier;
import org.fleetmesh.standing.Penalties;
import org.fleetmesh.standing.Reexecutor;
import org.fleetmesh.standing.Severity;
import org.fleetmesh.standing.Verdict;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/**
 * Findings in and out (docs/spec/findings.md, standing.md): every evidence record this node stores becomes a finding
 * it signs, stores in its relay and in the standing book; every kind 1804 event that reaches the relay (client, peer,
 * sync) is re-checked off the writer thread and recorded with its verdict; a false or malformed one earns its
 * publisher a finding of this node's (bounded by {@link Penalties}); S2 findings this node signs, and received S2
 * findings that verified and were new here, are pushed to every linked peer (the relay's duplicate check ends the
 * flood). Operators add findings from evidence they hold with {@link #observe}.
 */
@ApplicationScoped
public class FindingsRuntime {
    private static final Logger LOG = Logger.getLogger(FindingsRuntime.class);
    /** What a broadcast may carry: findings only. */
    static final Filter FINDINGS = new Filter(null, null, Set.of(Finding.KIND), Map.of(), null, null, null);
    /** Pushed ids that may wait per peer. */
    private static final int PUSH_PENDING = 1024;
    /** Findings from this node's own evidence waiting to be signed. */
    private static final int SIGN_QUEUE = 4096;

    @Inject
    StandingConfig config;

    @Inject
    StandingBook book;

    @Inject
    StandingRuntime standing;

    @Inject
    NodeIdentity identity;

    @Inject
    RelayRuntime relays;

    @Inject
    GrantedLinkSessions sessions;

    @Inject
    DeliveryRuntime delivery;

    @Inject
    Subjects subjects;

    @Inject
    SamplingConfig sampling;

    @Inject
    SandboxRuntime sandboxes;

    /** What {@link #observe} answers: an HTTP status and its JSON body. */
    public record Answer(int status, Map<String, Object> body) {
    }

    private final AtomicLong verified = new AtomicLong();
    private final AtomicLong pushed = new AtomicLong();
    private volatile boolean started;
    private String selfDid;
    private String selfShort;
    private PubKey selfNostr;
    private FindingVerifier verifier;
    /** Without this node's own least grace: a finding false only by this node's stricter rule blames no one. */
    private FindingVerifier lenient;
    /** The same two without re-running any job: for observers whose findings weigh nothing here. */
    private FindingVerifier unweighted;
    private FindingVerifier unweightedLenient;
    private Penalties penalties;
    private CheckQueue verifying;
    private ThreadPoolExecutor signing;

    void onStart(@Observes StartupEvent e) {
        start();
        relays.relay().ingest().addListener(this::completed);
        LOG.infof("findings: verified as they arrive (%d may wait), S2 broadcast %s", config.verifyQueue(),
                config.broadcast() ? "on" : "off");
    }

    private synchronized void start() {
        if (started) {
            return;
        }
        // the DID depends on the keys only: any endpoints give the same one
        NodeDidDocument doc = NodeDidDocument.of(identity.secrets().publicKeys(),
                NodeEndpoints.of("ws://localhost/", "ws://localhost/mesh", "http://localhost/didcomm"));
        selfDid = doc.did();
        selfShort = doc.shortForm();
        selfNostr = identity.secrets().publicKeys().nostr();
        // re-execution evidence with its module and input is re-run on this node's sandbox, within its limits; the
        // sandbox is built on the first such finding, so a node that never sees one never starts an engine
        Reexecutor rerun = (job, module, input) -> new Reexecution(sandboxes.sandbox()).rerun(job, module, input);
        verifier = FindingVerifier.reexecuting(sampling.grace().toSeconds(), rerun);
        lenient = FindingVerifier.reexecuting(0, rerun);
        // an observer whose findings weigh nothing here (a stranger, a peer below min-observer-tier) gets its evidence
        // checked but no job re-run: a re-run is up to a sandbox's fuel and time limits of this node's CPU, and a
        // stranger could otherwise buy them with a signed event each
        Reexecutor none = (job, module, input) -> Optional.empty();
        unweighted = FindingVerifier.reexecuting(sampling.grace().toSeconds(), none);
        unweightedLenient = FindingVerifier.reexecuting(0, none);
        penalties = new Penalties(config.strangerPenaltiesPerMinute(), 4096);
        // drop-oldest: a flood of findings pushes out the oldest waiting, never blocks the writer
        verifying = new CheckQueue(Math.max(1, config.verifyQueue()), "fleetmesh-findings-verify");
        signing = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(SIGN_QUEUE),
                r -> thread(r, "fleetmesh-findings-sign"));
        signing.allowCoreThreadTimeOut(true);
        started = true;
    }

    private static Thread thread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    // ---- this node's evidence ----

    /** An evidence record was stored (link budgets, custody, sampling): this node signs the finding it makes. */
    void recorded(@Observes Evidence e) {
        start();
        try {
            signing.execute(() -> {
                try {
                    fromEvidence(e);
                } catch (RuntimeException ex) {
                    LOG.errorf(ex, "the finding of evidence record %d about %s failed", e.id(), e.peer());
                }
            });
        } catch (RejectedExecutionException ex) {
            LOG.warnf("the finding of evidence record %d about %s was not made: the signer is full", e.id(), e.peer());
        }
    }

    private void fromEvidence(Evidence e) {
        Draft d;
        try {
            d = FindingEvidence.fromLedger(e);
        } catch (IllegalArgumentException ex) {
            LOG.warnf("evidence record %d makes no finding: %s", e.id(), ex.getMessage());
            return;
        }
        if (d == null) {
            LOG.warnf("evidence record %d about %s holds evidence this node does not turn into a finding", e.id(),
                    e.peer());
            return;
        }
        Optional<PubKey> key = Optional.ofNullable(d.subjectKey()).or(() -> subjects.keyOf(e.peer()));
        if (key.isEmpty()) {
            LOG.warnf("no finding about %s (%s): its Nostr key is not known here", e.peer(), d.rule());
            return;
        }
        Event finding;
        try {
            finding = sign(d, key.get(), subjects.didOf(e.peer()));
        } catch (IllegalArgumentException ex) {
            // the long form's keys do not list the evidence's key: the short form names the subject without them
            finding = sign(d, key.get(), PeerIdentity.shortForm(e.peer()));
        }
        Check c = publish(finding);
        LOG.infof("finding %s: %s %s (%s) against %s, %s", finding.id().hex(), d.severity(), d.scope().wire(),
                d.rule(), e.peer(), c.verdict());
    }

    private Event sign(Draft d, PubKey subject, String subjectDid) {
        byte[] secret = identity.secrets().nostr().bytes();
        try {
            return Finding.sign(selfDid, subject, subjectDid, d.severity(), d.scope(), d.rule(), d.evidenceJson(),
                    System.currentTimeMillis() / 1000, secret);
        } finally {
            java.util.Arrays.fill(secret, (byte) 0);
        }
    }

    /**
     * Records a finding this node signed (with the verdict any node re-checking it reaches), stores it in the relay
     * and, when it is S2 and counts, broadcasts it.
     */
    private Check publish(Event finding) {
        Check c = verifier.check(finding);
        FindingRecord r = FindingRecords.of(finding, c, true, System.currentTimeMillis());
        book.add(r);
        if (c.counts()) {
            standing.changed();
        }
        // only what a third party verifies spreads: an ATTESTED finding is this node's word, counted here
        boolean broadcast = config.broadcast() && c.verdict() == Verdict.VERIFIED
                && Severity.S2.name().equals(r.severity());
        relays.relay().ingest().submit(List.of(finding), new Origin.Import()).thenAccept(outcomes -> {
            Ingest.Outcome o = outcomes.get(0);
            if (!o.accepted()) {
                LOG.warnf("finding %s was not stored: %s", finding.id().hex(), o.message());
            } else if (broadcast) {
                broadcast(finding.id(), null);
            }
        });
        return c;
    }

    /** Pushes a stored finding to every linked peer but {@code except} (short DID; null: none). */
    private void broadcast(EventId id, String except) {
        EventLinks links = sessions.links();
        int n = 0;
        for (PeerIdentity p : links.linked()) {
            if (p.shortDid().equals(except)) {
                continue;
            }
            if (delivery.delivery().push(p.shortDid(), List.of(id), FINDINGS, PUSH_PENDING) > 0) {
                n++;
            }
        }
        pushed.addAndGet(n);
        LOG.debugf("finding %s pushed to %d peers", id.hex(), n);
    }

    // ---- findings that arrive ----

    /** Every ingest batch: kind 1804 events are checked off the writer thread (this must be quick). */
    void completed(Origin origin, List<Event> batch, List<Ingest.Outcome> outcomes) {
        for (int i = 0; i < batch.size(); i++) {
            Event e = batch.get(i);
            if (e.kind() != Finding.KIND || e.pubkey().equals(selfNostr)) {
                continue; // this node's own are recorded as it signs them
            }
            Ingest.Outcome o = outcomes.get(i);
            if (o.status() == Ingest.Status.REFUSED) {
                String why = o.reason();
                if (why.startsWith("invalid: bad signature") || why.startsWith("invalid: event id does not match")) {
                    verifying.execute(() -> refused(e, origin, why));
                }
                continue;
            }
            boolean fresh = o.status() == Ingest.Status.ACCEPTED;
            verifying.execute(() -> received(e, origin, fresh));
        }
    }

    /** A kind 1804 event whose id or signature is wrong: kept as ignored; a peer that relayed it is held to it. */
    private void refused(Event e, Origin origin, String why) {
        try {
            long now = System.currentTimeMillis();
            book.add(FindingRecords.refused(e, why, now));
            if (origin instanceof Origin.Peer p) {
                String peer = PeerIdentity.shortForm(p.did());
                if (penalties.take(peer, true, now)) {
                    // the relayed event proves nothing to a third party: this node's word, kept here
                    String key = subjects.keyOf(peer).map(PubKey::hex).orElse(null);
                    book.add(new FindingRecord(0, "local:" + e.id().hex() + ":" + peer, e.json(), selfShort, peer, key,
                            "S1", "transit", "relayed-bad-signature", e.id().hex(), Verdict.ATTESTED.name(),
                            peer + " relayed a finding with " + why, true, now / 1000, now));
                    standing.changed();
                }
            }
        } catch (RuntimeException ex) {
            LOG.errorf(ex, "recording the refused finding %s failed", e.id().hex());
        }
    }

    /**
     * Whether the finding's {@code observer} (as it names itself: a finding whose observer does not sign it is
     * refused before any evidence is read) is one whose findings count here, so that its re-execution evidence is
     * worth re-running.
     */
    private boolean observerWeighs(Event e) {
        String observer = e.firstTagValue("observer");
        if (observer == null) {
            return false;
        }
        try {
            return standing.tier(PeerIdentity.shortForm(observer)) >= standing.policy().minObserverTier();
        } catch (RuntimeException ex) {
            return false;
        }
    }

    private void received(Event e, Origin origin, boolean fresh) {
        try {
            boolean weighs = observerWeighs(e);
            Check c = (weighs ? verifier : unweighted).check(e);
            verified.incrementAndGet();
            FindingRecord r = FindingRecords.of(e, c, false, System.currentTimeMillis());
            if (!book.add(r)) {
                return; // recorded before
            }
            LOG.debugf("finding %s from %s: %s %s", e.id().hex(), r.observer(), c.verdict(), c.reason());
            switch (c.verdict()) {
                case VERIFIED, ATTESTED -> {
                    standing.changed();
                    if (fresh && config.broadcast() && c.verdict() == Verdict.VERIFIED
                            && Severity.S2.name().equals(r.severity())) {
                        broadcast(e.id(), origin instanceof Origin.Peer p ? PeerIdentity.shortForm(p.did()) : null);
                    }
                }
                case FALSE -> {
                    if ((weighs ? lenient : unweightedLenient).check(e).verdict() == Verdict.FALSE) {
                        penalize(e, FindingEvidence.falseFinding(e, c.reason()));
                    } else {
                        LOG.debugf("finding %s is false only by this node's least grace: ignored, no penalty",
                                e.id().hex());
                    }
                }
                case MALFORMED -> penalize(e, FindingEvidence.malformedFinding(e, c.reason()));
                default -> {
                    // UNVERIFIABLE: kept, weighs nothing, blames no one
                }
            }
        } catch (RuntimeException ex) {
            LOG.errorf(ex, "checking the finding %s failed", e.id().hex());
        }
    }

    /** A finding that does not hold is evidence against its publisher, when this node can name it (bounded). */
    private void penalize(Event e, String evidence) {
        PubKey publisher = e.pubkey();
        Optional<PeerIdentity> linked = sessions.links().linked().stream()
                .filter(p -> p.nostr().isPresent() && p.nostr().get().equals(publisher)).findFirst();
        String did = linked.map(PeerIdentity::did).orElseGet(() -> claimedDid(e, publisher));
        if (did == null) {
            LOG.debugf("the publisher of %s has no DID this node can name; no penalty", e.id().hex());
            return;
        }
        Draft d = FindingEvidence.draft(evidence);
        if (d == null) {
            LOG.warnf("no penalty for %s: the evidence does not make a finding", e.id().hex());
            return;
        }
        if (!FindingEvidence.fitsAFinding(evidence)) {
            // checked before the bound is taken: a penalty that cannot be signed must not use the publisher's
            // minute, or an oversized bad finding first would shield every other one of that minute
            LOG.infof("no penalty for %s: its evidence would be over %d bytes (the finding is embedded); the verdict"
                    + " is kept here", e.id().hex(), Finding.MAX_CONTENT_BYTES);
            return;
        }
        if (!penalties.take(publisher.hex(), linked.isPresent(), System.currentTimeMillis())) {
            return;
        }
        Event finding = sign(d, publisher, did);
        Check c = publish(finding);
        LOG.infof("finding %s: %s (%s) against %s, the publisher of %s (%s)", finding.id().hex(), d.severity(),
                d.rule(), PeerIdentity.shortForm(did), e.id().hex(), c.verdict());
    }

    /** The event's {@code observer} DID when it resolves to the event's signer, else null. */
    private static String claimedDid(Event e, PubKey publisher) {
        String observer = e.firstTagValue("observer");
        if (observer == null) {
            return null;
        }
        try {
            return DidResolver.offline().nostrKeys(observer).contains(publisher) ? observer : null;
        } catch (RuntimeException ex) {
            return null;
        }
    }

    // ---- an operator's evidence ----

    /**
     * {@code POST /mesh/findings}: an evidence object with a {@code "subject"} DID; when this node verifies it, it
     * signs, stores and (S2) broadcasts the finding. 201 with the finding's id, or 400 with the reason.
     */
    public Answer observe(com.fasterxml.jackson.databind.node.ObjectNode body) {
        start();
        com.fasterxml.jackson.databind.JsonNode s = body.remove("subject");
        if (s == null || !s.isTextual() || s.textValue().isBlank()) {
            return refuse("invalid: \"subject\" is the subject's DID (a string)");
        }
        String subjectDid = s.textValue();
        String evidence = body.toString();
        String type = FindingEvidence.typeOf(evidence);
        if (type == null) {
            return refuse("invalid: the evidence is an object with a string \"type\"");
        }
        Draft d = FindingEvidence.draft(evidence);
        if (d == null) {
            return refuse("invalid: evidence of type " + type + " does not make a finding here");
        }
        Optional<PubKey> key = Optional.ofNullable(d.subjectKey()).or(() -> subjects.keyOf(subjectDid));
        if (key.isEmpty()) {
            return refuse("invalid: no Nostr key is known for " + subjectDid
                    + " (give its did:peer:4 long form, or link it first)");
        }
        String did = subjects.didOf(subjectDid);
        Check c = verifier.checkEvidence(d.evidenceType(), evidence, key.get(), did, selfNostr, selfDid);
        if (c.verdict() != Verdict.VERIFIED) {
            return refuse("invalid: the evidence is " + c.verdict() + ": " + c.reason());
        }
        Event finding;
        try {
            finding = sign(d, key.get(), did);
        } catch (IllegalArgumentException ex) {
            return refuse("invalid: " + ex.getMessage());
        }
        Check published = publish(finding);
        LOG.infof("admin: finding %s: %s %s (%s) against %s", finding.id().hex(), d.severity(), d.scope().wire(),
                d.rule(), PeerIdentity.shortForm(did));
        return new Answer(201, Map.of("id", finding.id().hex(), "subject", PeerIdentity.shortForm(did), "severity",
                d.severity().name(), "scope", d.scope().wire(), "rule", d.rule(), "verdict",
                published.verdict().name()));
    }

    private static Answer refuse(String reason) {
        return new Answer(400, Map.of("error", reason));
    }

    /** Received findings dropped unverified (the queue was full), checked, and pushes to peers so far. */
    public Map<String, Object> counters() {
        CheckQueue q = verifying;
        return Map.of("dropped", q == null ? 0 : q.dropped(), "verified", verified.get(), "pushed", pushed.get(),
                "waiting", q == null ? 0 : q.waiting());
    }

    @PreDestroy
    void stop() {
        if (verifying != null) {
            verifying.shutdown();
        }
        if (signing != null) {
            signing.shutdown();
        }
    }
}
