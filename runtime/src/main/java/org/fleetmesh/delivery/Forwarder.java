package org.fleetmesh.delivery;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.fleetmesh.delivery.log.CompactRange;
import org.fleetmesh.delivery.log.CustodyReset;
import org.fleetmesh.delivery.log.Receipt;
import org.fleetmesh.delivery.log.ReceiptCheck;
import org.fleetmesh.delivery.log.ReceiptException;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventClass;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Snippet;
import org.fleetmesh.nostr.Utf8;
import org.fleetmesh.peering.budget.Bucket;
import org.fleetmesh.peering.link.EventFrame;
import org.fleetmesh.peering.link.EventLink;
import org.fleetmesh.peering.link.PeerAccount;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.peers.Evidence;
import org.jboss.logging.Logger;

/**
 * The sender side of one pair on one link (docs/spec/delivery.md, "Store-and-forward"): the custody exchange at open,
 * then a scan of the event store's sequence after the cursor, keeping the events the peer's filters match and it
 * does not hold, in signed frames of bounded size, at most {@code in-flight} unreceipted, paced by the peer's grant;
 * each receipt verified ({@link ReceiptCheck}) and written with the advanced cursor in one ledger step; a breach
 * stored as evidence and forwarding halted. Store and ledger work runs on the io executor and the custody lane, never
 * on the link's thread.
 */
