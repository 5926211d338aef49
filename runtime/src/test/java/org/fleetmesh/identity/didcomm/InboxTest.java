package org.fleetmesh.identity.didcomm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.SecureRandom;

import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;

class InboxTest {
    static final long NOW = 1_767_225_600L;
    @TempDir
    Path dir;
    NodeDidDocument node;
    Inbox inbox;
    PeerParty sender = PeerParty.withAgreementKeys(1);
    Didcomm client;

    @BeforeEach
    void node() {
        NodeSecrets s = NodeSecrets.loadOrCreate(dir, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE);
        node = NodeDidDocument.of(s.publicKeys(), NodeEndpoints.of("ws://n.example/", "ws://n.example/mesh",
                "http://n.example/didcomm"));
        inbox = new Inbox(node.identifiers(), node.did(), s.agreement().bytes(), new SecureRandom());
        client = Didcomm.using(DidDocumentKeys.using(DidResolver.offline().knowing(node.did())));
    }

    PlaintextMessage.Builder ping(String to) {
        return PlaintextMessage.builder("ping-1", Inbox.PING).from(sender.did).to(to).createdTime(NOW)
                .header("return_route", TextNode.valueOf("all"));
    }

    String authcrypt(PlaintextMessage m, String to) throws DidcommException {
        return client.packAuthcrypt(m, sender.agreementKid(0), sender.agreement.get(0), to);
    }

    @Test
    void anAuthenticatedPingWithAReturnRouteIsAnsweredOnTheSameRequest() throws Exception {
        for (String to : new String[] { node.did(), node.shortForm() }) {
            Inbox.Answer a = inbox.receive(authcrypt(ping(to).build(), to), NOW);
            assertEquals(200, a.status(), a.body());
            assertEquals(Inbox.ENCRYPTED_MEDIA_TYPE, a.contentType());
            UnpackedMessage r = client.unpack(a.body(), sender.secrets());
            assertTrue(r.authcrypted(), "authcrypted back");
            assertEquals(Inbox.PING_RESPONSE, r.message().type());
            assertEquals("ping-1", r.message().thid().orElseThrow());
            assertEquals(to, r.message().from().orElseThrow(), "from the DID the ping was sent to");
            assertEquals(java.util.List.of(sender.did), r.message().to());
        }
    }

    @Test
    void withoutAReturnRouteOrAnAuthenticatedSenderOrWhenNoResponseIsAskedItIsAccepted() throws Exception {
        PlaintextMessage noRoute = PlaintextMessage.builder("p2", Inbox.PING).from(sender.did).to(node.did())
                .createdTime(NOW).build();
        assertEquals(202, inbox.receive(authcrypt(noRoute, node.did()), NOW).status());
        PlaintextMessage anonymous = ping(node.did()).build().toBuilder().build();
        assertEquals(202, inbox.receive(client.packAnoncrypt(PlaintextMessage.builder("p3", Inbox.PING).to(node.did())
                .header("return_route", TextNode.valueOf("all")).build(), node.did()), NOW).status());
        var body = JsonNodeFactory.instance.objectNode().put("response_requested", false);
        assertEquals(202, inbox.receive(authcrypt(ping(node.did()).body(body).build(), node.did()), NOW).status());
        assertTrue(anonymous.from().isPresent());
    }

    @Test
    void anotherTypeIsAnsweredWithAProblemReport() throws Exception {
        PlaintextMessage m = PlaintextMessage.builder("q1", "https://example.org/other/1.0/hello").from(sender.did)
                .to(node.did()).createdTime(NOW).header("return_route", TextNode.valueOf("all")).build();
        Inbox.Answer a = inbox.receive(authcrypt(m, node.did()), NOW);
        assertEquals(200, a.status(), a.body());
        PlaintextMessage r = client.unpack(a.body(), sender.secrets()).message();
        assertEquals(Inbox.PROBLEM_REPORT, r.type());
        assertEquals("q1", r.pthid().orElseThrow());
        assertEquals("e.p.msg.unsupported", r.body().path("code").asText());
        assertEquals("https://example.org/other/1.0/hello", r.body().path("args").path(0).asText());
    }

