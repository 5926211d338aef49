package org.fleetmesh.delivery.log;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;

/**
 * The sender's checks of a receipt (docs/spec/custody.md): against its mirror of the receiver's tree (the last
 * verified receipt and the compact range at its size) and the frame the receipt answers. The checks run in the
 * order of the breach kinds: signature, format, prev, fork, counts, missing; the first that fails names the breach.
 */
public final class ReceiptCheck {

    /**
     * What the sender knows of the pair before the receipt: the receiver's and its own Nostr keys, the peer's DID,
     * its last verified receipt (null before the first) and the compact range of the tree at that receipt's size.
     */
    public record Mirror(PubKey receiver, PubKey sender, String peer, Receipt head, CompactRange range) {
        public Mirror {
            Objects.requireNonNull(receiver, "receiver");
            Objects.requireNonNull(sender, "sender");
            Objects.requireNonNull(range, "range");
            if (range.size() != (head == null ? 0 : head.size())) {
                throw new IllegalArgumentException("the mirror's range has size " + range.size()
                        + " but its head receipt names " + (head == null ? 0 : head.size()));
            }
            if (head != null && !Arrays.equals(range.root(), head.root())) {
                throw new IllegalArgumentException("the mirror's range is not the tree of its head receipt");
            }
        }

        /** A pair with no receipt yet. */
        public static Mirror start(PubKey receiver, PubKey sender, String peer) {
            return new Mirror(receiver, sender, peer, null, CompactRange.empty());
        }

        /** The cumulative bytes of the head receipt (0 before the first). */
        public long bytes() {
            return head == null ? 0 : head.bytes();
        }

        /** The mirror after a verified receipt. */
        public Mirror next(Ok ok) {
            return new Mirror(receiver, sender, peer, ok.receipt(), ok.range());
        }
    }

    /** One event of a frame: its id, the UTF-8 bytes of its JSON as sent, and its hops. */
    public record FrameEvent(EventId id, int bytes, int hops) {
    }

    /** The frame a receipt answers: its sequence, the signed header object (JSON) and its events in frame order. */
    public record Frame(long seq, String headerJson, List<FrameEvent> events) {
        public Frame {
            events = List.copyOf(events);
        }
    }

    public sealed interface Result permits Ok, Breach {
    }

    /** The receipt holds: the new mirror range, the frame events appended (in order) and those rejected. */
    public record Ok(Receipt receipt, CompactRange range, List<FrameEvent> appended, List<Receipt.Rejected> rejected)
            implements Result {
    }

    /** The receipt breaches custody: the kind, a line saying how, and the evidence JSON (CustodyBreach). */
    public record Breach(CustodyBreach.Kind kind, String detail, String evidence) implements Result {
    }

    private ReceiptCheck() {
    }

    /**
     * Checks {@code receipt} with its {@code consistency} proof and {@code appended} ids for {@code frame}.
     * {@code alreadyLeaves}: the frame's ids that are leaves of the mirror already. {@code frame} may be null for a
     * catch-up receipt of a frame the sender no longer holds: then the frame-dependent checks (missing, appended in
     * frame, bytes of the appended) are skipped and bytes only has to be monotonic. {@code nowMillis} stamps the evidence.
     */
    public static Result check(Mirror mirror, Frame frame, Set<EventId> alreadyLeaves, Event receipt,
            List<byte[]> consistency, List<EventId> appended, long nowMillis) {
        Checking c = new Checking(mirror, frame, alreadyLeaves, receipt, consistency, appended, nowMillis);
        return c.run();
    }

    private static final class Checking {
        final Mirror mirror;
        final Frame frame;
        final Set<EventId> already;
        final Event event;
        final List<byte[]> consistency;
        final List<EventId> appended;
        final long now;

        Checking(Mirror mirror, Frame frame, Set<EventId> already, Event event, List<byte[]> consistency,
                List<EventId> appended, long now) {
            this.mirror = mirror;
            this.frame = frame;
            this.already = already;
            this.event = event;
            this.consistency = consistency;
            this.appended = appended;
            this.now = now;
        }

