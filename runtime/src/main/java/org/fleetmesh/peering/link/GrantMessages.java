package org.fleetmesh.peering.link;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.didcomm.DidDocumentKeys;
import org.fleetmesh.identity.didcomm.Didcomm;
import org.fleetmesh.identity.didcomm.DidcommException;
import org.fleetmesh.identity.didcomm.PlaintextMessage;
import org.fleetmesh.identity.didcomm.SecretResolver;
import org.fleetmesh.identity.didcomm.UnpackedMessage;
import org.fleetmesh.identity.didcomm.X25519Secret;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.grant.Grant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The DIDComm v2 messages that carry grants on a link (docs/spec/grants.md, "Negotiation"): {@code offer} and
 * {@code revise} (the grantor's signed kind 30801 grant in the body), {@code accept} (the grantee verified and stored
 * it) and {@code suspend} (the grantor withdraws it until a time). Each is authcrypted (ECDH-1PU+A256KW,
 * A256CBC-HS512) from this node's agreement key to the peer's, both DIDs in their short form, and sent as
 * {@code ["MESH-DIDCOMM", <envelope>]}. One per link: it knows both ends.
 */
public final class GrantMessages {
    public static final String PROTOCOL = "https://fleetmesh.org/grants/1.0/";
    public static final String OFFER = PROTOCOL + "offer";
    public static final String REVISE = PROTOCOL + "revise";
    public static final String ACCEPT = PROTOCOL + "accept";
    public static final String SUSPEND = PROTOCOL + "suspend";
    /** The fragment of a meshnode's X25519 key agreement key (identity.md). */
    static final String AGREEMENT_KEY = "#key-2";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String self;
    private final String peer;
    private final X25519Secret agreement;
    private final Didcomm didcomm;
    private final SecretResolver secrets;
    private String lastId;

    /**
     * @param selfLongForm this node's DID (did:peer:4 long form)
     * @param peerLongForm the peer's DID as it proved it on the link
     * @param agreementSecret this node's X25519 agreement secret key (32 bytes)
     */
    public GrantMessages(String selfLongForm, String peerLongForm, byte[] agreementSecret) {
        this.self = PeerIdentity.shortForm(selfLongForm);
        this.peer = PeerIdentity.shortForm(peerLongForm);
        this.agreement = X25519Secret.of(agreementSecret);
        DidResolver resolver = DidResolver.offline();
        if (!self.equals(selfLongForm)) {
            resolver = resolver.knowing(selfLongForm);
        }
        if (!peer.equals(peerLongForm)) {
            resolver = resolver.knowing(peerLongForm);
        }
        this.didcomm = Didcomm.using(DidDocumentKeys.using(resolver), RANDOM);
        String kid = self + AGREEMENT_KEY;
        this.secrets = k -> k.equals(kid) ? Optional.of(agreement) : Optional.empty();
    }

    /** A message received: its type, thread, sender and body. */
    public record Received(String type, String id, String thread, ObjectNode body) {
        /** The grant an offer or revise carries, verified at {@code nowSeconds} (its signature included). */
        public Grant grant(long nowSeconds) throws org.fleetmesh.peering.grant.GrantException {
            JsonNode g = body.get("grant");
            if (g == null || !g.isObject()) {
                throw new org.fleetmesh.peering.grant.GrantException("the " + type + " carries no grant object");
            }
            Event e;
            try {
                e = PARSER.parseEvent(g.toString());
            } catch (ProtocolException ex) {
                throw new org.fleetmesh.peering.grant.GrantException(ex.getMessage());
            }
            return Grant.parse(e, nowSeconds);
        }

        public String text(String member) {
            JsonNode v = body.get(member);
            return v != null && v.isTextual() ? v.textValue() : "";
        }
    }

    /** An offer of {@code g}, or (with {@code thread}) a revise in the thread of the first offer. */
    public String offer(Grant g, Optional<String> thread, long nowSeconds) throws DidcommException {
        ObjectNode body = JSON.createObjectNode();
        try {
            body.set("grant", JSON.readTree(g.event().json()));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("a signed grant is JSON", e);
        }
        return pack(thread.isPresent() ? REVISE : OFFER, thread, body, nowSeconds, true);
    }