    /** DIDComm threading: a ping in a thread is answered in that thread; a problem report's pthid is the thread's. */
    @Test
    void answersKeepTheThreadOfWhatTheyAnswer() throws Exception {
        Inbox.Answer pong = inbox.receive(authcrypt(ping(node.did()).thid("T1").build(), node.did()), NOW);
        assertEquals("T1", client.unpack(pong.body(), sender.secrets()).message().thid().orElseThrow());
        PlaintextMessage m = PlaintextMessage.builder("q2", "https://example.org/other/1.0/hello").from(sender.did)
                .to(node.did()).thid("T2").createdTime(NOW).header("return_route", TextNode.valueOf("all")).build();
        Inbox.Answer report = inbox.receive(authcrypt(m, node.did()), NOW);
        assertEquals("T2", client.unpack(report.body(), sender.secrets()).message().pthid().orElseThrow());
    }

    /** The long and short forms of the node's did:peer:4 are one DID: 'to' may name either whichever key id is used. */
    @Test
    void theLongAndShortFormsAreOneRecipient() throws Exception {
        Inbox.Answer a = inbox.receive(authcrypt(ping(node.did()).build(), node.shortForm()), NOW);
        assertEquals(200, a.status(), a.body());
        Inbox.Answer b = inbox.receive(authcrypt(ping(node.shortForm()).build(), node.did()), NOW);
        assertEquals(200, b.status(), b.body());
    }

    /**
     * Only the key ids of the node's key agreement key open a message: the same X25519 key named by another
     * fragment (its signing key's, or one the document does not have) is not encrypted to this node.
     */
    @Test
    void aMessageNamingTheAgreementKeyByAnotherKeyIdIsRefused() throws Exception {
        DidDocumentKeys real = DidDocumentKeys.using(DidResolver.offline().knowing(node.did()));
        for (String wrong : new String[] { node.did() + "#key-1", node.did() + "#anything" }) {
            KeyResolver lying = new KeyResolver() {
                public org.fleetmesh.identity.Multikey keyAgreementKey(String kid) throws DidcommException {
                    return kid.equals(wrong) ? real.keyAgreementKey(node.did() + "#key-2") : real.keyAgreementKey(kid);
                }

                public org.fleetmesh.identity.Multikey authenticationKey(String kid) throws DidcommException {
                    return real.authenticationKey(kid);
                }

                public java.util.List<String> keyAgreementKids(String did) throws DidcommException {
                    return did.equals(node.did()) ? java.util.List.of(wrong) : real.keyAgreementKids(did);
                }
            };
            String envelope = Didcomm.using(lying).packAnoncrypt(ping(node.did()).build(), node.did());
            assertTrue(envelope.contains(wrong), envelope);
            Inbox.Answer a = inbox.receive(envelope, NOW);
            assertEquals(400, a.status(), wrong + ": " + a.body());
        }
        assertEquals(202, inbox.receive(client.packAnoncrypt(ping(node.did()).build(), node.did()), NOW).status(),
                "the right key id still opens it");
    }

    /**
     * The Ed25519 did:key's only key agreement key is the X25519 key derived from the transport key, not the node's
     * agreement key: a message encrypted to it (as a resolver of that did:key would) is not this node's.
     */
    @Test
    void theEd25519DidKeysDerivedKeyIsNotARecipient() throws Exception {
        String edDidKey = node.transportDidKey();
        java.util.List<String> kids = DidDocumentKeys.offline().keyAgreementKids(edDidKey);
        assertEquals(1, kids.size(), kids.toString());
        Inbox.Answer a = inbox.receive(Didcomm.using(DidDocumentKeys.offline())
                .packAnoncrypt(ping(edDidKey).build(), edDidKey), NOW);
        assertEquals(400, a.status(), a.body());
        assertTrue(a.body().contains("unknown key"), a.body());
    }

    @Test
    void whatIsNotEncryptedToThisNodeExpiredOrUnreadableIsRefused() throws Exception {
        Inbox.Answer plain = inbox.receive(Didcomm.packPlaintext(ping(node.did()).build()), NOW);
        assertEquals(400, plain.status());
        assertTrue(plain.body().contains("invalid: a message to this node is encrypted"), plain.body());
        PeerParty other = PeerParty.withAgreementKeys(1);
        Inbox.Answer elsewhere = inbox.receive(authcrypt(ping(other.did).build(), other.did), NOW);
        assertEquals(400, elsewhere.status());
        assertTrue(elsewhere.body().startsWith("{\"error\":\"invalid: "), elsewhere.body());
        Inbox.Answer expired = inbox.receive(authcrypt(ping(node.did()).expiresTime(NOW - 1).build(), node.did()), NOW);
        assertEquals(400, expired.status());
        assertTrue(expired.body().contains("expired"), expired.body());
        assertEquals(400, inbox.receive("{not json", NOW).status());
        assertEquals(400, inbox.receive("", NOW).status());
    }
}
