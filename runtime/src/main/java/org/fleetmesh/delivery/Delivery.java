package org.fleetmesh.delivery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.FilterJson;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.peering.MeshErr;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.Refusal;
import org.fleetmesh.peering.link.Carrier;
import org.fleetmesh.peering.link.EventFrame;
import org.fleetmesh.peering.link.EventLink;
import org.fleetmesh.peering.link.Intake;
import org.fleetmesh.peering.link.PeerAccount;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.peers.Evidence;
import org.fleetmesh.spi.peers.LinkLedger;
import org.fleetmesh.spi.storage.EventStore;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * This node's side of delivery on every link (docs/spec/delivery.md): one carrier per link, holding the peer's
 * {@link Custodian} (what the peer sends this node: signed frames in, receipts out; one per peer, across its links)
 * and the link's {@link Forwarder} (what this node sends the peer: store-and-forward, receipts verified). Built from
 * plain values; the Quarkus edge installs it with {@code EventLinks.carriers(...)} and calls {@link #committed()}
 * after every commit.
 */
public final class Delivery implements Carrier.Carriers {
    private static final Logger LOG = Logger.getLogger(Delivery.class);
    /** Events remembered with the peer that sent them, until their leaves are durable. */
    static final int PROVENANCE = 65_536;
    /** Store rows read per scan, at most. */
    static final int MAX_SCAN_PAGE = 4096;
    /** Appended ids a receipt may name: a frame's events, also of frames sent under an earlier setting. */
    static final int MAX_APPENDED = 1000;

    /**
     * The settings of {@code fleetmesh.delivery.*} (docs/OPERATING.md).
     *
     * @param receipts false: frames are answered {@code MESH-EVENTS-OK} and forwarded without custody (a
     *        measurement switch)
     * @param frameEvents events per frame this node sends, at most
     * @param frameBytes UTF-8 bytes of a frame this node sends, at most (a larger single event goes alone)
     * @param inFlight frames sent and not yet receipted, per peer, at most
     * @param maxHops links an event may have crossed before this node forwards it no further
     * @param maxSkew how far a frame's time may be from this node's clock
     * @param maxFilters filters in one MESH-FEDERATE, at most
     * @param federate the filters this node asks of every peer
     * @param perPeer per peer (DID, short form): filters that replace {@code federate}
     */
    public record Settings(boolean receipts, int frameEvents, int frameBytes, int inFlight, int maxHops,
            Duration maxSkew, int maxFilters, List<Filter> federate, Map<String, List<Filter>> perPeer) {
        public static final Settings DEFAULT = new Settings(true, 100, 524_288, 16, 4, Duration.ofSeconds(300), 16,
                List.of(), Map.of());

        public Settings {
            Objects.requireNonNull(maxSkew, "maxSkew");
            federate = List.copyOf(federate);
            Map<String, List<Filter>> copy = new HashMap<>();
            perPeer.forEach((k, v) -> copy.put(PeerIdentity.shortForm(k), List.copyOf(v)));
            perPeer = Map.copyOf(copy);
            if (frameEvents < 1 || frameBytes < 1024 || inFlight < 1 || maxHops < 1 || maxFilters < 0) {
                throw new IllegalArgumentException("delivery settings out of range: " + frameEvents + " events, "
                        + frameBytes + " bytes, " + inFlight + " in flight, " + maxHops + " hops");
            }
        }
    }

    private final Settings settings;
    private final NodeSecrets secrets;
    private final String self;
    private final EventStore store;
    private final Intake intake;
    private final CustodyLedger ledger;
    private final LinkLedger links;
    private final Executor io;
    private final LongSupplier millis;
    private final CustodyLane lane;
    private final Provenance provenance = new Provenance(PROVENANCE);
    private final Map<String, Custodian> custodians = new HashMap<>();
    private final Map<String, Link> open = new ConcurrentHashMap<>();
    private final Map<String, List<Filter>> wanted = new ConcurrentHashMap<>();
    /** Per peer: the ledger failures of its forwarding in a row, and when the last one was (ms). */
    private final Map<String, long[]> ledgerFailures = new ConcurrentHashMap<>();
    /** Failures further apart than this start the count over. */
    static final long LEDGER_FAILURES_FORGOTTEN_MS = 120_000;

    /** The wait before a forwarder that met a ledger failure links again: doubled per failure in a row, to {@code max}. */
    long ledgerFailureBackoff(String peer, long first, long max) {
        long now = System.currentTimeMillis();
        long[] f = ledgerFailures.compute(peer, (k, v) -> {
            long n = v == null || now - v[1] > LEDGER_FAILURES_FORGOTTEN_MS ? 1 : v[0] + 1;
            return new long[] { n, now };
        });
        return Math.min(max, first << Math.min(16, f[0] - 1));
    }
    private final FilterJson.Limits filterLimits = FilterJson.Limits.DEFAULT;
    private volatile boolean closed;

    public Delivery(Settings settings, NodeSecrets secrets, String selfDid, EventStore store, Intake intake,
            CustodyLedger ledger, LinkLedger links, Executor io, LongSupplier millis) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.secrets = Objects.requireNonNull(secrets, "secrets");
        this.self = PeerIdentity.shortForm(Objects.requireNonNull(selfDid, "selfDid"));
        this.store = Objects.requireNonNull(store, "store");
        this.intake = Objects.requireNonNull(intake, "intake");
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.links = Objects.requireNonNull(links, "links");
        this.io = Objects.requireNonNull(io, "io");
        this.millis = Objects.requireNonNull(millis, "millis");
        this.lane = new CustodyLane(ledger, io);
        this.wanted.putAll(settings.perPeer());
        if (!store.sequenced()) {
            LOG.warn("the event store does not number its events: this node forwards nothing (it still takes custody)");
        }
    }

    // ---- Carrier.Carriers ----

    @Override
    public Carrier open(EventLink.Wire wire, PeerAccount account) {
        if (closed) {
            return null;
        }
        PeerIdentity peer = wire.peer();
        Optional<PubKey> nostr = peer.nostr();
        if (nostr.isEmpty()) {
            LOG.infof("mesh peer %s proved no Nostr key: no custody receipts, no delivery on its link", peer.shortDid());
            return null;
        }
        String id = peer.shortDid();
        Custodian c;
        synchronized (custodians) {
            c = custodians.get(id);
            boolean fresh = c == null;
            if (fresh) {
                c = new Custodian(this, id, peer.did(), peer.transport(), nostr.get());
                custodians.put(id, c);
            }
            c.attach();
            if (fresh) {
                c.load();
            }
        }
        Forwarder f = new Forwarder(this, id, wire, account, nostr.get());
        Link link = new Link(id, wire, account, c, f);
        Link before = open.put(id, link);
        if (before != null) {
            before.forwarder.stop();
        }
        wire.send(FederateMessage.encode(wantedOf(id)));
        if (store.sequenced()) {
            f.start();
        }
        return link;
    }

    /** The carrier of one link. */
    private final class Link implements Carrier {
        final String peer;
        final EventLink.Wire wire;
        final PeerAccount account;
        final Custodian custodian;
        final Forwarder forwarder;
        /** What the custodian sends (receipts, catch-up, refusals), paced to the peer's grant like the frames. */
        final PacedWire paced;
        volatile boolean closed;

        Link(String peer, EventLink.Wire wire, PeerAccount account, Custodian custodian, Forwarder forwarder) {
            this.peer = peer;
            this.wire = wire;
            this.paced = new PacedWire(wire, account.pacer());
            this.account = account;
            this.custodian = custodian;
            this.forwarder = forwarder;
        }

        @Override
        public void frame(long seq, String headerJson, List<String> events, long bytes) {
            custodian.frame(paced, account, seq, headerJson, events);
        }

        @Override
        public boolean receive(String type, String text) {
            try {
                switch (type) {
                    case FederateMessage.TYPE -> forwarder.federate(FederateMessage.parse(text, settings.maxFilters(),
                            filterLimits));
                    case CustodyMessages.CUSTODY -> custodian.custody(paced, CustodyMessages.parseCustody(text));
                    case CustodyMessages.HEAD -> forwarder.head(CustodyMessages.parseHead(text));
                    case CustodyMessages.RECEIPT -> forwarder.receipt(CustodyMessages.parseReceipt(text,
                            Math.max(settings.frameEvents(), MAX_APPENDED)));
                    case EventFrame.EVENTS_OK -> forwarder.answered(Forwarder.answers(
                            DeliveryJson.read(text, EventFrame.EVENTS_OK)));
                    case EventFrame.REFUSED -> refused(text);
                    default -> {
                        return false;
                    }
                }
            } catch (FrameException e) {
                wire.send(MeshErr.of(new Refusal(Refusal.Kind.PEER, e.getMessage())).encode());
            }
            return true;
        }

        private void refused(String text) throws FrameException {
            JsonNode root = DeliveryJson.read(text, EventFrame.REFUSED);
            JsonNode header = root.path(1);
            JsonNode seq = header.get("seq");
            JsonNode retry = header.get("retry_ms");
            if (!root.isArray() || root.size() != 3 || !header.isObject() || !root.get(2).isTextual()
                    || !nullOrCount(seq) || !nullOrCount(retry)) {
                throw new FrameException("invalid: " + EventFrame.REFUSED + " is [\"" + EventFrame.REFUSED
                        + "\", {\"seq\": <n> | null, \"retry_ms\": <ms> | null}, <reason>]");
            }
            forwarder.refused(DeliveryJson.count(seq), DeliveryJson.count(retry), root.get(2).textValue());
        }

        private static boolean nullOrCount(JsonNode v) {
            return v == null || v.isNull() || DeliveryJson.count(v) >= 0;
        }

        @Override
        public void grantChanged() {
            forwarder.wake();
        }

        @Override
        public void suspended() {
            forwarder.suspend();
        }

        @Override
        public void closed() {
            closed = true;
            forwarder.stop();
            open.remove(peer, this);
            custodian.detach();
            release(custodian);
        }
    }

    // ---- the node's calls ----

    /** Events were committed: every forwarder scans for what it may send now. */
    public void committed() {
        for (Link l : open.values()) {
            l.forwarder.scan();
        }
    }

    /**
     * Sends {@code peer} the events it asked for (shard replication, docs/spec/replication.md): of {@code ids}, those
     * this node stores that match {@code within}, in signed frames with receipts like the forwarded ones, taking turns
     * with them; whatever this node knows the peer holds (it asked: a restored node lacks what it once had), with
     * hops 0, never a private kind (NIP-04, NIP-59), an ephemeral or a protected event. A pushed frame neither holds
     * back nor advances the forwarding cursor: it is not durable, the puller asks again after a restart. At most
     * {@code maxPending} pushed ids wait per peer; returns how many of {@code ids} it took (0 when the peer has no
     * open link, forwarding to it is halted, or this store does not number its events).
     */
    public int push(String peer, List<EventId> ids, Filter within, int maxPending) {
        Link l = open.get(PeerIdentity.shortForm(peer));
        if (l == null || !store.sequenced() || ids.isEmpty()) {
            return 0;
        }
        return l.forwarder.push(ids, within, maxPending);
    }

    /** For tests: the pushed ids waiting for {@code peer} (being read, queued or in flight). */
    int pushedPending(String peer) {
        Link l = open.get(PeerIdentity.shortForm(peer));
        return l == null ? 0 : l.forwarder.pushedPending();
    }

    /** The filters this node asks of {@code peer} from now on (the admin API); sent at once when it is linked. */
    public void wanted(String peer, List<Filter> filters) {
        String id = PeerIdentity.shortForm(peer);
        List<Filter> f = List.copyOf(filters);
        wanted.put(id, f);
        Link l = open.get(id);
        if (l != null) {
            l.wire.send(FederateMessage.encode(f));
        }
    }

    /** The filters this node asks of {@code peer}: its own, else {@code federate}. */
    public List<Filter> wantedOf(String peer) {
        return wanted.getOrDefault(PeerIdentity.shortForm(peer), settings.federate());
    }

    /** An operator clears a halt: forwarding restarts (with a custody exchange when the peer is linked). */
    public void resume(String peer) {
        String id = PeerIdentity.shortForm(peer);
        Link l = open.get(id);
        if (l != null) {
            l.forwarder.resume();
            return;
        }
        lane.submit(new CustodyLane.Job() {
            @Override
            public void prepare(List<CustodyLedger.Append> steps) {
                ledger.outbound(id).ifPresent(o -> {
                    if (!o.halted().isEmpty()) {
                        ledger.saveOutbound(new CustodyLedger.Outbound(id, o.ackedSeq(), o.nextFrameSeq(),
                                o.filters(), ""));
                    }
                });
            }

            @Override
            public void committed() {
            }

            @Override
            public void failed(RuntimeException e) {
                LOG.warnf("could not clear the halt of %s: %s", id, e.toString());
            }
        });
    }

    /**
     * The status fields of {@code peer} ({@code /mesh/status}): {@code queue}, {@code federate} {@code {"wanted",
     * "offered"}} and {@code custody} {@code {"sent", "received", "halted"}}. For a peer without an open link it reads
     * the ledger: call it off the event loop.
     */
    public void describe(String peer, Map<String, Object> into) {
        String id = PeerIdentity.shortForm(peer);
        Link l = open.get(id);
        long last = store.sequenced() ? store.lastSequence() : 0;
        Map<String, Object> federate = new LinkedHashMap<>();
        federate.put("wanted", filterObjects(wantedOf(id)));
        Map<String, Object> custody = new LinkedHashMap<>();
        if (l != null && l.forwarder.phase() != Forwarder.Phase.LOADING) {
            into.put("queue", l.forwarder.queue(last));
            federate.put("offered", filterObjects(l.forwarder.offered()));
            custody.put("sent", l.forwarder.sent());
            custody.put("received", l.custodian.describe());
            custody.put("halted", l.forwarder.halted());
        } else {
            Optional<CustodyLedger.Outbound> o = ledger.outbound(id);
            into.put("queue", Math.max(0, last - o.map(CustodyLedger.Outbound::ackedSeq).orElse(0L)));
            federate.put("offered", filterObjects(o.map(x -> readFilters(x.filters())).orElse(List.of())));
            custody.put("sent", ledger.head(CustodyLedger.Side.SENT, id).map(Delivery::describe).orElse(null));
            custody.put("received", ledger.head(CustodyLedger.Side.RECEIVED, id).map(Delivery::describe).orElse(null));
            custody.put("halted", o.map(CustodyLedger.Outbound::halted).filter(h -> !h.isEmpty()).orElse(null));
        }
        into.put("federate", federate);
        into.put("custody", custody);
    }

    private static Map<String, Object> describe(CustodyLedger.Receipt r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("size", r.treeSize());
        m.put("head", r.receiptId().hex());
        m.put("seq", r.seq());
        return m;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> filterObjects(List<Filter> filters) {
        try {
            return DeliveryJson.MAPPER.readValue(FederateMessage.json(filters), List.class);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("filters always write as JSON", e);
        }
    }

    /** Stops forwarding on every link; what is already queued on the custody lane still runs. */
    public void close() {
        closed = true;
        for (Link l : new ArrayList<>(open.values())) {
            l.forwarder.stop();
        }
        lane.close();
    }

    // ---- for the custodians and forwarders ----

    Settings settings() {
        return settings;
    }

    String self() {
        return self;
    }

    long millis() {
        return millis.getAsLong();
    }

    CustodyLane lane() {
        return lane;
    }

    CustodyLedger ledger() {
        return ledger;
    }

    EventStore store() {
        return store;
    }

    Intake intake() {
        return intake;
    }

    Executor io() {
        return io;
    }

    Provenance provenance() {
        return provenance;
    }

    PubKey selfNostr() {
        return secrets.publicKeys().nostr();
    }

    /** A copy of the Nostr secret; the caller zeroes it. */
    byte[] nostrSecret() {
        return secrets.nostr().bytes();
    }

    SignedFrame sign(String to, long seq, List<String> ids, List<Integer> hops) {
        return SignedFrame.sign(secrets.transport(), self, to, seq, millis(), ids, hops);
    }

    int scanPage() {
        return Math.min(MAX_SCAN_PAGE, Math.max(256, 4 * settings.frameEvents()));
    }

    /** Room for the events in a frame: its byte limit less the signed header and separators. */
    long frameRoom() {
        return Math.max(1, settings.frameBytes() - 512 - 2L * self.length() - 8L * settings.frameEvents());
    }

    List<Filter> readFilters(String json) {
        try {
            return FederateMessage.parseFilters(json, Math.max(settings.maxFilters(), 64), filterLimits);
        } catch (FrameException e) {
            LOG.warnf("stored filters do not read (%s); none apply", e.getMessage());
            return List.of();
        }
    }

    void evidence(Evidence e) {
        try {
            links.addEvidence(e);
        } catch (RuntimeException ex) {
            LOG.errorf("the evidence of a custody breach by %s was not stored: %s", e.peer(), ex.toString());
        }
    }

    /** Whether {@code c} is still this node's custodian of its peer, and the delivery open (its retries stop else). */
    boolean current(Custodian c) {
        if (closed) {
            return false;
        }
        synchronized (custodians) {
            return custodians.get(c.peer()) == c;
        }
    }

    /** Forgets a custodian with no link and nothing pending. */
    void release(Custodian c) {
        synchronized (custodians) {
            if (custodians.get(c.peer()) == c && c.idle()) {
                custodians.remove(c.peer());
            }
        }
    }

    /** For tests: the lane's ledger appends so far. */
    long ledgerAppends() {
        return lane.appends();
    }

    /** For tests: jobs waiting on the custody lane. */
    int laneWaiting() {
        return lane.waiting();
    }

    int provenanceSize() {
        return provenance.size();
    }
}
