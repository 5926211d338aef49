package org.fleetmesh.delivery.log;

import java.util.List;
import java.util.Set;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.PubKey;

/**
 * The sender's checks of a receipt (docs/spec/custody.md): against its mirror of the receiver's tree (the last
 * verified receipt and the compact range at its size) and the frame the receipt answers.
 */
public final class ReceiptCheck {

    /**
     * What the sender knows of the pair before the receipt: the receiver's and its own Nostr keys, the peer's DID,
     * its last verified receipt (null before the first) and the compact range of the tree at that receipt's size.
     */
    public record Mirror(PubKey receiver, PubKey sender, String peer, Receipt head, CompactRange range) {
    }

    /** One event of a frame: its id, the UTF-8 bytes of its JSON as sent, and its hops. */
    public record FrameEvent(EventId id, int bytes, int hops) {
    }

    /** The frame a receipt answers: its sequence, the signed header object (JSON) and its events in frame order. */
    public record Frame(long seq, String headerJson, List<FrameEvent> events) {
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
        throw new UnsupportedOperationException();
    }

    /**
     * The receiver's head after a catch-up (MESH-CUSTODY-HEAD): a rollback breach when it is not the mirror's head
     * (behind it or off its chain), else null. {@code named}: the receipt the head names when the sender holds it.
     */
    public static Breach checkHead(Mirror mirror, long size, EventId head, Event named, long nowMillis) {
        throw new UnsupportedOperationException();
    }
}