    public String accept(String grantId, String thread, long nowSeconds) throws DidcommException {
        ObjectNode body = JSON.createObjectNode();
        body.put("grant_id", grantId);
        return pack(ACCEPT, Optional.of(thread), body, nowSeconds, true);
    }

    /** The grantor withdraws {@code grantId} until {@code untilSeconds}, for {@code reason}. */
    public String suspend(String grantId, String reason, long untilSeconds, long nowSeconds) throws DidcommException {
        ObjectNode body = JSON.createObjectNode();
        body.put("grant_id", grantId);
        body.put("reason", reason);
        body.put("until", untilSeconds);
        return pack(SUSPEND, Optional.empty(), body, nowSeconds, true);
    }

    /**
     * Packs any message of a protocol served on the link (grants, compute/1.0) as {@code ["MESH-DIDCOMM", <envelope>]},
     * authcrypted from this node to the peer.
     */
    public String pack(String type, Optional<String> thread, ObjectNode body, long nowSeconds)
            throws DidcommException {
        return pack(type, thread, body, nowSeconds, false);
    }

    /** {@code remember}: a grant message, whose id {@link #lastId()} gives (a thread starts at the first offer). */
    private synchronized String pack(String type, Optional<String> thread, ObjectNode body, long nowSeconds,
            boolean remember) throws DidcommException {
        byte[] random = new byte[16];
        RANDOM.nextBytes(random);
        String id = HexFormat.of().formatHex(random);
        if (remember) {
            lastId = id;
        }
        PlaintextMessage.Builder b = PlaintextMessage.builder(id, type).from(self).to(peer)
                .createdTime(nowSeconds).body(body);
        thread.ifPresent(b::thid);
        String envelope = didcomm.packAuthcrypt(b.build(), self + AGREEMENT_KEY, agreement, peer);
        return "[\"" + EventFrame.DIDCOMM + "\"," + envelope + "]";
    }

    /**
     * Opens a {@code ["MESH-DIDCOMM", <envelope>]} from the peer: it must be authcrypted by the peer's agreement key to
     * this node's, {@code from} the peer, and one of the four grant message types.
     */
    public Received read(String text) throws DidcommException {
        return read(text, GrantMessages::isGrant);
    }

    /** Whether {@code type} is one of the four grant message types. */
    public static boolean isGrant(String type) {
        return type.equals(OFFER) || type.equals(REVISE) || type.equals(ACCEPT) || type.equals(SUSPEND);
    }

    /**
     * Opens a {@code ["MESH-DIDCOMM", <envelope>]} from the peer (authcrypted by the peer's agreement key to this
     * node's, {@code from} the peer) whose type {@code served} accepts; other types are refused UNSUPPORTED.
     */
    public Received read(String text, java.util.function.Predicate<String> served) throws DidcommException {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (java.io.IOException e) {
            throw new DidcommException(DidcommException.Reason.MALFORMED, "not JSON");
        }
        if (root == null || !root.isArray() || root.size() != 2 || !root.get(1).isObject()) {
            throw new DidcommException(DidcommException.Reason.MALFORMED,
                    "MESH-DIDCOMM is [\"MESH-DIDCOMM\", <DIDComm envelope object>]");
        }
        UnpackedMessage m = didcomm.unpack(root.get(1).toString(), secrets);
        if (!m.authcrypted()) {
            throw new DidcommException(DidcommException.Reason.SENDER_MISMATCH, "grant messages are authcrypted");
        }
        String from = m.message().from().orElse("");
        if (!PeerIdentity.shortForm(from).equals(peer)) {
            throw new DidcommException(DidcommException.Reason.SENDER_MISMATCH, "the message is from " + from
                    + ", the link's peer is " + peer);
        }
        String type = m.message().type();
        if (!served.test(type)) {
            throw new DidcommException(DidcommException.Reason.UNSUPPORTED, "message type " + type
                    + " is not served on this link");
        }
        return new Received(type, m.message().id(), m.message().threadId(), m.message().body());
    }

    /** The id of the last message packed (a thread starts at its first offer's id). */
    public synchronized String lastId() {
        return lastId;
    }

    public String self() {
        return self;
    }

    public String peer() {
        return peer;
    }
}
