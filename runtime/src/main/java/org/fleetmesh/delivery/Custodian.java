package org.fleetmesh.delivery;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.fleetmesh.delivery.log.CompactRange;
import org.fleetmesh.delivery.log.CustodyReset;
import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.delivery.log.Receipt;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Snippet;
import org.fleetmesh.nostr.Utf8;
import org.fleetmesh.peering.link.EventFrame;
import org.fleetmesh.peering.link.EventLink;
import org.fleetmesh.peering.link.PeerAccount;
import org.fleetmesh.relay.Ingest;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.jboss.logging.Logger;

/**
 * The receiver side of one pair (docs/spec/delivery.md): checks each signed frame before anything is stored, hands its
 * events to the relay's ingest, and once they are committed appends the new ids to the pair's tree, signs the kind
 * 11803 receipt and writes both on the custody lane, then sends {@code MESH-RECEIPT}; answers {@code MESH-CUSTODY}
 * with the catch-up receipts and its head, in order with the frames before it. One per peer, shared by its links, so
 * frames of a closed link are still receipted (the sender catches up) before a new link is answered.
 */
final class Custodian {
    private static final Logger LOG = Logger.getLogger(Custodian.class);
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);
    /** Receipts per catch-up answer. */
    static final int CATCH_UP = 256;
    /** Frames taken and not yet receipted: beyond it a frame is refused {@code rate-limited:}. */
    static final int MAX_PENDING = 64;
    /** Receipt pages searched for the sender's head among receipts of one tree size. */
    private static final int MAX_SEARCH_PAGES = 16;

    /** A frame taken: its events, their outcomes as ingest reports them. */
    private static final class Taken {
        final long seq;
        final EventLink.Wire wire;
        final List<String> texts;
        final List<String> ids;
        final List<Integer> hops;
        final Ingest.Outcome[] outcomes;
        volatile boolean done;

        Taken(long seq, EventLink.Wire wire, List<String> texts, List<String> ids, List<Integer> hops) {
            this.seq = seq;
            this.wire = wire;
            this.texts = texts;
            this.ids = ids;
            this.hops = hops;
            this.outcomes = new Ingest.Outcome[texts.size()];
        }
    }

    /** A MESH-CUSTODY to answer after the frames taken before it. */
    private record Asked(EventLink.Wire wire, CustodyMessages.Custody request) {
    }

    /** The links (their wires) on which this node has answered the sender's MESH-CUSTODY with its final head. */
    private final java.util.Set<EventLink.Wire> exchanged = java.util.Collections
            .newSetFromMap(new java.util.WeakHashMap<>());
    private final Delivery node;
    private final String peer;
    private final String peerDid;
    private final Multikey transport;
    private final PubKey sender;
    private final ArrayDeque<Object> pending = new ArrayDeque<>();
    private boolean loaded;
    /** Reads of the head that failed in a row (each tried again later). */
    private int loadFailures;
    private boolean queued;
    private int attached;
    private CompactRange range;
    private CustodyLedger.Receipt head;
    /** The highest frame seq taken (receipted or not): a frame must be above it. */
    private long highestSeq;

    Custodian(Delivery node, String peer, String peerDid, Multikey transport, PubKey sender) {
        this.node = node;
        this.peer = peer;
        this.peerDid = peerDid;
        this.transport = transport;
        this.sender = sender;
    }

    String peer() {
        return peer;
    }

    /** Loads the pair's head and compact range, on the lane, before any frame or question is served. */
    void load() {
        node.lane().submit(new CustodyLane.Job() {
            CustodyLedger.Receipt h;

            @Override
            public void prepare(List<CustodyLedger.Append> steps) {
                h = node.ledger().head(CustodyLedger.Side.RECEIVED, peer).orElse(null);
                if (h != null && !signedBySelf(h)) {
                    // a chain this node signed under its previous key (keys rotate): the sender mirrors this node
                    // under its new DID from nothing, and checks every receipt against the new key, so the old chain
                    // is moved aside (still exportable under its archived name) and a new one starts at size 0
                    Optional<String> archived = node.ledger().archive(CustodyLedger.Side.RECEIVED, peer);
                    LOG.infof("the custody chain of %s's events was signed with this node's previous Nostr key (a key"
                            + " rotation): kept as %s; a new chain starts under the current key", peer,
                            archived.orElse("?"));
                    h = null;
                }
            }

            @Override
            public void committed() {
                synchronized (Custodian.this) {
                    head = h;
                    range = h == null ? CompactRange.empty() : CompactRange.of(h.treeSize(), h.compactRange());
                    highestSeq = Math.max(highestSeq, h == null ? 0 : h.seq());
                    loaded = true;
                }
                pump();
            }

            @Override
            public void failed(RuntimeException e) {
                long wait;
                synchronized (Custodian.this) {
                    loadFailures++;
                    wait = Math.min(Forwarder.RETRY_MAX_MS, Forwarder.RETRY_FIRST_MS << Math.min(16, loadFailures - 1));
                }
                // this node's own ledger failed (its database gone for a moment): read again later (a custodian
                // kept for a link that comes back is not loaded again by it); its frames wait for the exchange
                LOG.warnf("could not read the custody head of %s: %s; reading it again in %d ms", peer, e.toString(),
                        wait);
                java.util.concurrent.CompletableFuture.delayedExecutor(wait, java.util.concurrent.TimeUnit.MILLISECONDS)
                        .execute(() -> {
                            synchronized (Custodian.this) {
                                if (loaded) {
                                    return;
                                }
                            }
                            if (node.current(Custodian.this)) { // not one released, nor a closed delivery's
                                load();
                            }
                        });
            }
        });
    }

    /** Whether the receipt {@code r} is signed by this node's current Nostr key. */
    private boolean signedBySelf(CustodyLedger.Receipt r) {
        try {
            return PARSER.parseEvent(r.json()).pubkey().equals(node.selfNostr());
        } catch (ProtocolException e) {
            throw new IllegalStateException("a stored receipt of " + peer + " does not read: " + e.getMessage(), e);
        }
    }

    synchronized void attach() {
        attached++;
    }

    synchronized void detach() {
        attached--;
    }

    /** No link, nothing pending: the node may forget it (the ledger holds everything). */
    synchronized boolean idle() {
        return attached <= 0 && pending.isEmpty() && !queued;
    }

    /** A frame the link's budget admitted: checked, then handed to ingest; answered once it has custody. */
    void frame(EventLink.Wire wire, PeerAccount account, long seq, String headerJson, List<String> events) {
        String problem;
        SignedFrame frame = null;
        try {
            frame = verified(headerJson, events);
            problem = null;
        } catch (FrameException e) {
            problem = e.getMessage();
        }
        if (problem != null) {
            refuse(wire, account, seq, problem);
            return;
        }
        Taken t = new Taken(frame.seq(), wire, events, frame.ids(), frame.hops());
        synchronized (this) {
            if (!loaded || !exchanged.contains(wire)) {
                // decided by what the peer sent on this link, not by how fast the head loaded
                problem = "invalid: a frame before the custody exchange (MESH-CUSTODY, MESH-CUSTODY-HEAD)";
            } else if (frame.seq() <= highestSeq) {
                problem = "invalid: frame seq " + frame.seq() + " is not above " + highestSeq
                        + ", the last this node took from you";
            } else if (pending.size() >= MAX_PENDING) {
                wire.send(EventFrame.refused(seq, 100, "rate-limited: " + MAX_PENDING
                        + " frames wait for their receipts; send again later"));
                return;
            } else {
                highestSeq = frame.seq();
                pending.add(t);
            }
        }
        if (problem != null) {
            refuse(wire, account, seq, problem);
            return;
        }
        List<Event> parsed = new ArrayList<>(events.size());
        int[] slots = new int[events.size()];
        for (int i = 0; i < events.size(); i++) {
            EventId id = EventId.ofHex(t.ids.get(i));
            try {
                Event e = PARSER.parseEvent(events.get(i));
                if (!e.id().equals(id)) {
                    t.outcomes[i] = new Ingest.Outcome(id, Ingest.Status.REFUSED, "invalid: the event's id member is "
                            + "read twice differently");
                    continue;
                }
                slots[parsed.size()] = i;
                parsed.add(e);
                node.provenance().arrived(id, peer, t.hops.get(i));
            } catch (ProtocolException e) {
                t.outcomes[i] = new Ingest.Outcome(id, Ingest.Status.REFUSED, e.getMessage());
            }
        }
        if (parsed.isEmpty()) {
            t.done = true;
            pump();
            return;
        }
        node.intake().fromPeer(parsed, peerDid).whenComplete((outcomes, err) -> {
            for (int j = 0; j < parsed.size(); j++) {
                Ingest.Outcome o;
                if (err != null || outcomes == null || j >= outcomes.size()) {
                    o = new Ingest.Outcome(parsed.get(j).id(), Ingest.Status.REFUSED, "error: the relay could not "
                            + "store the event");
                } else {
                    o = outcomes.get(j);
                }
                t.outcomes[slots[j]] = o;
            }
            if (err != null) {
                LOG.warnf("ingest failed for a frame of %s: %s", peer, err.toString());
            }
            t.done = true;
            pump();
        });
    }

    /** The frame's header checked against this link and clock, its ids read from the events, its signature. */
    private SignedFrame verified(String headerJson, List<String> events) throws FrameException {
        SignedFrame.Header h = SignedFrame.parseHeader(headerJson);
        if (!h.from().equals(peer)) {
            throw new FrameException("invalid: the frame is from " + Snippet.of(h.from())
                    + ", not this link's peer " + peer);
        }
        if (!h.to().equals(node.self())) {
            throw new FrameException("invalid: the frame is to " + Snippet.of(h.to()) + ", not this node "
                    + node.self());
        }
        long skew = Math.abs(h.time() - node.millis());
        if (skew > node.settings().maxSkew().toMillis()) {
            throw new FrameException("invalid: the frame's time is " + skew + " ms from this node's clock (at most "
                    + node.settings().maxSkew().toMillis() + ")");
        }
        if (h.count() != events.size()) {
            throw new FrameException("invalid: the header says " + h.count() + " events, the frame holds "
                    + events.size());
        }
        List<String> ids = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            ids.add(SignedFrame.idOf(events.get(i), i));
        }
        SignedFrame f = SignedFrame.of(h, ids);
        if (!f.verifies(transport)) {
            throw new FrameException("invalid: the frame's signature does not verify under " + peer
                    + "'s transport key");
        }
        return f;
    }

    private void refuse(EventLink.Wire wire, PeerAccount account, long seq, String reason) {
        wire.send(EventFrame.refused(seq, -1, reason));
        wire.violation();
    }

    /** A MESH-CUSTODY from the peer: answered in order after the frames taken before it. */
    void custody(EventLink.Wire wire, CustodyMessages.Custody request) {
        boolean busy;
        synchronized (this) {
            // one exchange at a time, and none while the last answer still waits for the peer's grant: each answer
            // reads up to CATCH_UP receipts, so a peer asking in a loop must not make this node read or queue more
            busy = pending.stream().anyMatch(o -> o instanceof Asked)
                    || (wire instanceof PacedWire p && p.queued() > CATCH_UP + MAX_PENDING);
            if (!busy) {
                pending.add(new Asked(wire, request));
            }
        }
        if (busy) {
            wire.send(org.fleetmesh.peering.MeshErr.of(new org.fleetmesh.peering.Refusal(
                    org.fleetmesh.peering.Refusal.Kind.PEER, "rate-limited: a custody exchange is already under way; "
                            + "ask again after its MESH-CUSTODY-HEAD")).encode());
            return;
        }
        pump();
    }

    /** Sends what is ready in order: the frames whose events all have outcomes, up to the next question. */
    private void pump() {
        boolean submit = false;
        List<Runnable> sends = new ArrayList<>();
        synchronized (this) {
            if (!loaded || queued || pending.isEmpty() || !ready(pending.peek())) {
                if (pending.isEmpty() && !queued && attached <= 0) {
                    sends.add(() -> node.release(this));
                }
            } else if (!node.settings().receipts()) {
                while (!pending.isEmpty() && ready(pending.peek()) && pending.peek() instanceof Taken t) {
                    pending.poll();
                    sends.add(() -> answer(t));
                }
                if (!pending.isEmpty() && pending.peek() instanceof Asked) {
                    queued = true;
                    submit = true;
                }
            } else {
                queued = true;
                submit = true;
            }
        }
        sends.forEach(Runnable::run);
        if (submit) {
            node.lane().submit(new Step());
        }
    }

    private static boolean ready(Object o) {
        return !(o instanceof Taken t) || t.done;
    }

    /** Without receipts ({@code fleetmesh.delivery.receipts=false}): the per-event answers of link-events.md. */
    private void answer(Taken t) {
        List<EventFrame.Answer> answers = new ArrayList<>(t.outcomes.length);
        for (Ingest.Outcome o : t.outcomes) {
            answers.add(new EventFrame.Answer(o.id().hex(), o.accepted(), o.message()));
        }
        t.wire.send(EventFrame.answers(t.seq, answers));
    }

    /** One pass of the lane over what is ready: the receipts of the ready frames, or the answer to one question. */
    private final class Step implements CustodyLane.Job {
        private final List<Taken> frames = new ArrayList<>();
        private Asked asked;
        private final List<String> messages = new ArrayList<>();
        private CompactRange newRange;
        private CustodyLedger.Receipt newHead;

        @Override
        public void prepare(List<CustodyLedger.Append> steps) {
            CompactRange r;
            CustodyLedger.Receipt h;
            long seqSeen;
            synchronized (Custodian.this) {
                // queued stays true until committed or failed: the next pass starts from this one's state
                if (pending.peek() instanceof Asked) {
                    asked = (Asked) pending.poll();
                } else {
                    while (!pending.isEmpty() && pending.peek() instanceof Taken t && t.done) {
                        frames.add(t);
                        pending.poll();
                    }
                }
                r = range;
                h = head;
                seqSeen = highestSeq;
            }
            if (asked != null) {
                messages.addAll(catchUp(asked.request(), h, seqSeen));
                return;
            }
            Set<EventId> candidates = new LinkedHashSet<>();
            for (Taken t : frames) {
                for (Ingest.Outcome o : t.outcomes) {
                    if (o.accepted()) {
                        candidates.add(o.id());
                    }
                }
            }
            Map<EventId, Long> existing = candidates.isEmpty() ? Map.of()
                    : node.ledger().indexOf(CustodyLedger.Side.RECEIVED, peer, candidates);
            Set<EventId> added = new HashSet<>();
            byte[] secret = node.nostrSecret();
            try {
                for (Taken t : frames) {
                    List<CustodyLedger.Leaf> leaves = new ArrayList<>();
                    List<byte[]> hashes = new ArrayList<>();
                    List<EventId> appended = new ArrayList<>();
                    List<Receipt.Rejected> rejected = new ArrayList<>();
                    long bytes = h == null ? 0 : h.bytes();
                    for (int i = 0; i < t.outcomes.length; i++) {
                        Ingest.Outcome o = t.outcomes[i];
                        EventId id = o.id();
                        if (!o.accepted()) {
                            rejected.add(new Receipt.Rejected(id, o.message().isEmpty() ? "invalid: refused" : o.message()));
                        } else if (!existing.containsKey(id) && added.add(id)) {
                            int b = (int) Utf8.length(t.texts.get(i));
                            leaves.add(new CustodyLedger.Leaf(r.size() + leaves.size(), id, b, t.hops.get(i)));
                            hashes.add(Merkle.leafHash(id));
                            appended.add(id);
                            bytes += b;
                        }
                    }
                    CompactRange next = hashes.isEmpty() ? r : r.appendAll(hashes);
                    List<byte[]> proof = r.size() == 0 || hashes.isEmpty() ? List.of() : r.consistencyProof(hashes);
                    Receipt receipt = Receipt.sign(secret, node.millis() / 1000, sender,
                            h == null ? null : h.receiptId(), t.seq, next.size(), next.root(), bytes, rejected);
                    CustodyLedger.Receipt row = new CustodyLedger.Receipt(h == null ? 0 : h.position() + 1,
                            next.size(), t.seq, receipt.id(), receipt.event().json(), bytes, next.size(), proof,
                            next.hashes());
                    steps.add(new CustodyLedger.Append(CustodyLedger.Side.RECEIVED, peer, leaves, row,
                            Optional.empty()));
                    messages.add(CustodyMessages.receipt(t.seq, false, row.json(), proof, appended));
                    r = next;
                    h = row;
                }
            } finally {
                Arrays.fill(secret, (byte) 0);
            }
            newRange = r;
            newHead = h;
        }

        @Override
        public void committed() {
            synchronized (Custodian.this) {
                if (newHead != null) {
                    range = newRange;
                    head = newHead;
                }
                queued = false;
            }
            if (asked != null) {
                if (!messages.isEmpty() && finalHead(messages.get(messages.size() - 1))) {
                    synchronized (Custodian.this) {
                        exchanged.add(asked.wire());
                    }
                }
                messages.forEach(asked.wire()::send);
            } else {
                for (int i = 0; i < frames.size(); i++) {
                    frames.get(i).wire.send(messages.get(i));
                }
            }
            pump();
        }

        @Override
        public void failed(RuntimeException e) {
            synchronized (Custodian.this) {
                queued = false;
            }
            LOG.warnf("custody of %d frames of %s was not recorded: %s", frames.size(), peer, e.toString());
            for (Taken t : frames) {
                t.wire.send(EventFrame.refused(t.seq, 1000, "error: this node could not record custody; send again"));
            }
            if (asked != null) {
                asked.wire().send(org.fleetmesh.peering.MeshErr.of(org.fleetmesh.peering.Refusal.of(
                        org.fleetmesh.peering.Refusal.Kind.ERROR, "this node could not read its custody chain; ask again"))
                        .encode());
            }
            pump();
        }
    }

    /** Whether this node's answer ends with its head and no more receipts to follow: the exchange is done. */
    private static boolean finalHead(String message) {
        try {
            return message.startsWith("[\"" + CustodyMessages.HEAD + "\"") && !CustodyMessages.parseHead(message).more();
        } catch (FrameException e) {
            throw new IllegalStateException("this node's own MESH-CUSTODY-HEAD does not read: " + e.getMessage(), e);
        }
    }

    /** The receipts of the chain after the sender's head (at most {@link #CATCH_UP}), then the head. */
    private List<String> catchUp(CustodyMessages.Custody request, CustodyLedger.Receipt h, long seqSeen) {
        List<String> out = new ArrayList<>();
        Long seq = h == null && seqSeen == 0 ? null : Math.max(seqSeen, h == null ? 0 : h.seq());
        if (h == null) {
            String reset = null;
            if (request.head() != null) {
                // the sender mirrors a tree this node no longer holds (restored on an empty data dir): say so, signed,
                // rather than answer a head behind its mirror, which it must take for a rollback (custody.md §8)
                byte[] secret = node.nostrSecret();
                try {
                    reset = CustodyReset.sign(secret, node.millis() / 1000, sender, EventId.ofHex(request.head())).json();
                } finally {
                    Arrays.fill(secret, (byte) 0);
                }
                LOG.infof("%s mirrors a custody tree of size %d that this node does not hold; answering with a signed "
                        + "reset (docs/spec/custody.md §8)", peer, request.size());
            }
            out.add(CustodyMessages.head(0, null, seq, false, reset));
            return out;
        }
        long start;
        long prevSize;
        if (request.head() == null) {
            start = request.size() == 0 ? 0 : -1;
            prevSize = 0;
        } else if (h.receiptId().hex().equals(request.head())) {
            start = h.position() + 1;
            prevSize = h.treeSize();
        } else {
            start = locate(request.size(), request.head(), h);
            start = start < 0 ? -1 : start + 1;
            prevSize = request.size();
        }
        boolean more = false;
        if (start >= 0 && start <= h.position()) {
            List<CustodyLedger.Receipt> rs = node.ledger().receipts(CustodyLedger.Side.RECEIVED, peer, start, CATCH_UP);
            for (CustodyLedger.Receipt rc : rs) {
                List<EventId> appended = new ArrayList<>();
                if (rc.treeSize() > prevSize) {
                    for (CustodyLedger.Leaf l : node.ledger().leaves(CustodyLedger.Side.RECEIVED, peer, prevSize,
                            rc.treeSize())) {
                        appended.add(l.eventId());
                    }
                }
                out.add(CustodyMessages.receipt(rc.seq(), true, rc.json(), rc.consistency(), appended));
                prevSize = rc.treeSize();
            }
            more = start + rs.size() <= h.position();
        }
        out.add(CustodyMessages.head(h.treeSize(), h.receiptId().hex(), seq, more));
        return out;
    }

    /** The chain position of the receipt {@code id} naming tree size {@code size}, or -1 when this chain has none. */
    private long locate(long size, String id, CustodyLedger.Receipt h) {
        if (size > h.treeSize()) {
            return -1;
        }
        long lo = 0, hi = h.position();
        while (lo < hi) { // the first position whose tree size is at least size
            long mid = (lo + hi) >>> 1;
            List<CustodyLedger.Receipt> r = node.ledger().receipts(CustodyLedger.Side.RECEIVED, peer, mid, 1);
            if (r.isEmpty() || r.get(0).treeSize() >= size) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        long pos = lo;
        for (int page = 0; page < MAX_SEARCH_PAGES && pos <= h.position(); page++) {
            List<CustodyLedger.Receipt> rs = node.ledger().receipts(CustodyLedger.Side.RECEIVED, peer, pos, CATCH_UP);
            if (rs.isEmpty()) {
                return -1;
            }
            for (CustodyLedger.Receipt rc : rs) {
                if (rc.treeSize() != size) {
                    return -1;
                }
                if (rc.receiptId().hex().equals(id)) {
                    return rc.position();
                }
            }
            pos += rs.size();
        }
        return -1;
    }

    /** Status: {@code {"size", "head", "seq"}} of this node's chain for the peer, or null before the first receipt. */
    synchronized Map<String, Object> describe() {
        if (head == null) {
            return null;
        }
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("size", head.treeSize());
        m.put("head", head.receiptId().hex());
        m.put("seq", head.seq());
        return m;
    }
}
