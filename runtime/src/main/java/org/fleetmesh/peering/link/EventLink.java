package org.fleetmesh.peering.link;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.fleetmesh.identity.didcomm.DidcommException;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.Snippet;
import org.fleetmesh.nostr.Utf8;
import org.fleetmesh.peering.LinkSession;
import org.fleetmesh.peering.MeshErr;
import org.fleetmesh.peering.MeshMessage;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.Refusal;
import org.fleetmesh.peering.budget.Bucket;
import org.fleetmesh.peering.budget.Direction;
import org.fleetmesh.peering.budget.Verdict;
import org.fleetmesh.peering.grant.Grant;
import org.fleetmesh.peering.grant.GrantException;
import org.fleetmesh.relay.Ingest;
import org.jboss.logging.Logger;

/**
 * The session of one authenticated link (docs/spec/link-events.md): every message is charged its UTF-8 bytes, and an
 * event frame its announced events too, against the grant this node gave the peer, before anything past the frame's
 * header is read; an admitted frame's events go to the relay's ingest and are answered one by one; a refused one is
 * answered {@code rate-limited:} and counts as a violation, and too many end the link and quarantine the peer. Grant
 * messages (DIDComm) are handled here too. Called on the link's thread, in order; ingest answers arrive from the
 * writer's.
 */
