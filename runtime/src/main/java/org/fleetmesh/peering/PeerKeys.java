package org.fleetmesh.peering;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.fleetmesh.identity.DidPeer4;
import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.identity.ResolutionError;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Snippet;

/**
 * The keys a peer's DID document lists under {@code authentication}: Ed25519 keys that may sign its {@code sig},
 * secp256k1 keys (as BIP-340 x-only keys) that may sign its {@code nostr_sig}.
 */
record PeerKeys(List<Multikey> transport, List<PubKey> nostr) {

    PeerKeys {
        transport = List.copyOf(transport);
        nostr = List.copyOf(nostr);
    }

    /**
     * Resolves {@code did} offline and reads its authentication keys.
     *
     * @throws MeshRefusedException {@code unsupported} for a DID method the resolver does not know, {@code invalid}
     *         for a DID that does not resolve or has no Ed25519 authentication key
     */
    static PeerKeys resolve(DidResolver resolver, String did) throws MeshRefusedException {
        ObjectNode doc;
        try {
            doc = resolver.resolve(did);
        } catch (DidResolutionException e) {
            if (e.error() == ResolutionError.METHOD_NOT_SUPPORTED) {
                throw Refusal.of(Refusal.Kind.UNSUPPORTED, "DID method: " + e.getMessage()).exception();
            }
            String hint = DidPeer4.isShortForm(did) ? " (send the did:peer:4 long form)" : "";
            throw Refusal.of(Refusal.Kind.INVALID, "DID " + Snippet.of(did) + " does not resolve: "
                    + e.getMessage() + hint).exception();
        }
        List<Multikey> transport = new ArrayList<>();
        List<PubKey> nostr = new ArrayList<>();
        JsonNode authentication = doc.get("authentication");
        if (authentication != null && authentication.isArray()) {
            for (JsonNode entry : authentication) {
                Optional<Multikey> key = entry.isTextual() ? referenced(doc, did, entry.textValue()) : keyOf(entry);
                if (key.isEmpty()) {
                    continue; // a method this document gives no key for cannot have signed
                }
                if (key.get().type() == KeyType.ED25519) {
                    transport.add(key.get());
                } else if (key.get().type() == KeyType.SECP256K1) {
                    nostr.add(key.get().xOnly());
                }
            }
        }
        if (transport.isEmpty()) {
            throw Refusal.of(Refusal.Kind.INVALID, "the DID document of " + Snippet.of(did)
                    + " lists no Ed25519 key under authentication").exception();
        }
        return new PeerKeys(transport, nostr);
    }

    /** The verification method an authentication entry names, relative ({@code #key-1}) or absolute. */
    private static Optional<Multikey> referenced(ObjectNode doc, String did, String ref) {
        String kid = absolute(did, ref);
        JsonNode methods = doc.get("verificationMethod");
        if (methods == null || !methods.isArray()) {
            return Optional.empty();
        }
        for (JsonNode m : methods) {
            JsonNode id = m.get("id");
            if (id != null && id.isTextual() && absolute(did, id.textValue()).equals(kid)) {
                return keyOf(m);
            }
        }
        return Optional.empty();
    }

    private static String absolute(String did, String ref) {
        return ref.startsWith("#") ? did + ref : ref;
    }

    /** The Multikey of a method; the offline resolver writes every key as publicKeyMultibase. */
    private static Optional<Multikey> keyOf(JsonNode method) {
        JsonNode multibase = method.get("publicKeyMultibase");
        if (multibase == null || !multibase.isTextual()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Multikey.decode(multibase.textValue()));
        } catch (DidResolutionException e) {
            return Optional.empty();
        }
    }
}