final class Forwarder {
    private static final Logger LOG = Logger.getLogger(Forwarder.class);
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);
    /** Messages waiting for the lane: a catch-up answer and the window's receipts, with room to spare. */
    static final int MAX_INBOX = Custodian.CATCH_UP + 64;
    static final int GRANT_KIND = 30801;
    private static final long DEFAULT_RETRY_MS = 1000;
    /** Ids per store query of a push. */
    static final int PUSH_QUERY = 500;
    /** A push reads as a peer without NIP-42: the relay's private kinds (relay.md: 4, 13, 1059) stay here. */
    static final org.fleetmesh.spi.storage.Reader PUSH_READER = org.fleetmesh.spi.storage.Reader.of(Set.of(4, 13,
            1059), Set.of());

    enum Phase {
        LOADING, EXCHANGE, FORWARDING, HALTED, STOPPED
    }

    /** One event queued to the peer: its store sequence, id, JSON, UTF-8 bytes and the hops it will carry. */
    record Item(long storeSeq, EventId id, String json, int bytes, int hops) {
    }

    /**
     * A frame's worth of items; the cursor cannot pass the first item of a scanned batch until it is receipted. A pushed
     * batch (events a puller asked for, {@link Delivery#push}) has no place in the cursor: it is not durable, the
     * puller asks again.
     */
    record Batch(List<Item> items, long bytes, boolean pushed) {
        Batch(List<Item> items, long bytes) {
            this(items, bytes, false);
        }

        long floor() {
            return items.get(0).storeSeq() - 1;
        }
    }

    /** A frame sent and not yet receipted. */
    record Sent(long seq, Batch batch, ReceiptCheck.Frame frame) {
    }

    private final Delivery node;
    private final String peer;
    private final EventLink.Wire wire;
    private final PeerAccount account;
    private final PubKey receiverKey;
    private final ArrayDeque<Object> inbox = new ArrayDeque<>();
    private final ArrayDeque<Batch> ready = new ArrayDeque<>();
    /** Pushed batches read and waiting to go; they take turns with {@link #ready}. */
    private final ArrayDeque<Batch> pushedReady = new ArrayDeque<>();
    /** Pushed ids taken and not yet done: being read, waiting, or in flight. */
    private int pushedPending;
    /** Whether the last frame sent was a pushed one: the next goes from the scan when it has one. */
    private boolean lastPushed;
    private final LinkedHashMap<Long, Sent> inFlight = new LinkedHashMap<>();
    private Phase phase = Phase.LOADING;
    private boolean queued;
    private boolean scanning;
    private boolean rescan;
    private boolean saveQueued;
    /** Receipts verified lately: their catch-up copies (after a resume) are not checked twice. */
    private final java.util.LinkedHashSet<EventId> verified = new java.util.LinkedHashSet<>();
    private static final int VERIFIED = 512;
    private boolean wakePending;
    private long epoch;
    /** The outbound state was read from the ledger: only then is it written back. */
    private boolean loaded;
    // the outbound state (persisted)
    private long ackedSeq;
    private long nextSeq = 1;
    private String halted = "";
    private List<Filter> filters = List.of();
    private boolean filtersFromPeer;
    private long scanPos;
    // the mirror of the receiver's tree (persisted on the SENT side)
    private CustodyLedger.Receipt headRow;
    private Receipt head;
    private CompactRange range;
    private String lastError;

    Forwarder(Delivery node, String peer, EventLink.Wire wire, PeerAccount account, PubKey receiverKey) {
        this.node = node;
        this.peer = peer;
        this.wire = wire;
        this.account = account;
        this.receiverKey = receiverKey;
    }

    /** Loads the outbound state and the mirror, then starts the custody exchange. */
    void start() {
        node.lane().submit(new CustodyLane.Job() {
            CustodyLedger.Receipt h;
            Receipt parsed;
            CustodyLedger.Outbound out;

            @Override
            public void prepare(List<CustodyLedger.Append> steps) {
                h = node.ledger().head(CustodyLedger.Side.SENT, peer).orElse(null);
                parsed = h == null ? null : parse(h.json());
                out = node.ledger().outbound(peer).orElse(null);
            }

            @Override
            public boolean barrier() {
                return true; // after the previous link's forwarder wrote what it verified
            }

            @Override
            public void committed() {
                String custody;
                synchronized (Forwarder.this) {
                    if (phase != Phase.LOADING) {
                        return;
                    }
                    headRow = h;
                    head = parsed;
                    range = h == null ? CompactRange.empty() : CompactRange.of(h.treeSize(), h.compactRange());
                    if (out != null) {
                        ackedSeq = out.ackedSeq();
                        nextSeq = Math.max(1, out.nextFrameSeq());
                        halted = out.halted();
                        if (!filtersFromPeer) {
                            filters = node.readFilters(out.filters());
                        }
                    }
                    scanPos = ackedSeq;
                    phase = Phase.EXCHANGE;
                    loaded = true;
                    custody = custodyMessage();
                }
                wire.send(custody);
            }

            @Override
            public void failed(RuntimeException e) {
                errorThenRetry("could not load the outbound state: " + e);
            }
        });
    }

    private static Receipt parse(String json) {
        try {
            return Receipt.parse(PARSER.parseEvent(json));
        } catch (ProtocolException | ReceiptException e) {
            throw new IllegalStateException("a stored receipt does not read: " + e.getMessage(), e);
        }
    }

    private String custodyMessage() {
        return CustodyMessages.custody(headRow == null ? 0 : headRow.treeSize(),
                headRow == null ? null : headRow.receiptId().hex());
    }

    /** The wait before a scan of the store that failed is tried again. */
    static final long SCAN_RETRY_MS = 2_000;

    /** The first wait before forwarding starts again after a ledger failure; doubled after each, up to the max. */
    static final long RETRY_FIRST_MS = 1_000;
    static final long RETRY_MAX_MS = 60_000;

    /**
     * A failure of this node's own ledger (its database gone for a moment, a statement cancelled): forwarding stops,
     * and after a wait (1 s, doubled for each failure of this peer's forwarding in a row, up to 60 s; the count starts
     * over after two quiet minutes) this node ends the link, so that it is made again and its new forwarder starts
     * from what the ledger holds, with a custody exchange: the path of every relink. Before, such a failure halted
     * forwarding to the peer for as long as the link stayed up. (Starting again on the same link was tried and given
     * up: receipts of the frames in flight, arriving after the new exchange, were checked against the old mirror and
     * taken for a breach by an honest peer.)
     */
    private void errorThenRetry(String what) {
        long wait;
        long at;
        synchronized (this) {
            error(what);
            if (phase != Phase.HALTED) {
                return; // stopped: the link is gone, a new one starts afresh
            }
            wait = node.ledgerFailureBackoff(peer, RETRY_FIRST_MS, RETRY_MAX_MS);
            at = epoch;
        }
        LOG.infof("forwarding to %s: the link is made again in %d ms", peer, wait);
        CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS).execute(() -> relinkAfterError(at));
    }

    /** Ends the link for a new one, unless something else happened since the failure of {@code at}. */
    private void relinkAfterError(long at) {
        synchronized (this) {
            if (phase != Phase.HALTED || epoch != at || lastError == null || !halted.isEmpty()) {
                return; // stopped, resumed, or halted for a reason of the peer's since
            }
        }
        wire.end(org.fleetmesh.peering.Refusal.of(org.fleetmesh.peering.Refusal.Kind.ERROR,
                "this node's custody ledger failed; link again"));
    }

    private synchronized void error(String what) {
        lastError = what;
        LOG.warnf("forwarding to %s stopped: %s", peer, what);
        if (phase != Phase.STOPPED) {
            phase = Phase.HALTED;
        }
    }

    // ---- messages from the link (its thread) ----

    /** The peer's MESH-FEDERATE: the filters it wants from this node, persisted with the outbound state. */
    void federate(List<Filter> wanted) {
        synchronized (this) {
            filters = wanted;
            filtersFromPeer = true;
            if (phase == Phase.LOADING) {
                return; // saved with the state once loaded
            }
        }
        saveOutbound();
        scan();
    }

    void receipt(CustodyMessages.ReceiptMessage m) {
        enqueue(m);
    }

    void head(CustodyMessages.Head h) {
        enqueue(h);
    }

    /** A MESH-EVENTS-OK (the receiver runs without receipts): its seq and the per-event answers. */
    record Answered(long seq, List<String[]> answers) {
    }

    void answered(Answered a) {
        enqueue(a);
    }

    private void enqueue(Object m) {
        boolean submit;
        synchronized (this) {
            if (phase != Phase.EXCHANGE && phase != Phase.FORWARDING) {
                return;
            }
            if (inbox.size() >= MAX_INBOX) {
                LOG.warnf("%s sent more custody messages than this node waits for; one is dropped", peer);
                return;
            }
            inbox.add(m);
            submit = !queued;
            queued = true;
        }
        if (submit) {
            node.lane().submit(new Step());
        }
    }

    /** A MESH-EVENTS-REFUSED: a transient refusal resends the frame later; any other halts forwarding. */
    void refused(long seq, long retryMillis, String reason) {
        boolean halt = false;
        synchronized (this) {
            Sent s = inFlight.get(seq);
            if (s == null) {
                LOG.debugf("%s refused frame %d, which is not in flight: %s", peer, seq,
                        Snippet.forLog(reason));
                return;
            }
            if (reason.startsWith("rate-limited:") || reason.startsWith("error:")) {
                inFlight.remove(seq);
                queueFirst(s.batch());
                wakeLater(retryMillis < 0 ? DEFAULT_RETRY_MS : retryMillis);
            } else {
                LOG.warnf("%s refused frame %d: %s; forwarding to it halts", peer, seq,
                        Snippet.forLog(reason));
                halt = true;
            }
        }
        if (halt) {
            halt("refused: " + Snippet.forLog(reason));
        }
    }

    /** The link's grant changed, or something was committed: send and scan what may go now. */
    void wake() {
        trySend();
        scan();
    }

    void suspend() {
        halt("suspended: the peer suspended its grant to this node");
    }

    void stop() {
        synchronized (this) {
            phase = Phase.STOPPED;
            epoch++;
            ready.clear();
            dropPushed();
        }
    }

    /** An operator resumes: the halt is cleared and forwarding restarts with a custody exchange. */
    void resume() {
        String custody = null;
        synchronized (this) {
            halted = "";
            lastError = null;
            if (phase == Phase.HALTED) {
                restart();
                custody = custodyMessage();
            }
        }
        saveOutbound();
        if (custody != null) {
            wire.send(custody);
        }
    }

    /** Back to the custody exchange: what was in flight is forgotten and resent from the cursor. */
    private void restart() {
        phase = Phase.EXCHANGE;
        epoch++;
        ready.clear();
        dropPushed();
        inFlight.clear();
        inbox.clear();
        scanPos = ackedSeq;
    }

    private void halt(String reason) {
        synchronized (this) {
            if (phase == Phase.STOPPED) {
                return;
            }
            phase = Phase.HALTED;
            halted = reason;
            epoch++;
            ready.clear();
            dropPushed();
            inFlight.clear();
        }
        saveOutbound();
    }

    // ---- scanning the store (io executor) ----

    void scan() {
        long from;
        long ep;
        List<Filter> want;
        int slots;
        synchronized (this) {
            slots = node.settings().inFlight() - inFlight.size() - ready.size();
            if (scanning) {
                rescan = true; // a commit during the scan: look again when it ends
                return;
            }
            if (phase != Phase.FORWARDING || filters.isEmpty() || slots <= 0) {
                return;
            }
            scanning = true;
            from = scanPos;
            ep = epoch;
            want = filters;
        }
        try {
            node.io().execute(() -> scanPage(from, ep, want, slots));
        } catch (RuntimeException e) {
            synchronized (this) {
                scanning = false;
            }
            LOG.warnf("could not scan for %s now: %s", peer, e.toString());
        }
    }

    private void scanPage(long from, long ep, List<Filter> want, int slots) {
        int page = node.scanPage();
        List<long[]> seqs = new ArrayList<>();
        List<EventId> ids = new ArrayList<>();
        List<String> jsons = new ArrayList<>();
        boolean caughtUp;
        long consumed = from;
        List<Batch> batches = new ArrayList<>();
        try {
            node.store().scan(from, page, (seq, id, json) -> {
                seqs.add(new long[] { seq });
                ids.add(id);
                jsons.add(json);
                return true;
            });
            caughtUp = seqs.size() < page;
            List<EventId> lookup = new ArrayList<>();
            List<Event> events = new ArrayList<>();
            for (int i = 0; i < jsons.size(); i++) {
                Event e;
                try {
                    e = PARSER.parseEvent(jsons.get(i));
                } catch (ProtocolException ex) {
                    LOG.debugf("stored event %s does not parse: %s", ids.get(i), ex.getMessage());
                    events.add(null);
                    continue;
                }
                events.add(forwardable(e, want) ? e : null);
                if (events.get(i) != null) {
                    lookup.add(e.id());
                }
            }
            Map<EventId, CustodyLedger.Holders> holders = lookup.isEmpty() ? Map.of() : node.ledger().holders(lookup);
            List<Item> current = new ArrayList<>();
            long currentBytes = 0;
            for (int i = 0; i < events.size(); i++) {
                Event e = events.get(i);
                long seq = seqs.get(i)[0];
                if (e != null) {
                    int hops = hopsOf(e.id(), holders.get(e.id()));
                    if (hops >= 0) {
                        int bytes = (int) Utf8.length(jsons.get(i));
                        if (!current.isEmpty() && (current.size() >= node.settings().frameEvents()
                                || currentBytes + bytes > node.frameRoom())) {
                            batches.add(new Batch(List.copyOf(current), currentBytes));
                            current.clear();
                            currentBytes = 0;
                            if (batches.size() >= slots) {
                                caughtUp = false;
                                break;
                            }
                        }
                        current.add(new Item(seq, e.id(), jsons.get(i), bytes, hops));
                        currentBytes += bytes;
                    }
                }
                consumed = seq;
            }
            if (!current.isEmpty()) {
                batches.add(new Batch(List.copyOf(current), currentBytes));
            }
        } catch (RuntimeException e) {
            // the store or the ledger failed (the database gone for a moment): the cursor stays, and the scan is
            // tried again in a while, not only at the next commit, which may be long in coming
            LOG.warnf("scanning the store for %s failed: %s; looking again in %d ms", peer, e.toString(),
                    SCAN_RETRY_MS);
            synchronized (this) {
                scanning = false;
                rescan = false;
                wakeLater(SCAN_RETRY_MS);
            }
            return;
        }
        boolean again;
        synchronized (this) {
            scanning = false;
            again = rescan;
            rescan = false;
            if (ep == epoch && phase == Phase.FORWARDING && from == scanPos) {
                scanPos = consumed;
                ready.addAll(batches);
                again |= !caughtUp;
            }
        }
        trySend();
        if (again) {
            scan();
        }
    }

    /** Whether the event may go to this peer at all: stored, not protected, not custody or grant plumbing, wanted. */
    private static boolean forwardable(Event e, List<Filter> want) {
        if (!movable(e)) {
            return false;
        }
        for (Filter f : want) {
            if (f.withLimit(null).matches(e)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the event may cross a link at all: stored, not protected (NIP-70), not custody or grant plumbing. */
    private static boolean movable(Event e) {
        return e.eventClass() != EventClass.EPHEMERAL && !e.isProtected() && e.kind() != Receipt.KIND
                && e.kind() != GRANT_KIND;
    }

    // ---- pushing what the peer asked for (io executor) ----

    /**
     * Takes as many of {@code ids} as fit under {@code max} pushed ids pending for this peer and returns how many it
     * took; those the store holds, that match {@code within}, that a peer may read without NIP-42 (no private kind)
     * and that may cross a link at all go in pushed frames (hops 0), whatever the peer is known to hold: it asked.
     */
    int push(List<EventId> ids, Filter within, int max) {
        int take;
        long ep;
        synchronized (this) {
            if (phase == Phase.HALTED || phase == Phase.STOPPED) {
                return 0;
            }
            take = Math.max(0, Math.min(ids.size(), max - pushedPending));
            if (take == 0) {
                return 0;
            }
            pushedPending += take;
            ep = epoch;
        }
        List<EventId> taken = List.copyOf(ids.subList(0, take));
        try {
            node.io().execute(() -> readPushed(taken, within, ep));
        } catch (RuntimeException e) {
            synchronized (this) {
                if (ep == epoch) {
                    pushedPending -= take;
                }
            }
            LOG.warnf("could not read the events %s asked for now: %s", peer, e.toString());
            return 0;
        }
        return take;
    }

    private void readPushed(List<EventId> ids, Filter within, long ep) {
        List<Item> found = new ArrayList<>();
        try {
            long now = node.millis() / 1000;
            for (int from = 0; from < ids.size(); from += PUSH_QUERY) {
                Set<EventId> part = new HashSet<>(ids.subList(from, Math.min(ids.size(), from + PUSH_QUERY)));
                if (within.ids() != null) {
                    part.retainAll(within.ids());
                }
                if (part.isEmpty()) {
                    continue;
                }
                Filter f = new Filter(part, within.authors(), within.kinds(), within.tags(), within.since(),
                        within.until(), null);
                node.store().query(f, now, PUSH_READER, (id, json) -> {
                    try {
                        Event e = PARSER.parseEvent(json);
                        if (movable(e) && f.matches(e)) {
                            found.add(new Item(-1, e.id(), json, (int) Utf8.length(json), 0));
                        }
                    } catch (ProtocolException ex) {
                        LOG.debugf("stored event %s does not parse: %s", id, ex.getMessage());
                    }
                    return true;
                });
            }
        } catch (RuntimeException e) {
            LOG.warnf("reading the events %s asked for failed: %s", peer, e.toString());
            synchronized (this) {
                if (ep == epoch) {
                    pushedPending -= ids.size();
                }
            }
            return;
        }
        List<Batch> batches = new ArrayList<>();
        List<Item> current = new ArrayList<>();
        long currentBytes = 0;
        for (Item it : found) {
            if (!current.isEmpty() && (current.size() >= node.settings().frameEvents()
                    || currentBytes + it.bytes() > node.frameRoom())) {
                batches.add(batch(current, true));
                current.clear();
                currentBytes = 0;
            }
            current.add(it);
            currentBytes += it.bytes();
        }
        if (!current.isEmpty()) {
            batches.add(batch(current, true));
        }
        synchronized (this) {
            if (ep != epoch) {
                return;
            }
            pushedPending -= ids.size() - found.size();
            pushedReady.addAll(batches);
        }
        trySend();
    }

    /** The hops the event carries to this peer, or -1 when the peer holds it or the hop limit stops it. */
    private int hopsOf(EventId id, CustodyLedger.Holders h) {
        int arrived = -1;
        Provenance.Source recent = node.provenance().of(id);
        if (recent != null) {
            if (recent.from(peer)) {
                return -1;
            }
            arrived = recent.hops();
        }
        if (h != null) {
            if (h.peers().contains(peer)) {
                return -1;
            }
            if (h.hops() >= 0) {
                arrived = arrived < 0 ? h.hops() : Math.min(arrived, h.hops());
            }
        }
        int hops = arrived < 0 ? 0 : arrived + 1;
        return hops >= node.settings().maxHops() ? -1 : hops;
    }

    // ---- sending (any thread; sends under the lock so frames leave in seq order) ----

    void trySend() {
        synchronized (this) {
            while (phase == Phase.FORWARDING && (!ready.isEmpty() || !pushedReady.isEmpty())
                    && inFlight.size() < node.settings().inFlight()) {
                // pushed and scanned batches take turns: a rebuild does not stall live forwarding, nor it the rebuild
                boolean push = !pushedReady.isEmpty() && (ready.isEmpty() || !lastPushed);
                ArrayDeque<Batch> from = push ? pushedReady : ready;
                Batch b = from.peek();
                List<String> ids = new ArrayList<>(b.items().size());
                List<Integer> hops = new ArrayList<>(b.items().size());
                List<String> texts = new ArrayList<>(b.items().size());
                for (Item it : b.items()) {
                    ids.add(it.id().hex());
                    hops.add(it.hops());
                    texts.add(it.json());
                }
                SignedFrame f = node.sign(peer, nextSeq, ids, hops);
                String text = f.encode(texts);
                long delay = account.pacer().delay(Utf8.length(text), ids.size(), System.nanoTime());
                if (delay == Bucket.NEVER) {
                    from.poll();
                    if (b.items().size() > 1) {
                        int half = b.items().size() / 2;
                        from.addFirst(batch(b.items().subList(half, b.items().size()), b.pushed()));
                        from.addFirst(batch(b.items().subList(0, half), b.pushed()));
                    } else {
                        if (b.pushed()) {
                            pushedPending--;
                        }
                        LOG.warnf("event %s never fits the grant %s gave this node; it is not forwarded to it",
                                b.items().get(0).id(), peer);
                    }
                    continue;
                }
                if (delay > 0) {
                    wakeLater(Math.max(1, delay / 1_000_000));
                    return;
                }
                from.poll();
                lastPushed = push;
                List<ReceiptCheck.FrameEvent> fe = new ArrayList<>(ids.size());
                for (Item it : b.items()) {
                    fe.add(new ReceiptCheck.FrameEvent(it.id(), it.bytes(), it.hops()));
                }
                inFlight.put(nextSeq, new Sent(nextSeq, b, new ReceiptCheck.Frame(nextSeq, f.headerJson(), fe)));
                nextSeq++;
                wire.send(text);
            }
        }
    }

    private static Batch batch(List<Item> items) {
        return batch(items, false);
    }

    private static Batch batch(List<Item> items, boolean pushed) {
        return new Batch(List.copyOf(items), items.stream().mapToLong(Item::bytes).sum(), pushed);
    }

    /** Puts a batch back at the head of its queue (a transient refusal: it goes again first). */
    private void queueFirst(Batch b) {
        (b.pushed() ? pushedReady : ready).addFirst(b);
    }

    /** Forgets every pushed batch (a halt, a restart, a stop): the puller asks again. */
    private void dropPushed() {
        pushedReady.clear();
        pushedPending = 0;
    }

    private void wakeLater(long millis) {
        if (wakePending) {
            return;
        }
        wakePending = true;
        // the timer runs the wake itself: a full io queue must not lose it (scan() hands its work to io)
        CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS).execute(() -> {
            synchronized (this) {
                wakePending = false;
            }
            wake();
        });
    }

    // ---- the cursor ----

    /** The store sequence below which every wanted event is receipted: below the oldest batch still unreceipted. */
    private long cursor(Set<Long> finishing, List<Batch> retries) {
        long c = scanPos;
        for (Batch b : ready) {
            c = Math.min(c, b.floor());
        }
        for (Sent s : inFlight.values()) {
            if (!finishing.contains(s.seq()) && !s.batch().pushed()) {
                c = Math.min(c, s.batch().floor());
            }
        }
        for (Batch b : retries) {
            if (!b.pushed()) {
                c = Math.min(c, b.floor());
            }
        }
        return Math.max(c, ackedSeq);
    }

    private CustodyLedger.Outbound outbound(long acked) {
        return new CustodyLedger.Outbound(peer, acked, nextSeq, FederateMessage.json(filters), halted);
    }

    /** Saves the outbound state; saves asked for while one waits are one write (a peer's MESH-FEDERATE in a loop). */
    private void saveOutbound() {
        synchronized (this) {
            if (saveQueued) {
                return;
            }
            saveQueued = true;
        }
        node.lane().submit(new CustodyLane.Job() {
            @Override
            public void prepare(List<CustodyLedger.Append> steps) {
                CustodyLedger.Outbound o;
                synchronized (Forwarder.this) {
                    saveQueued = false;
                    if (phase == Phase.LOADING || phase == Phase.STOPPED || !loaded) {
                        // a stopped forwarder's state is the next link's to write; one whose load failed holds only
                        // its initial values, which would overwrite the cursor and a halt the ledger keeps
                        return;
                    }
                    o = outbound(ackedSeq);
                }
                node.ledger().saveOutbound(o);
            }

            @Override
            public void committed() {
            }

            @Override
            public void failed(RuntimeException e) {
                synchronized (Forwarder.this) {
                    saveQueued = false;
                }
                LOG.warnf("the outbound state of %s was not saved: %s", peer, e.toString());
            }
        });
    }

    // ---- receipts and answers (the custody lane) ----

    /** One lane pass over the inbox: receipts verified in chain order, written with the cursor in one step each. */
    private final class Step implements CustodyLane.Job {
        private final List<Long> finished = new ArrayList<>();
        private final List<Batch> retries = new ArrayList<>();
        private final List<String> messages = new ArrayList<>();
        private final List<EventId> verifiedNow = new ArrayList<>();
        private CustodyLedger.Receipt newRow;
        /** The mirror's head this step started from: a step that verified nothing leaves the mirror as it finds it. */
        private CustodyLedger.Receipt preparedRow;
        private Receipt newHead;
        private CompactRange newRange;
        private ReceiptCheck.Breach breach;
        private Long exchanged;
        private long acked;
        private long ep;

        @Override
        public void prepare(List<CustodyLedger.Append> steps) {
            List<Object> items;
            Map<Long, Sent> sent;
            Set<EventId> seen;
            synchronized (Forwarder.this) {
                if (phase == Phase.HALTED || phase == Phase.STOPPED) {
                    // a halted pair verifies nothing more until it is resumed or relinked; a stopped one (its link
                    // closed) leaves the rest to the next link's forwarder, whose custody exchange catches it up
                    inbox.clear();
                }
                seen = new HashSet<>(verified);
                items = new ArrayList<>(inbox);
                inbox.clear();
                sent = new LinkedHashMap<>(inFlight);
                newRow = headRow;
                preparedRow = headRow;
                newHead = head;
                newRange = range;
                ep = epoch;
            }
            long now = node.millis();
            PubKey self = node.selfNostr();
            Set<EventId> addedNow = new HashSet<>();
            // one read of the mirror's leaves for every receipt of the pass
            Set<EventId> probeAll = new HashSet<>();
            for (Object item : items) {
                if (item instanceof CustodyMessages.ReceiptMessage m) {
                    probeAll.addAll(m.appended());
                    Sent s = m.catchUp() ? null : sent.get(m.seq());
                    if (s != null) {
                        s.frame().events().forEach(e -> probeAll.add(e.id()));
                    }
                }
            }
            Set<EventId> stored = probeAll.isEmpty() ? Set.of()
                    : new HashSet<>(node.ledger().indexOf(CustodyLedger.Side.SENT, peer, probeAll).keySet());
            boolean outboundChanged = false;
            for (Object item : items) {
                if (breach != null) {
                    break;
                }
                if (item instanceof CustodyMessages.ReceiptMessage m) {
                    if (m.catchUp() && (seen.contains(m.receipt().id())
                            || (newHead != null && newHead.id().equals(m.receipt().id())))) {
                        continue; // verified already, as it came after the frame (before a resume's catch-up)
                    }
                    Sent s = m.catchUp() ? null : sent.get(m.seq());
                    if (s != null && finished.contains(s.seq())) {
                        s = null;
                    }
                    Set<EventId> probe = new HashSet<>(m.appended());
                    if (s != null) {
                        s.frame().events().forEach(e -> probe.add(e.id()));
                    }
                    Set<EventId> already = new HashSet<>();
                    for (EventId id : probe) {
                        if (stored.contains(id) || addedNow.contains(id)) {
                            already.add(id);
                        }
                    }
                    ReceiptCheck.Mirror mirror = new ReceiptCheck.Mirror(receiverKey, self, peer, newHead, newRange);
                    ReceiptCheck.Result r = ReceiptCheck.check(mirror, s == null ? null : s.frame(), already,
                            m.receipt(), m.consistency(), m.appended(), now);
                    if (r instanceof ReceiptCheck.Breach b) {
                        breach = b;
                        break;
                    }
                    ReceiptCheck.Ok ok = (ReceiptCheck.Ok) r;
                    Map<EventId, Item> items0 = new LinkedHashMap<>();
                    if (s != null) {
                        s.batch().items().forEach(it -> items0.put(it.id(), it));
                    }
                    List<CustodyLedger.Leaf> leaves = new ArrayList<>();
                    long index = newRange.size();
                    for (EventId id : m.appended()) {
                        Item it = items0.get(id);
                        leaves.add(new CustodyLedger.Leaf(index++, id, it == null ? 0 : it.bytes(),
                                it == null ? 0 : it.hops()));
                        addedNow.add(id);
                    }
                    Receipt rc = ok.receipt();
                    CustodyLedger.Receipt row = new CustodyLedger.Receipt(newRow == null ? 0 : newRow.position() + 1,
                            rc.size(), rc.seq(), rc.id(), rc.event().json(), rc.bytes(), rc.events(),
                            m.consistency(), ok.range().hashes());
                    steps.add(new CustodyLedger.Append(CustodyLedger.Side.SENT, peer, leaves, row, Optional.empty()));
                    newRow = row;
                    newHead = rc;
                    newRange = ok.range();
                    seen.add(rc.id());
                    verifiedNow.add(rc.id());
                    if (s != null) {
                        finished.add(s.seq());
                        List<Item> again = new ArrayList<>();
                        for (Receipt.Rejected rj : ok.rejected()) {
                            Item it = items0.get(rj.id());
                            if (it != null && transientRefusal(rj.reason())) {
                                again.add(it);
                            }
                        }
                        if (!again.isEmpty()) {
                            retries.add(batch(again, s.batch().pushed()));
                        }
                    }
                } else if (item instanceof CustodyMessages.Head h) {
                    if (h.more()) {
                        messages.add(CustodyMessages.custody(newRow == null ? 0 : newRow.treeSize(),
                                newRow == null ? null : newRow.receiptId().hex()));
                        continue;
                    }
                    if (h.reset() != null && newHead != null) {
                        String problem = h.size() != 0 || h.head() != null
                                ? "a reset comes with the empty tree's head (size 0, head null), not size " + h.size()
                                : CustodyReset.check(h.reset(), receiverKey, self, newHead.id());
                        if (problem == null) {
                            // the receiver lost its tree (a restore): keep the old chain aside, mirror from 0 again
                            Optional<String> archived = node.ledger().archive(CustodyLedger.Side.SENT, peer);
                            String evidence = CustodyReset.evidence(peer, receiverKey, self, newHead, h.reset(),
                                    archived.orElse(null), now);
                            node.evidence(new Evidence(0, peer, "S1", "custody-reset: the peer no longer holds its "
                                    + "tree of this node's events (size " + newHead.size() + ")", 0, now, now, 0,
                                    account.given().map(g -> g.event().id().hex()).orElse(""),
                                    account.given().map(g -> g.event().json()).orElse(""), evidence));
                            LOG.infof("custody reset by %s: its tree of this node's events (size %d, receipt %s) is "
                                    + "gone; the old chain is kept as %s and the mirror starts again at size 0", peer,
                                    newHead.size(), newHead.id().hex(), archived.orElse("(none)"));
                            newRow = null;
                            newHead = null;
                            newRange = CompactRange.empty();
                        } else {
                            LOG.warnf("%s sent a custody reset that does not hold: %s", peer, problem);
                        }
                    }
                    ReceiptCheck.Mirror mirror = new ReceiptCheck.Mirror(receiverKey, self, peer, newHead, newRange);
                    EventId named = h.head() == null ? null : EventId.ofHex(h.head());
                    Event namedEvent = newHead != null && named != null && newHead.id().equals(named)
                            ? newHead.event() : null;
                    ReceiptCheck.Breach b = ReceiptCheck.checkHead(mirror, h.size(), named, namedEvent, false, now);
                    if (b != null) {
                        breach = b;
                        break;
                    }
                    exchanged = h.seq() == null ? 0L : h.seq();
                    outboundChanged = true;
                } else if (item instanceof Answered a) {
                    Sent s = sent.get(a.seq());
                    if (s == null || finished.contains(s.seq())) {
                        continue;
                    }
                    finished.add(s.seq());
                    List<Item> again = new ArrayList<>();
                    for (int i = 0; i < a.answers().size() && i < s.batch().items().size(); i++) {
                        String[] ans = a.answers().get(i);
                        if (!"true".equals(ans[1]) && transientRefusal(ans[2])) {
                            again.add(s.batch().items().get(i));
                        }
                    }
                    if (!again.isEmpty()) {
                        retries.add(batch(again, s.batch().pushed()));
                    }
                    outboundChanged = true;
                }
            }
            CustodyLedger.Outbound o;
            synchronized (Forwarder.this) {
                if (breach != null) {
                    halted = "custody: " + breach.kind().word();
                }
                if (exchanged != null && breach == null) {
                    halted = "";
                    nextSeq = Math.max(nextSeq, exchanged + 1);
                }
                acked = cursor(new HashSet<>(finished), retries);
                o = outbound(acked);
            }
            if (breach != null) {
                node.evidence(new Evidence(0, peer, "S2", "custody: " + breach.kind().word(), 0, now, now, 0,
                        account.given().map(g -> g.event().id().hex()).orElse(""),
                        account.given().map(g -> g.event().json()).orElse(""), breach.evidence()));
                LOG.warnf("custody breach by %s (%s): %s; forwarding to it halts", peer, breach.kind().word(),
                        breach.detail());
            }
            int last = -1;
            for (int i = 0; i < steps.size(); i++) {
                if (steps.get(i).side() == CustodyLedger.Side.SENT && steps.get(i).peer().equals(peer)) {
                    last = i;
                }
            }
            if (last >= 0) {
                CustodyLedger.Append a = steps.get(last);
                steps.set(last, new CustodyLedger.Append(a.side(), a.peer(), a.leaves(), a.receipt(), Optional.of(o)));
            } else if (outboundChanged || breach != null) {
                node.ledger().saveOutbound(o);
            }
        }

        @Override
        public void committed() {
            List<String> send = new ArrayList<>(messages);
            boolean resume = false;
            boolean again;
            synchronized (Forwarder.this) {
                queued = !inbox.isEmpty();
                for (EventId id : verifiedNow) {
                    verified.add(id);
                    if (verified.size() > VERIFIED) {
                        verified.remove(verified.iterator().next());
                    }
                }
                if (newRow != preparedRow) {
                    headRow = newRow;
                    head = newHead;
                    range = newRange;
                }
                if (ep == epoch) {
                    for (Long s : finished) {
                        Sent done = inFlight.remove(s);
                        if (done != null && done.batch().pushed()) {
                            pushedPending -= done.batch().items().size();
                        }
                    }
                    for (int i = retries.size() - 1; i >= 0; i--) {
                        Batch r = retries.get(i);
                        if (r.pushed()) {
                            pushedPending += r.items().size();
                        }
                        queueFirst(r);
                    }
                    ackedSeq = Math.max(ackedSeq, acked);
                }
                if (breach != null) {
                    if (phase != Phase.STOPPED) {
                        phase = Phase.HALTED;
                    }
                    epoch++;
                    ready.clear();
                    dropPushed();
                    inFlight.clear();
                    inbox.clear();
                    queued = false;
                    send.clear();
                } else if (exchanged != null && phase == Phase.EXCHANGE) {
                    phase = Phase.FORWARDING;
                    scanPos = ackedSeq;
                    resume = true;
                }
                if (phase == Phase.STOPPED) {
                    send.clear();
                }
                // decided under the lock: once it is released a receipt may arrive, set queued and submit its own
                // Step; reading the field again would submit a second one, which would prepare from the same head
                // and, committing after the first, put that older head back (a false "prev" breach at the next one)
                again = queued;
            }
            send.forEach(wire::send);
            if (again) {
                node.lane().submit(new Step());
            }
            trySend();
            scan();
            if (resume) {
                LOG.debugf("custody exchange with %s passed; forwarding from store seq %d", peer, scanPos);
            }
        }

        @Override
        public void failed(RuntimeException e) {
            synchronized (Forwarder.this) {
                queued = false;
            }
            errorThenRetry("the custody ledger refused a receipt step: " + e);
        }
    }

    private static boolean transientRefusal(String reason) {
        return reason != null && (reason.startsWith("rate-limited:") || reason.startsWith("error:"));
    }

    // ---- status ----

    synchronized long queue(long lastSequence) {
        long n = Math.max(0, lastSequence - scanPos);
        for (Batch b : ready) {
            n += b.items().size();
        }
        for (Sent s : inFlight.values()) {
            if (!s.batch().pushed()) {
                n += s.batch().items().size();
            }
        }
        return n;
    }

    synchronized Map<String, Object> sent() {
        if (headRow == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("size", headRow.treeSize());
        m.put("head", headRow.receiptId().hex());
        m.put("seq", headRow.seq());
        return m;
    }

    synchronized String halted() {
        if (lastError != null) {
            return "error: " + lastError;
        }
        return halted.isEmpty() ? null : halted;
    }

    synchronized List<Filter> offered() {
        return filters;
    }

    synchronized Phase phase() {
        return phase;
    }

    synchronized int inFlight() {
        return inFlight.size();
    }

    synchronized int pushedPending() {
        return pushedPending;
    }

    /**
     * Parses a MESH-EVENTS-OK: its shape strictly (a message that does not read is answered), each answer's members
     * leniently (they only decide what is resent).
     */
    static Answered answers(JsonNode root) throws FrameException {
        long seq = DeliveryJson.count(root.path(1).get("seq"));
        if (!root.isArray() || root.size() != 3 || !root.get(1).isObject() || seq < 0 || !root.get(2).isArray()) {
            throw new FrameException("invalid: " + EventFrame.EVENTS_OK + " is [\"" + EventFrame.EVENTS_OK
                    + "\", {\"seq\": <n>}, [[<id>, <accepted>, <message>], ...]]");
        }
        List<String[]> out = new ArrayList<>();
        for (JsonNode a : root.get(2)) {
            out.add(new String[] { a.path(0).asText(""), a.path(1).asText("false"), a.path(2).asText("") });
        }
        return new Answered(seq, out);
    }
}
