package org.fleetmesh.identity;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.nostr.Signature;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Where a node is reached, signed by its Nostr key (kind {@value #KIND}, addressable, {@code d} = the node's
 * did:peer:4 short form): the DID names the keys, this event says where they live now, and a newer one replaces
 * it, so a move is an update and not a new identity. See {@code docs/spec/identity.md}, "Endpoint announcement".
 *
 * <p>The {@code did} tag carries the long form, so anyone can check, with no prior exchange, that the DID's document
 * lists the signing key as an assertion method.
 */
public record EndpointAnnouncement(String did, String shortForm, NodeEndpoints endpoints, Event event) {
    public static final int KIND = 30802;

    public EndpointAnnouncement {
        Objects.requireNonNull(did, "did");
        Objects.requireNonNull(shortForm, "shortForm");
        Objects.requireNonNull(endpoints, "endpoints");
        Objects.requireNonNull(event, "event");
    }

    /** Signs the announcement of {@code node}'s current endpoints with its Nostr key. */
    public static EndpointAnnouncement sign(NodeSecrets secrets, NodeDidDocument node, long createdAt) {
        requireOwnKey(secrets, node);
        byte[] key = secrets.nostr().bytes();
        try {
            return new EndpointAnnouncement(node.did(), node.shortForm(), node.endpoints(),
                    Events.sign(key, createdAt, KIND, tags(node), ""));
        } finally {
            java.util.Arrays.fill(key, (byte) 0);
        }
    }

    /** The same with fixed BIP-340 auxiliary randomness: for test vectors only, a deterministic signature. */
    static EndpointAnnouncement sign(NodeSecrets secrets, NodeDidDocument node, long createdAt, byte[] aux) {
        requireOwnKey(secrets, node);
        byte[] key = secrets.nostr().bytes();
        try {
            PubKey pubkey = node.keys().nostr();
            List<List<String>> tags = tags(node);
            EventId id = Events.computeId(pubkey, createdAt, KIND, tags, "");
            Signature sig = new Signature(Schnorr.sign(id.unsafeBytes(), key, aux));
            return new EndpointAnnouncement(node.did(), node.shortForm(), node.endpoints(),
                    new Event(id, pubkey, createdAt, KIND, tags, "", sig));
        } finally {
            java.util.Arrays.fill(key, (byte) 0);
        }
    }

    /**
     * Checks an announcement: kind, id and signature, {@code d} the short form of the {@code did} tag's long form,
     * the signer listed in that DID's document as an assertion method, and the three endpoints well-formed.
     *
     * @throws IllegalArgumentException with an {@code invalid: ...} reason
     */
    public static EndpointAnnouncement verify(Event e) {
        if (e.kind() != KIND) {
            throw invalid("an endpoint announcement is kind " + KIND + ", not " + e.kind());
        }
        String authentic = Events.verify(e);
        if (authentic != null) {
            throw new IllegalArgumentException(authentic);
        }
        String did = single(e, "did");
        DidPeer4 peer4;
        try {
            peer4 = DidPeer4.parse(did);
        } catch (DidResolutionException ex) {
            throw invalid("the did tag is not a did:peer:4 long form: " + ex.getMessage());
        }
        String d = single(e, "d");
        if (!peer4.hasShortForm(d)) {
            throw invalid("the d tag is not the short form of the did tag");
        }
        if (!assertsWith(peer4.inputDocument(), Multikey.nostr(e.pubkey()))) {
            throw invalid("the signer is not an assertion method of " + d);
        }
        NodeEndpoints endpoints;
        try {
            endpoints = NodeEndpoints.of(single(e, "relay"), single(e, "mesh"), single(e, "didcomm"));
        } catch (IllegalArgumentException ex) {
            throw invalid(ex.getMessage());
        }
        return new EndpointAnnouncement(did, d, endpoints, e);
    }

    /**
     * When to date a new announcement of {@code current}, or empty when {@code stored} already names it. An
     * addressable event replaces another only when newer, so a restart within the same second still dates it later.
     */
    public static java.util.OptionalLong due(java.util.Optional<EndpointAnnouncement> stored, NodeEndpoints current,
            long now) {
        if (stored.isPresent() && stored.get().endpoints().equals(current)) {
            return java.util.OptionalLong.empty();
        }
        return java.util.OptionalLong.of(Math.max(now, stored.map(a -> a.createdAt() + 1).orElse(now)));
    }

    public long createdAt() {
        return event.createdAt();
    }

    /** d, did, relay, mesh, didcomm: in that order. */
    private static List<List<String>> tags(NodeDidDocument node) {
        List<List<String>> tags = new ArrayList<>();
        tags.add(List.of("d", node.shortForm()));
        tags.add(List.of("did", node.did()));
        tags.add(List.of("relay", node.endpoints().relay().toString()));
        tags.add(List.of("mesh", node.endpoints().mesh().toString()));
        tags.add(List.of("didcomm", node.endpoints().didcomm().toString()));
        return tags;
    }

    private static void requireOwnKey(NodeSecrets secrets, NodeDidDocument node) {
        if (!secrets.publicKeys().equals(node.keys())) {
            throw new IllegalArgumentException("these secrets are not the keys of " + node.shortForm());
        }
    }

    /** Exactly one tag of that name, with a value: a second one would leave readers to pick. */
    private static String single(Event e, String name) {
        String value = null;
        for (List<String> t : e.tags()) {
            if (!t.isEmpty() && t.get(0).equals(name)) {
                if (value != null || t.size() < 2) {
                    throw invalid("an endpoint announcement carries exactly one '" + name + "' tag with a value");
                }
                value = t.get(1);
            }
        }
        if (value == null) {
            throw invalid("an endpoint announcement carries a '" + name + "' tag");
        }
        return value;
    }

    /** Whether a method listed (or referenced) under assertionMethod holds {@code key}. */
    private static boolean assertsWith(ObjectNode input, Multikey key) {
        JsonNode assertion = input.path("assertionMethod");
        for (JsonNode entry : assertion) {
            JsonNode vm = entry.isTextual() ? method(input, entry.asText()) : entry;
            if (vm != null && key.encode().equals(vm.path("publicKeyMultibase").asText())) {
                return true;
            }
        }
        return false;
    }

    private static JsonNode method(ObjectNode input, String id) {
        for (JsonNode vm : input.path("verificationMethod")) {
            if (id.equals(vm.path("id").asText())) {
                return vm;
            }
        }
        return null;
    }

    private static IllegalArgumentException invalid(String why) {
        return new IllegalArgumentException("invalid: " + why);
    }
}