public final class EventLink implements LinkSession {
    private static final Logger LOG = Logger.getLogger(EventLink.class);
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);

    /** What the session needs of its link. */
    public interface Wire {
        void send(String text);

        void end(Refusal refusal);

        PeerIdentity peer();

        /**
         * The carrier refused a message for its form (a frame that is not signed, not for this link, replayed, ...):
         * counts it as a violation of the grant and acts on the verdict (a tier drop, or the end of the link and a
         * quarantine), as the link does for its own refusals. Only the wire a carrier is given counts it.
         */
        default void violation() {
        }
    }

    private final EventLinks node;
    private final Wire wire;
    private final PeerAccount account;
    private final GrantMessages grants;
    private final String peerDid;
    private volatile boolean closed;
    /** The thread of this node's first offer on this link; revisions continue it. */
    private volatile String offerThread;
    /** What carries admitted frames (delivery); null: straight to ingest, answered MESH-EVENTS-OK. */
    private volatile Carrier carrier;

    EventLink(EventLinks node, Wire wire, PeerAccount account, GrantMessages grants) {
        this.node = node;
        this.wire = wire;
        this.account = account;
        this.grants = grants;
        this.peerDid = wire.peer().did();
    }

    public PeerAccount account() {
        return account;
    }

    /** A violation the carrier found: counted, and the verdict acted on (on the link's thread, like the link's own). */
    void carrierViolation() {
        if (!closed) {
            verdict(account.violation());
        }
    }

    /** The carrier of this link (set once, when the link opens). */
    void carry(Carrier c) {
        this.carrier = c;
    }

    public Carrier carrier() {
        return carrier;
    }

    @Override
    public void receive(String text) {
        if (closed) {
            return;
        }
        long bytes = Utf8.length(text);
        if (bytes > node.policy().maxFrameBytes()) {
            boolean frame = isEventFrame(text);
            refuseUnread(-1, frame, "invalid: a " + (frame ? "frame" : "message") + " is at most "
                    + node.policy().maxFrameBytes() + " bytes, this one is " + bytes);
            return;
        }
        EventFrame.Reader reader;
        try {
            reader = EventFrame.header(text, node.policy().maxFrameEvents());
        } catch (EventFrame.Unreadable e) {
            if (charge(bytes, 0, e.seq(), isEventFrame(text))) {
                refuseUnread(e.seq(), isEventFrame(text), e.getMessage());
            }
            return;
        }
        try (reader) {
            String type = reader.type();
            if (type.equals(MeshMessage.ERR)) {
                // never answered, not even when over budget, but charged like the rest
                PeerAccount.Admission a = account.admit(bytes, 0);
                if (a.admitted()) {
                    LOG.debugf("mesh peer %s says: %s", account.peer(), Snippet.of(text));
                } else {
                    verdict(a);
                }
                return;
            }
            if (reader.isEvents()) {
                events(reader, text, bytes);
            } else if (type.equals(EventFrame.DIDCOMM)) {
                if (charge(bytes, 0, -1, false)) {
                    didcomm(text);
                }
            } else if (charge(bytes, 0, -1, false)) {
                Carrier c = carrier;
                if (c != null && c.receive(type, text)) {
                    return;
                }
                if (type.equals(org.fleetmesh.peering.Heartbeat.PING) || type.equals(org.fleetmesh.peering.Heartbeat.PONG)) {
                    // the heartbeat takes only short ones: a longer ping or pong is not one of its shape
                    wire.send(MeshErr.of(Refusal.of(Refusal.Kind.MALFORMED, type + " is [\"" + type
                            + "\", {\"n\": <integer 0..2^53-1>}]")).encode());
                    return;
                }
                wire.send(MeshErr.of(Refusal.of(Refusal.Kind.UNSUPPORTED, "message type \"" + Snippet.of(type)
                        + "\" is not served on this link")).encode());
            }
        }
    }

    /** Whether a text that did not parse at least names the event frame (so its refusal is a MESH-EVENTS-REFUSED). */
    private static boolean isEventFrame(String text) {
        return text.startsWith("[\"" + EventFrame.EVENTS + "\"");
    }

    private void events(EventFrame.Reader reader, String text, long bytes) {
        long seq = reader.seq();
        long count = reader.count();
        Optional<String> suspension = account.suspension();
        if (suspension.isPresent()) {
            // told its grant is suspended, the peer sends nothing: a frame now is a violation
            answerRefusal(seq, -1, true, "blocked: the grant of this node is suspended (" + suspension.get() + ")");
            verdict(account.violation());
            return;
        }
        if (!charge(bytes, count, seq, true)) {
            return;
        }
        List<String> texts;
        try {
            texts = reader.events(node.policy().maxFrameEvents());
        } catch (EventFrame.Unreadable e) {
            account.applied(bytes, count, bytes, 0);
            refuseUnread(seq, true, e.getMessage());
            return;
        }
        if (texts.size() != count) {
            account.applied(bytes, count, bytes, texts.size());
            refuseUnread(seq, true, "invalid: the header says " + count + " events, the frame holds " + texts.size());
            return;
        }
        Carrier c = carrier;
        if (c != null) {
            long started = System.nanoTime();
            c.frame(seq, reader.headerJson(), texts, bytes);
            account.strained(Direction.IN, bytes, count, System.nanoTime() - started);
            return;
        }
        EventFrame.Answer[] answers = new EventFrame.Answer[texts.size()];
        List<Event> parsed = new ArrayList<>(texts.size());
        List<Integer> slots = new ArrayList<>(texts.size());
        long start = System.nanoTime();
        for (int i = 0; i < texts.size(); i++) {
            try {
                parsed.add(PARSER.parseEvent(texts.get(i)));
                slots.add(i);
            } catch (ProtocolException e) {
                answers[i] = new EventFrame.Answer(e.eventId(), false, e.getMessage());
            }
        }
        node.ingest().fromPeer(parsed, peerDid).thenAccept(outcomes -> {
            for (int j = 0; j < outcomes.size(); j++) {
                Ingest.Outcome o = outcomes.get(j);
                answers[slots.get(j)] = new EventFrame.Answer(o.id().hex(), o.accepted(), o.message());
            }
            node.answered(account, outcomes);
            if (!closed) {
                wire.send(EventFrame.answers(seq, List.of(answers)));
            }
        });
        // the checks (admission, id, signature) ran in submit, on this thread
        account.strained(Direction.IN, bytes, count, System.nanoTime() - start);
    }

    /**
     * Reserves a message's bytes (and an event frame's events); on refusal answers {@code rate-limited:} and counts
     * the violation. False when refused.
     */
    private boolean charge(long bytes, long events, long seq, boolean eventFrame) {
        PeerAccount.Admission a = account.admit(bytes, events);
        if (a.admitted()) {
            return true;
        }
        String reason;
        long retry;
        if (a.waitNanos() == Bucket.NEVER) {
            retry = -1;
            reason = "rate-limited: " + bytes + " bytes and " + events + " events never fit the grant of "
                    + describe() + "; send smaller frames";
        } else {
            retry = Math.max(1, (a.waitNanos() + 999_999) / 1_000_000);
            reason = "rate-limited: over the grant of " + describe() + "; refills in " + retry + " ms";
        }
        answerRefusal(seq, retry, eventFrame, reason);
        verdict(a);
        return false;
    }

    private String describe() {
        var in = account.inbound();
        return in.bytes() + " bytes and " + in.events() + " events per " + in.windowSeconds() + " s";
    }

    /** A frame refused for its form, not its size against the grant: also a violation. */
    private void refuseUnread(long seq, boolean eventFrame, String reason) {
        answerRefusal(seq, -1, eventFrame, reason);
        verdict(account.violation());
    }

    private void answerRefusal(long seq, long retryMillis, boolean eventFrame, String reason) {
        if (eventFrame) {
            wire.send(EventFrame.refused(seq, retryMillis, reason));
        } else {
            wire.send(MeshErr.of(new Refusal(Refusal.Kind.PEER, reason)).encode());
        }
    }

    private void verdict(PeerAccount.Admission a) {
        node.violated(account);
        if (a.verdict() == Verdict.DISCONNECT && !closed) {
            long until = node.quarantine(account, this);
            closed = true;
            wire.end(Refusal.of(Refusal.Kind.QUARANTINED, "until " + Instant.ofEpochMilli(until) + " after "
                    + account.violationsInPeriod() + " violations in " + node.policy().violations().periodSeconds()
                    + " s of the grant " + account.given().map(g -> g.event().id().hex()).orElse("(tier default)")));
        } else if (a.tierChanged()) {
            node.reissue(account);
        }
    }

    private void didcomm(String text) {
        GrantMessages.Received m;
        try {
            m = grants.read(text, t -> GrantMessages.isGrant(t) || node.handler(t) != null);
        } catch (DidcommException e) {
            wire.send(MeshErr.of(Refusal.of(Refusal.Kind.INVALID, "DIDComm message: " + Snippet.of(e.getMessage())))
                    .encode());
            verdict(account.violation());
            return;
        } catch (RuntimeException e) {
            LOG.warnf("a DIDComm message from %s could not be read: %s", account.peer(), e.toString());
            wire.send(MeshErr.of(Refusal.of(Refusal.Kind.INVALID, "DIDComm message: unreadable")).encode());
            verdict(account.violation());
            return;
        }
        if (!GrantMessages.isGrant(m.type())) {
            EventLinks.DidcommHandler h = node.handler(m.type());
            try {
                h.received(this, m);
            } catch (RuntimeException e) {
                LOG.errorf(e, "the handler of %s failed on a message from %s", m.type(), account.peer());
            }
            return;
        }
        switch (m.type()) {
            case GrantMessages.OFFER, GrantMessages.REVISE -> offered(m);
            case GrantMessages.ACCEPT -> {
                if (!account.accepted(m.text("grant_id"))) {
                    LOG.debugf("%s accepted grant %s, which is not the current one", account.peer(),
                            Snippet.forLog(m.text("grant_id")));
                }
            }
            case GrantMessages.SUSPEND -> {
                String id = m.text("grant_id");
                Optional<Grant> held = account.received();
                if (held.isEmpty() || id == null || !id.equals(held.get().event().id().hex())) {
                    // only the grant in force can be withdrawn: another id suspends nothing
                    String named = id == null ? "(none)" : id.length() > 64 ? id.substring(0, 64) + "..." : id;
                    wire.send(MeshErr.of(Refusal.of(Refusal.Kind.INVALID, "DIDComm message: suspend names grant "
                            + Snippet.forLog(named) + ", not the grant in force on this link"))
                            .encode());
                    return;
                }
                LOG.infof("%s suspended its grant %s to this node: %s", account.peer(), id,
                        Snippet.forLog(m.text("reason")));
                node.suspended(account);
            }
            default -> throw new IllegalStateException(m.type());
        }
    }

    private void offered(GrantMessages.Received m) {
        long now = node.nowSeconds();
        Grant g;
        try {
            g = m.grant(now);
            String problem = wrongEnds(g);
            if (problem != null) {
                throw new GrantException(problem);
            }
        } catch (GrantException e) {
            wire.send(MeshErr.of(new Refusal(Refusal.Kind.PEER, e.getMessage())).encode());
            verdict(account.violation());
            return;
        }
        // accepted once stored (as OK true follows the commit), so the grant is served to REQ by then
        node.store(g, peerDid).thenAccept(o -> {
            if (closed) {
                return;
            }
            if (!o.accepted()) {
                wire.send(MeshErr.of(new Refusal(Refusal.Kind.PEER, "error: the grant was not stored: " + o.message()))
                        .encode());
                return;
            }
            account.received(g);
            Carrier c = carrier;
            if (c != null) {
                c.grantChanged();
            }
            try {
                wire.send(grants.accept(g.event().id().hex(), m.thread(), node.nowSeconds()));
            } catch (DidcommException e) {
                LOG.warnf("could not accept the grant of %s: %s", account.peer(), e.getMessage());
            }
        });
    }

    /** A grant offered on this link is signed by the peer's proven Nostr key and names this link's two ends. */
    private String wrongEnds(Grant g) {
        if (wire.peer().nostr().isEmpty() || !wire.peer().nostr().get().equals(g.grantor())) {
            return "invalid: the grant is not signed by the Nostr key the peer proved on this link";
        }
        if (!g.terms().grantorDid().equals(grants.peer()) || !g.terms().granteeDid().equals(grants.self())) {
            return "invalid: the grant's link is " + g.terms().grantorDid() + " -> " + g.terms().granteeDid()
                    + ", this link is " + grants.peer() + " -> " + grants.self();
        }
        return null;
    }

    /** Sends this node's grant to the peer: the first as an offer, later ones as revisions in its thread. */
    synchronized void offer(Grant g) {
        if (closed) {
            return;
        }
        try {
            String text = grants.offer(g, Optional.ofNullable(offerThread), node.nowSeconds());
            if (offerThread == null) {
                offerThread = threadOf(text);
            }
            wire.send(text);
        } catch (DidcommException e) {
            LOG.warnf("could not offer a grant to %s: %s", account.peer(), e.getMessage());
        }
    }

    /** Tells the peer its grant is withdrawn until {@code untilMillis} (before the link ends for quarantine). */
    void suspend(Grant g, String reason, long untilMillis) {
        try {
            wire.send(grants.suspend(g.event().id().hex(), reason, untilMillis / 1000, node.nowSeconds()));
        } catch (DidcommException e) {
            LOG.debugf("could not send the suspend to %s: %s", account.peer(), e.getMessage());
        }
    }

    /** The id this node gave its own last message: the envelope is opaque, so the thread is remembered as sent. */
    private String threadOf(String sent) {
        return grants.lastId();
    }

    /**
     * Sends a DIDComm message of a protocol registered with {@link EventLinks#handle} to the peer (authcrypted). False
     * when the link is closed or the message could not be packed.
     */
    public boolean send(String type, Optional<String> thread, com.fasterxml.jackson.databind.node.ObjectNode body) {
        if (closed) {
            return false;
        }
        try {
            wire.send(grants.pack(type, thread, body, node.nowSeconds()));
            return true;
        } catch (DidcommException e) {
            LOG.warnf("could not send %s to %s: %s", type, account.peer(), e.getMessage());
            return false;
        }
    }

    /** The peer this link authenticated. */
    public PeerIdentity peer() {
        return wire.peer();
    }

    /** Ends the link quarantined until {@code until} (epoch ms), its grant suspended first (standing's quarantine). */
    void endQuarantined(Grant g, String reason, long until) {
        if (g != null) {
            suspend(g, reason, until);
        }
        closed = true;
        wire.end(Refusal.of(Refusal.Kind.QUARANTINED, "until " + Instant.ofEpochMilli(until) + ": " + reason));
    }

    /** Ends the link now (a quarantined peer relinking). */
    void endQuarantined(long until) {
        closed = true;
        wire.end(Refusal.of(Refusal.Kind.QUARANTINED, "until " + Instant.ofEpochMilli(until)));
    }

    @Override
    public void closed() {
        closed = true;
        node.handlersClosed(this);
        Carrier c = carrier;
        if (c != null) {
            c.closed();
        }
        node.closed(this);
    }

    boolean isClosed() {
        return closed;
    }
}
