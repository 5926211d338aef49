package org.fleetmesh.identity;

import java.util.List;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A node's identity as DIDs. The node's DID is a did:peer:4 whose input document carries the three keys and
 * nothing else, so the DID stays the same when the node moves; the same keys are also published as a did:peer:2
 * (without services, for the same reason), each key as a did:key, and the Nostr key as a did:nostr, and
 * {@code alsoKnownAs} links them. Where the node is reached ({@link NodeEndpoints}) is added to the document the
 * node serves ({@link #document()}) and announced in a signed, replaceable event ({@link EndpointAnnouncement}),
 * never hashed into a DID.
 *
 * <p>Fragments agree across forms: {@code #key-1} is the transport key, {@code #key-2} the agreement key and
 * {@code #key-3} the Nostr key in both the did:peer:4 and the did:peer:2 documents. A did:peer:2 or did:key
 * document is fixed by its DID, so only the did:peer:4 and did:nostr documents can point back at the others.
 */
public final class NodeDidDocument {
    /** Service type of the relay-to-relay peer link at {@code /mesh}. */
    public static final String PEER_LINK_SERVICE_TYPE = "FleetmeshPeerLink";
    public static final String DIDCOMM_SERVICE_TYPE = "DIDCommMessaging";
    static final String TRANSPORT_ID = "#key-1";
    static final String AGREEMENT_ID = "#key-2";
    static final String NOSTR_ID = "#key-3";

    private final NodeKeys keys;
    private final NodeEndpoints endpoints;
    private final String peer2;
    private final DidPeer4 peer4;

    private NodeDidDocument(NodeKeys keys, NodeEndpoints endpoints, String peer2, DidPeer4 peer4) {
        this.keys = keys;
        this.endpoints = endpoints;
        this.peer2 = peer2;
        this.peer4 = peer4;
    }

    public static NodeDidDocument of(NodeKeys keys, NodeEndpoints endpoints) {
        String peer2 = DidPeer2.create(List.of(
                new DidPeer2.PurposedKey(DidPeer2.Purpose.AUTHENTICATION, keys.transport()),
                new DidPeer2.PurposedKey(DidPeer2.Purpose.KEY_AGREEMENT, keys.agreement()),
                new DidPeer2.PurposedKey(DidPeer2.Purpose.AUTHENTICATION, keys.nostrMultikey())), List.of());

        ObjectNode input = DidJson.object();
        input.set("@context", DidJson.strings(JsonLdContext.DID_V1, JsonLdContext.MULTIKEY_V1));
        ArrayNode methods = input.putArray("verificationMethod");
        methods.add(method(TRANSPORT_ID, keys.transport()));
        methods.add(method(AGREEMENT_ID, keys.agreement()));
        methods.add(method(NOSTR_ID, keys.nostrMultikey()));
        input.set("authentication", DidJson.strings(TRANSPORT_ID, NOSTR_ID));
        input.set("assertionMethod", DidJson.strings(TRANSPORT_ID, NOSTR_ID));
        input.set("keyAgreement", DidJson.strings(AGREEMENT_ID));
        input.set("alsoKnownAs", DidJson.strings(peer2, DidKey.of(keys.transport()), DidKey.of(keys.agreement()),
                DidKey.of(keys.nostrMultikey()), DidNostr.of(keys.nostr())));
        return new NodeDidDocument(keys, endpoints, peer2, DidPeer4.create(input));
    }

    public NodeKeys keys() {
        return keys;
    }

    public NodeEndpoints endpoints() {
        return endpoints;
    }

    /** The node's DID: the did:peer:4 long form, which resolves anywhere without a prior exchange. */
    public String did() {
        return peer4.longForm();
    }

    /** The did:peer:4 short form, for use once a peer holds the long form. */
    public String shortForm() {
        return peer4.shortForm();
    }

    public String peer2() {
        return peer2;
    }

    public String transportDidKey() {
        return DidKey.of(keys.transport());
    }

    public String agreementDidKey() {
        return DidKey.of(keys.agreement());
    }

    public String nostrDidKey() {
        return DidKey.of(keys.nostrMultikey());
    }

    public String didNostr() {
        return DidNostr.of(keys.nostr());
    }

    /** Every DID of the node: did:peer:4 long and short, did:peer:2, the three did:keys, did:nostr. */
    public List<String> identifiers() {
        return List.of(did(), shortForm(), peer2, transportDidKey(), agreementDidKey(), nostrDidKey(), didNostr());
    }

    /** The did:peer:4 input document, as encoded in the DID. */
    public ObjectNode inputDocument() {
        return peer4.inputDocument();
    }

    /** The node's DID document as it serves it: the did:peer:4 long form resolved, plus its current services. */
    public ObjectNode document() {
        return withServices(peer4.resolve());
    }

    /** The same document under the short form. */
    public ObjectNode shortFormDocument() {
        return withServices(peer4.resolveShort());
    }

    /** What any resolver derives from the DID alone: the keys, no services. */
    public ObjectNode resolvedDocument() {
        return peer4.resolve();
    }

    /** {@code service} goes before {@code alsoKnownAs}, in DID Core's order, as it did when it was hashed. */
    private ObjectNode withServices(ObjectNode resolved) {
        ObjectNode doc = DidJson.object();
        resolved.properties().forEach(field -> {
            if (field.getKey().equals("alsoKnownAs")) {
                doc.putArray("service").addAll(services(endpoints));
            }
            doc.set(field.getKey(), field.getValue());
        });
        return doc;
    }

    /** The did:peer:2 document, as any resolver derives it from the DID. */
    public ObjectNode peer2Document() {
        return DidPeer2.resolve(peer2);
    }

    /** The did:nostr document to serve at {@link DidNostr#wellKnownPath}: the draft's form plus links and relay. */
    public ObjectNode didNostrDocument() {
        return DidNostr.document(keys.nostr(),
                List.of(did(), shortForm(), peer2, transportDidKey(), agreementDidKey(), nostrDidKey()),
                List.of(endpoints.relay().toString()));
    }

    private static ObjectNode method(String id, Multikey key) {
        ObjectNode vm = DidJson.object();
        vm.put("id", id);
        vm.put("type", PublicKeyFormat.MULTIKEY.type(key.type()));
        vm.put("publicKeyMultibase", key.encode());
        return vm;
    }

    /** Relay, peer link and DIDComm (v2.1 endpoint object), in that order, with relative ids. */
    private static List<ObjectNode> services(NodeEndpoints endpoints) {
        ObjectNode relay = DidJson.object();
        relay.put("id", "#relay");
        relay.put("type", DidNostr.RELAY_SERVICE_TYPE);
        relay.put("serviceEndpoint", endpoints.relay().toString());

        ObjectNode mesh = DidJson.object();
        mesh.put("id", "#mesh");
        mesh.put("type", PEER_LINK_SERVICE_TYPE);
        mesh.put("serviceEndpoint", endpoints.mesh().toString());

        ObjectNode didcomm = DidJson.object();
        didcomm.put("id", "#didcomm");
        didcomm.put("type", DIDCOMM_SERVICE_TYPE);
        ObjectNode endpoint = didcomm.putObject("serviceEndpoint");
        endpoint.put("uri", endpoints.didcomm().toString());
        endpoint.set("accept", DidJson.strings("didcomm/v2"));
        endpoint.putArray("routingKeys");
        return List.of(relay, mesh, didcomm);
    }

    @Override
    public String toString() {
        return shortForm();
    }
}