        Breach breach(CustodyBreach.Kind kind, String detail) {
            return new Breach(kind, detail, CustodyBreach.evidence(kind, detail, mirror, event, consistency, appended,
                    frame, already, now));
        }

        Result run() {
            if (event.kind() != Receipt.KIND) {
                return breach(CustodyBreach.Kind.SIGNATURE, "a receipt is kind " + Receipt.KIND + ", not " + event.kind());
            }
            String why = Events.verify(event);
            if (why != null) {
                return breach(CustodyBreach.Kind.SIGNATURE, "the receipt is not authentic: " + why);
            }
            if (!event.pubkey().equals(mirror.receiver())) {
                return breach(CustodyBreach.Kind.SIGNATURE, "the receipt is signed by " + event.pubkey().hex()
                        + ", not by the receiver " + mirror.receiver().hex());
            }
            Receipt r;
            try {
                r = Receipt.parse(event);
            } catch (ReceiptException e) {
                return breach(e.breach(), e.getMessage());
            }
            if (!r.sender().equals(mirror.sender())) {
                return breach(CustodyBreach.Kind.FORMAT, "p names " + r.sender().hex() + ", not this sender "
                        + mirror.sender().hex());
            }
            Receipt head = mirror.head();
            if (frame != null && r.seq() != frame.seq()) {
                return breach(CustodyBreach.Kind.FORMAT, "seq is " + r.seq() + ", but the frame's is " + frame.seq());
            }
            if (frame == null && head != null && r.seq() <= head.seq()) {
                return breach(CustodyBreach.Kind.FORMAT, "seq " + r.seq() + " does not follow the previous receipt's "
                        + head.seq());
            }
            if (head == null && r.prev() != null) {
                return breach(CustodyBreach.Kind.PREV, "the first receipt names a prev " + r.prev().hex());
            }
            if (head != null && r.prev() == null) {
                return breach(CustodyBreach.Kind.PREV, "prev is absent, but the previous receipt is " + head.id().hex());
            }
            if (head != null && !r.prev().equals(head.id())) {
                return breach(CustodyBreach.Kind.PREV, "prev is " + r.prev().hex() + ", but the previous receipt is "
                        + head.id().hex());
            }
            long m = mirror.range().size();
            byte[] rootM = mirror.range().root();
            if (r.size() < m) {
                return breach(CustodyBreach.Kind.FORK, "the tree shrank from " + m + " to " + r.size() + " leaves");
            }
            if (r.size() == m && !Arrays.equals(r.root(), rootM)) {
                return breach(CustodyBreach.Kind.FORK, "two checkpoints of size " + m + " with different roots");
            }
            if (!Merkle.verifyConsistency(m, r.size(), rootM, r.root(), consistency)) {
                return breach(CustodyBreach.Kind.FORK, "the consistency proof from size " + m + " to " + r.size()
                        + " does not verify");
            }
            if (r.size() != m + appended.size()) {
                return breach(CustodyBreach.Kind.COUNTS, "the tree grew from " + m + " to " + r.size() + " but "
                        + appended.size() + " ids are appended");
            }
            Set<EventId> seen = new HashSet<>();
            for (EventId id : appended) {
                if (!seen.add(id)) {
                    return breach(CustodyBreach.Kind.COUNTS, "appended names " + id.hex() + " twice");
                }
                if (already.contains(id)) {
                    return breach(CustodyBreach.Kind.COUNTS, "appended " + id.hex() + " is already a leaf of the tree");
                }
            }
            List<FrameEvent> appendedEvents = new ArrayList<>(appended.size());
            if (frame != null) {
                Map<EventId, Integer> position = new HashMap<>();
                List<FrameEvent> evs = frame.events();
                for (int i = 0; i < evs.size(); i++) {
                    position.putIfAbsent(evs.get(i).id(), i);
                }
                int last = -1;
                long bytes = mirror.bytes();
                for (EventId id : appended) {
                    Integer at = position.get(id);
                    if (at == null) {
                        return breach(CustodyBreach.Kind.COUNTS, "appended " + id.hex() + " was not in the frame");
                    }
                    if (at < last) {
                        return breach(CustodyBreach.Kind.COUNTS, "appended " + id.hex() + " out of frame order");
                    }
                    last = at;
                    appendedEvents.add(evs.get(at));
                    bytes += evs.get(at).bytes();
                }
                if (r.bytes() != bytes) {
                    return breach(CustodyBreach.Kind.COUNTS, "bytes is " + r.bytes() + ", expected " + bytes);
                }
            } else {
                if (r.bytes() < mirror.bytes() || (appended.isEmpty() && r.bytes() != mirror.bytes())) {
                    return breach(CustodyBreach.Kind.COUNTS, "bytes went from " + mirror.bytes() + " to " + r.bytes()
                            + " with " + appended.size() + " appended");
                }
                for (EventId id : appended) {
                    appendedEvents.add(new FrameEvent(id, 0, 0));
                }
            }
            CompactRange next = mirror.range().appendAll(leafHashes(appended));
            if (!Arrays.equals(next.root(), r.root())) {
                return breach(CustodyBreach.Kind.MISSING, "the root is not the previous tree extended by the appended ids");
            }
            if (frame != null) {
                Set<EventId> rejected = new HashSet<>();
                for (Receipt.Rejected x : r.rejected()) {
                    rejected.add(x.id());
                }
                for (FrameEvent e : frame.events()) {
                    if (!seen.contains(e.id()) && !rejected.contains(e.id()) && !already.contains(e.id())) {
                        return breach(CustodyBreach.Kind.MISSING, "frame event " + e.id().hex()
                                + " is neither appended, nor rejected, nor already a leaf");
                    }
                }
            }
            return new Ok(r, next, List.copyOf(appendedEvents), r.rejected());
        }
    }

