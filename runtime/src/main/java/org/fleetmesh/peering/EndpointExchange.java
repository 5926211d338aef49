package org.fleetmesh.peering;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import org.fleetmesh.identity.EndpointAnnouncement;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.Snippet;

/**
 * Tells the peer where this node is reached, and learns where the peer is (docs/spec/mesh-link.md, "Endpoint
 * updates"): at link-up each side sends {@code ["MESH-ENDPOINT", <its latest kind 30802 event>]}; the receiver checks
 * the event (id, signature, the announcement's own rules), that its author is the peer's proven Nostr key and that it
 * names the peer's DID, then hands it on. A bad one, or a second one on the same link, is answered with
 * {@code MESH-ERR} and the link stays. Everything else goes to the inner session.
 */
public final class EndpointExchange implements LinkSession {
    public static final String TYPE = "MESH-ENDPOINT";
    /** An announcement carries the long-form DID (about 1,400 characters) and a few URLs. */
    public static final int MAX_LENGTH = 16_384;
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);

    private final MeshLink link;
    private final LinkSession inner;
    private final Consumer<EndpointAnnouncement> learnt;
    /** One MESH-ENDPOINT per link: checking one costs a signature verification and a store write. */
    private boolean heard;

    private EndpointExchange(MeshLink link, LinkSession inner, Consumer<EndpointAnnouncement> learnt) {
        this.link = link;
        this.inner = inner;
        this.learnt = learnt;
    }

    /** Sends {@code own} (when this node has one) and returns the session that reads the peer's. */
    public static EndpointExchange open(MeshLink link, Optional<Event> own, LinkSession inner,
            Consumer<EndpointAnnouncement> learnt) {
        Objects.requireNonNull(inner, "inner");
        Objects.requireNonNull(learnt, "learnt");
        own.ifPresent(e -> link.send(encode(e)));
        return new EndpointExchange(link, inner, learnt);
    }

    public static String encode(Event announcement) {
        return "[\"" + TYPE + "\"," + announcement.json() + "]";
    }

    @Override
    public void receive(String text) {
        if (!text.startsWith("[\"" + TYPE + "\"")) {
            inner.receive(text);
            return;
        }
        Optional<String> type = MeshMessage.typeOf(text);
        if (type.isEmpty() || !type.get().equals(TYPE)) {
            inner.receive(text);
            return;
        }
        if (heard) {
            link.send(MeshErr.of(Refusal.of(Refusal.Kind.UNEXPECTED, TYPE + " is sent once per link")).encode());
            return;
        }
        heard = true;
        try {
            learnt.accept(read(text, link.peer().orElseThrow()));
        } catch (MeshRefusedException e) {
            link.send(MeshErr.of(e.refusal()).encode());
        }
    }

    /** Checks a MESH-ENDPOINT from {@code peer}; the refusal names what is wrong. */
    public static EndpointAnnouncement read(String text, PeerIdentity peer) throws MeshRefusedException {
        if (text.length() > MAX_LENGTH) {
            throw MeshJson.malformed(TYPE + " is at most " + MAX_LENGTH + " characters, this one is " + text.length());
        }
        JsonNode root;
        try {
            root = MeshJson.MAPPER.readTree(text);
        } catch (java.io.IOException e) {
            throw MeshJson.malformed("not JSON (" + Snippet.of(e.getMessage()) + ")");
        }
        if (root == null || !root.isArray() || root.size() != 2 || !root.get(1).isObject()) {
            throw MeshJson.malformed(TYPE + " is [\"" + TYPE + "\", <kind " + EndpointAnnouncement.KIND + " event>]");
        }
        Event event;
        try {
            event = PARSER.parseEvent(root.get(1).toString());
        } catch (ProtocolException e) {
            throw MeshJson.malformed("the event: " + Snippet.of(e.getMessage()));
        }
        EndpointAnnouncement a;
        try {
            a = EndpointAnnouncement.verify(event);
        } catch (IllegalArgumentException e) {
            throw Refusal.of(Refusal.Kind.INVALID, "the endpoint announcement: " + Snippet.of(e.getMessage()))
                    .exception();
        }
        if (peer.nostr().isEmpty() || !peer.nostr().get().equals(event.pubkey())) {
            throw Refusal.of(Refusal.Kind.INVALID, "the endpoint announcement is not signed by this link's peer")
                    .exception();
        }
        if (!a.shortForm().equals(PeerIdentity.shortForm(peer.did()))) {
            throw Refusal.of(Refusal.Kind.INVALID, "the endpoint announcement names " + Snippet.of(a.shortForm())
                    + ", not this link's peer").exception();
        }
        return a;
    }

    @Override
    public void closed() {
        inner.closed();
    }
}
