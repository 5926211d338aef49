package org.fleetmesh.identity;

import static org.fleetmesh.identity.DocumentAssertions.fieldNames;
import static org.fleetmesh.identity.DocumentAssertions.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

class NodeDidDocumentTest {
    private static final NodeKeys KEYS = new NodeKeys(TestKeys.NOSTR, Multikey.decode(TestKeys.X25519),
            Multikey.decode(TestKeys.ED25519));
    private static final NodeEndpoints ENDPOINTS = NodeEndpoints.of("wss://node.example.org",
            "wss://node.example.org/mesh", "https://node.example.org/didcomm");
    private static final NodeDidDocument NODE = NodeDidDocument.of(KEYS, ENDPOINTS);

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(e -> out.add(e.asText()));
        return out;
    }

    private static String keyOf(ObjectNode doc, String fragment) {
        for (JsonNode vm : doc.get("verificationMethod")) {
            if (vm.get("id").asText().equals(fragment)) {
                return vm.get("publicKeyMultibase").asText();
            }
        }
        throw new AssertionError("no method " + fragment + " in " + doc);
    }

    @Test
    void listsTheDocumentFieldsInDidCoreOrder() {
        assertEquals(List.of("@context", "id", "verificationMethod", "authentication", "assertionMethod", "keyAgreement",
                "service", "alsoKnownAs"), fieldNames(NODE.document()));
    }

    @Test
    void carriesTheThreeKeysAsMultikeyMethodsOfTheDid() {
        ObjectNode doc = NODE.document();
        assertEquals(TestKeys.ED25519, keyOf(doc, "#key-1"));
        assertEquals(TestKeys.X25519, keyOf(doc, "#key-2"));
        assertEquals(Multikey.nostr(TestKeys.NOSTR).encode(), keyOf(doc, "#key-3"));
        for (JsonNode vm : doc.get("verificationMethod")) {
            assertEquals("Multikey", vm.get("type").asText());
            assertEquals(NODE.did(), vm.get("controller").asText());
        }
    }

    @Test
    void signsWithTheTransportAndNostrKeysAndAgreesWithTheAgreementKey() {
        ObjectNode doc = NODE.document();
        assertEquals(List.of("#key-1", "#key-3"), texts(doc.get("authentication")));
        assertEquals(List.of("#key-1", "#key-3"), texts(doc.get("assertionMethod")));
        assertEquals(List.of("#key-2"), texts(doc.get("keyAgreement")));
    }

    @Test
    void offersTheRelayThePeerLinkAndDidcomm() {
        assertEquals(json("""
                {"service": [
                  {"id": "#relay", "type": "Relay", "serviceEndpoint": "wss://node.example.org/"},
                  {"id": "#mesh", "type": "FleetmeshPeerLink", "serviceEndpoint": "wss://node.example.org/mesh"},
                  {"id": "#didcomm", "type": "DIDCommMessaging", "serviceEndpoint": {
                    "uri": "https://node.example.org/didcomm", "accept": ["didcomm/v2"], "routingKeys": []}}
                ]}""").get("service"), NODE.document().get("service"));
    }

    @Test
    void linksEveryOtherIdentifierThroughAlsoKnownAs() {
        assertEquals(List.of(NODE.peer2(), NODE.transportDidKey(), NODE.agreementDidKey(), NODE.nostrDidKey(),
                NODE.didNostr(), NODE.shortForm()), texts(NODE.document().get("alsoKnownAs")));
    }

    @Test
    void resolvesThroughTheResolverToTheServedDocumentWithoutItsServices() {
        ObjectNode resolved = DidResolver.offline().resolve(NODE.did());
        assertEquals(NODE.resolvedDocument(), resolved);
        ObjectNode served = NODE.document();
        served.remove("service");
        assertEquals(resolved, served);
    }

    @Test
    void resolvesItsShortFormOnceTheLongFormIsKnown() {
        ObjectNode served = NODE.shortFormDocument();
        served.remove("service");
        assertEquals(served, DidResolver.offline().knowing(NODE.did()).resolve(NODE.shortForm()));
        assertTrue(DidPeer4.parse(NODE.did()).hasShortForm(NODE.shortForm()));
    }

    @Test
    void hashesNoServiceIntoTheDid() {
        assertTrue(!NODE.inputDocument().has("service"), "the did:peer:4 input document carries no service");
        assertTrue(!DidResolver.offline().resolve(NODE.peer2()).has("service"), "the did:peer:2 encodes no service");
    }

    @Test
    void keepsEveryIdentifierWhenTheNodeMoves() {
        NodeDidDocument moved = NodeDidDocument.of(KEYS, NodeEndpoints.of("ws://127.0.0.1:7799/",
                "ws://127.0.0.1:7799/mesh", "http://127.0.0.1:7799/didcomm"));
        assertEquals(NODE.did(), moved.did());
        assertEquals(NODE.identifiers(), moved.identifiers());
        assertEquals("ws://127.0.0.1:7799/mesh", moved.document().get("service").get(1).get("serviceEndpoint").asText());
    }

    @Test
    void changesTheDidWithTheKeys() {
        NodeKeys other = new NodeKeys(TestKeys.NOSTR, Multikey.decode(TestKeys.ED25519_AS_X25519),
                Multikey.decode(TestKeys.ED25519));
        assertTrue(!NODE.did().equals(NodeDidDocument.of(other, ENDPOINTS).did()));
    }

    @Test
    void publishesTheSameKeysAsDidPeer2UnderTheSameFragments() {
        ObjectNode peer2 = DidResolver.offline().resolve(NODE.peer2());
        ObjectNode peer4 = NODE.document();
        for (String fragment : List.of("#key-1", "#key-2", "#key-3")) {
            assertEquals(keyOf(peer4, fragment), keyOf(peer2, fragment), fragment);
        }
        assertEquals(peer4.get("keyAgreement"), peer2.get("keyAgreement"));
    }

    @Test
    void publishesEachKeyAsADidKey() {
        assertEquals(KEYS.transport(), DidKey.parse(NODE.transportDidKey()));
        assertEquals(KEYS.agreement(), DidKey.parse(NODE.agreementDidKey()));
        assertEquals(KEYS.nostrMultikey(), DidKey.parse(NODE.nostrDidKey()));
    }

    @Test
    void publishesTheNostrKeyAsDidNostrLinkingBack() {
        ObjectNode doc = NODE.didNostrDocument();
        assertEquals(NODE.didNostr(), doc.get("id").asText());
        assertEquals(List.of(NODE.did(), NODE.shortForm(), NODE.peer2(), NODE.transportDidKey(), NODE.agreementDidKey(),
                NODE.nostrDidKey()), texts(doc.get("alsoKnownAs")));
        assertEquals("wss://node.example.org/", doc.get("service").get(0).get("serviceEndpoint").asText());
        assertEquals(TestKeys.NOSTR, DidNostr.decodePublicKeyMultibase(
                doc.get("verificationMethod").get(0).get("publicKeyMultibase").asText()));
    }

    @Test
    void writesTheSameJsonEveryTime() {
        NodeDidDocument again = NodeDidDocument.of(KEYS, ENDPOINTS);
        assertEquals(NODE.did(), again.did());
        assertEquals(DidJson.compact(NODE.document()), DidJson.compact(again.document()));
        assertEquals(DidJson.compact(NODE.didNostrDocument()), DidJson.compact(again.didNostrDocument()));
    }

    @Test
    void namesSevenIdentifiers() {
        assertEquals(7, NODE.identifiers().stream().distinct().count());
    }

    @Test
    void refusesAKeyInTheWrongRole() {
        assertThrows(IllegalArgumentException.class,
                () -> new NodeKeys(TestKeys.NOSTR, Multikey.decode(TestKeys.ED25519), Multikey.decode(TestKeys.ED25519)));
    }

    @Test
    void refusesARelayThatIsNotAWebSocket() {
        assertThrows(IllegalArgumentException.class,
                () -> NodeEndpoints.of("https://node.example.org", "wss://node.example.org/mesh", "https://node.example.org/didcomm"));
    }
}
