package org.fleetmesh.identity.didcomm;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.fleetmesh.identity.DidResolver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What the node's DIDComm endpoint ({@code POST /didcomm}, docs/spec/identity.md "The DIDComm endpoint") does with an
 * encrypted message: opens it with the node's X25519 agreement key (addressed to any of the node's DIDs), refuses
 * what is not encrypted to it, expired or inconsistent, and answers Trust Ping 2.0: a {@code ping} from an
 * authenticated sender (authcrypt) that asks for a response, and says {@code "return_route": "all"}, is answered on
 * the same request with an authcrypted {@code ping-response}; any other type from such a sender is answered with a
 * {@code problem-report} ({@code e.p.msg.unsupported}). The node never dials a sender back: without a return route
 * (or from an anonymous sender) a message is accepted (202) and nothing is sent. Pure: text and time in, an answer out.
 */
public final class Inbox {
    public static final String PING = "https://didcomm.org/trust-ping/2.0/ping";
    public static final String PING_RESPONSE = "https://didcomm.org/trust-ping/2.0/ping-response";
    public static final String PROBLEM_REPORT = "https://didcomm.org/report-problem/2.0/problem-report";
    public static final String ENCRYPTED_MEDIA_TYPE = "application/didcomm-encrypted+json";

    /** The HTTP answer: a status, and for 200 the packed response, for 4xx a reason. */
    public record Answer(int status, String contentType, String body) {
        static Answer accepted() {
            return new Answer(202, null, "");
        }

        static Answer invalid(String why) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            o.put("error", "invalid: " + why);
            return new Answer(400, "application/json", o.toString());
        }
    }

    private final Set<String> selves;
    /** The key ids a message to this node may be encrypted to: its DIDs' key agreement entries for its X25519 key. */
    private final Set<String> kids;
    private final X25519Secret agreement;
    private final Didcomm didcomm;
    private final SecureRandom random;

    /**
     * @param identifiers every DID the node answers to (its did:peer:4 long and short forms, did:peer:2, did:key ...)
     * @param longForm the did:peer:4 long form, so that its short form resolves here
     */
    public Inbox(List<String> identifiers, String longForm, byte[] agreementSecret, SecureRandom random) {
        this.selves = Set.copyOf(identifiers);
        this.agreement = X25519Secret.of(agreementSecret);
        DidDocumentKeys keys = DidDocumentKeys.using(DidResolver.offline().knowing(longForm));
        java.util.Set<String> ours = new java.util.HashSet<>();
        for (String did : identifiers) {
            try {
                for (String kid : keys.keyAgreementKids(did)) {
                    if (keys.keyAgreementKey(kid).equals(agreement.publicKey())) {
                        ours.add(kid);
                    }
                }
            } catch (DidcommException notResolvable) {
                // an identifier with no DID document here (did:nostr): nothing can be encrypted to it
            }
        }
        this.kids = Set.copyOf(ours);
        this.didcomm = Didcomm.using(keys, random);
        this.random = random;
    }

    /** Only a key id of this node's key agreement key opens a message (identity.md "The DIDComm endpoint"). */
    private Optional<Secret> secret(String kid) {
        return kids.contains(kid) ? Optional.of(agreement) : Optional.empty();
    }

    /** The answer to {@code envelope}, received at {@code nowSeconds}. */
    public Answer receive(String envelope, long nowSeconds) {
        UnpackedMessage m;
        try {
            m = didcomm.unpack(envelope, this::secret);
        } catch (DidcommException e) {
            return Answer.invalid(e.getMessage());
        }
        if (!m.encrypted()) {
            return Answer.invalid("a message to this node is encrypted to its key agreement key ("
                    + ENCRYPTED_MEDIA_TYPE + ")");
        }
        PlaintextMessage p = m.message();
        if (p.expiresTime().isPresent() && p.expiresTime().getAsLong() <= nowSeconds) {
            return Answer.invalid("the message expired at " + p.expiresTime().getAsLong());
        }
        JsonNode route = p.headers().get("return_route");
        boolean returnRoute = route != null && route.isTextual() && route.textValue().equals("all");
        if (!m.authcrypted() || p.from().isEmpty() || !returnRoute) {
            return Answer.accepted(); // no authenticated sender to answer, or no way back but to dial it
        }
        String recipientKid = m.decryptedWith().get(m.decryptedWith().size() - 1);
        String self = recipientKid.substring(0, recipientKid.indexOf('#'));
        String sender = p.from().get();
        PlaintextMessage.Builder reply;
        if (p.type().equals(PING)) {
            JsonNode asked = p.body().get("response_requested");
            if (asked != null && asked.isBoolean() && !asked.booleanValue()) {
                return Answer.accepted();
            }
            // DIDComm threading: a message that continues a thread carries the thread's thid, the first one's id
            reply = PlaintextMessage.builder(newId(), PING_RESPONSE).thid(p.thid().orElse(p.id()));
        } else {
            ObjectNode body = JsonNodeFactory.instance.objectNode();
            body.put("code", "e.p.msg.unsupported");
            body.put("comment", "message type {1} is not served at this endpoint");
            body.putArray("args").add(p.type());
            // pthid: the thid of the thread in which the problem occurred (a message without one starts its own)
            reply = PlaintextMessage.builder(newId(), PROBLEM_REPORT).pthid(p.thid().orElse(p.id())).body(body);
        }
        PlaintextMessage out = reply.from(self).to(sender).createdTime(nowSeconds).build();
        try {
            return new Answer(200, ENCRYPTED_MEDIA_TYPE, didcomm.packAuthcrypt(out, recipientKid, agreement, sender));
        } catch (DidcommException e) {
            return Answer.invalid("no answer can be encrypted to " + sender + ": " + e.getMessage());
        }
    }

    private String newId() {
        byte[] b = new byte[16];
        random.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
