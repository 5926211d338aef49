package org.fleetmesh.identity.capability;

import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.identity.multiformats.Base58Btc;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The Ed25519 key a DID document delegates capabilities with: the one its {@code capabilityDelegation} lists
 * (DID Core §5.3.5). The node's did:peer:4 and did:peer:2 documents do not list that relationship yet, so a
 * document without an Ed25519 key there falls back to the one Ed25519 key of {@code assertionMethod}, then of
 * {@code authentication}: the node's transport key in every form of its DID.
 */
final class DelegationKey {
    private static final List<String> RELATIONSHIPS = List.of("capabilityDelegation", "assertionMethod", "authentication");

    private DelegationKey() {
    }

    /** @throws IllegalArgumentException when no relationship names exactly one Ed25519 key */
    static Multikey of(JsonNode document) {
        String did = document.path("id").asText("");
        Map<String, JsonNode> methods = new HashMap<>();
        for (JsonNode vm : document.path("verificationMethod")) {
            methods.put(absolute(did, vm.path("id").asText("")), vm);
        }
        for (String relationship : RELATIONSHIPS) {
            Set<Multikey> keys = new LinkedHashSet<>();
            for (JsonNode entry : document.path(relationship)) {
                JsonNode vm = entry.isTextual() ? methods.get(absolute(did, entry.asText())) : entry;
                if (vm == null) {
                    throw new IllegalArgumentException(relationship + " of " + did + " refers to " + entry.asText()
                            + ", which is not among its verification methods");
                }
                keys.addAll(ed25519(vm));
            }
            if (keys.size() == 1) {
                return keys.iterator().next();
            }
            if (keys.size() > 1) {
                throw new IllegalArgumentException(relationship + " of " + did + " lists " + keys.size()
                        + " Ed25519 keys; a capability root is one key");
            }
        }
        throw new IllegalArgumentException("the DID document of " + did
                + " has no Ed25519 key in capabilityDelegation, assertionMethod or authentication");
    }

    private static String absolute(String did, String id) {
        return id.startsWith("#") ? did + id : id;
    }

    /** The method's key if it is Ed25519, in any of the formats did:key resolves to. */
    private static List<Multikey> ed25519(JsonNode vm) {
        List<Multikey> out = new ArrayList<>();
        if (vm.hasNonNull("publicKeyMultibase")) {
            Multikey key = Multikey.decode(vm.get("publicKeyMultibase").asText());
            if (key.type() == KeyType.ED25519) {
                out.add(key);
            }
        } else if (vm.hasNonNull("publicKeyJwk")) {
            JsonNode jwk = vm.get("publicKeyJwk");
            if ("OKP".equals(jwk.path("kty").asText()) && "Ed25519".equals(jwk.path("crv").asText())) {
                out.add(Multikey.ed25519(Base64.getUrlDecoder().decode(jwk.path("x").asText())));
            }
        } else if (vm.hasNonNull("publicKeyBase58") && "Ed25519VerificationKey2018".equals(vm.path("type").asText())) {
            out.add(Multikey.ed25519(Base58Btc.decode(vm.get("publicKeyBase58").asText())));
        }
        return out;
    }
}