    static List<byte[]> leafHashes(List<EventId> ids) {
        List<byte[]> out = new ArrayList<>(ids.size());
        for (EventId id : ids) {
            out.add(Merkle.leafHash(id));
        }
        return out;
    }

    /**
     * The receiver's head after a catch-up (MESH-CUSTODY-HEAD): a rollback breach when it is behind the mirror's head
     * or another receipt at its size, else null. A head ahead of the mirror is not judged here (the sender asks
     * again while the receiver says {@code more}); see {@link #checkHead(Mirror, long, EventId, Event, boolean, long)}.
     * {@code named}: the receipt the head names when the sender holds it (null otherwise), for the evidence.
     */
    public static Breach checkHead(Mirror mirror, long size, EventId head, Event named, long nowMillis) {
        return checkHead(mirror, size, head, named, true, nowMillis);
    }

    /**
     * As {@link #checkHead(Mirror, long, EventId, Event, long)}, knowing whether the receiver has more catch-up
     * receipts to send: with {@code more} false every catch-up receipt has been applied, so a head other than the
     * mirror's, also one ahead of it, is not on the sender's verified chain: a rollback.
     */
    public static Breach checkHead(Mirror mirror, long size, EventId head, Event named, boolean more, long nowMillis) {
        long m = mirror.range().size();
        EventId mine = mirror.head() == null ? null : mirror.head().id();
        String detail = null;
        if (size < m) {
            detail = "the receiver's head has size " + size + ", behind the verified " + m;
        } else if (size == m && !Objects.equals(head, mine)) {
            detail = "the receiver's head " + (head == null ? "null" : head.hex()) + " at size " + size
                    + " is not the verified receipt " + (mine == null ? "null" : mine.hex());
        } else if (!more && !Objects.equals(head, mine)) {
            detail = "after the whole catch-up the receiver's head " + (head == null ? "null" : head.hex())
                    + " at size " + size + " does not continue the verified receipt "
                    + (mine == null ? "null" : mine.hex()) + " at size " + m;
        }
        if (detail == null) {
            return null;
        }
        return new Breach(CustodyBreach.Kind.ROLLBACK, detail,
                CustodyBreach.rollbackEvidence(detail, mirror, size, head, more, named, nowMillis));
    }
}
