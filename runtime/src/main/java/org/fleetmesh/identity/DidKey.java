package org.fleetmesh.identity;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * did:key (W3C CCG did-method-key v0.7): {@code did:key:<Multikey>}, a DID that is one public key, expanded
 * deterministically into its document. An Ed25519 key also gets its derived X25519 key for keyAgreement, as the
 * method's test vectors show; a secp256k1 key agrees keys itself.
 */
public final class DidKey {
    public static final String PREFIX = "did:key:";

    private DidKey() {
    }

    public static String of(Multikey key) {
        return PREFIX + key.encode();
    }

    /**
     * The key a did:key names, after the method's checks.
     *
     * @throws DidResolutionException invalidDid (syntax, version, multibase other than {@code z}, base58),
     *         invalidPublicKeyType, invalidPublicKeyLength, invalidPublicKey
     */
    public static Multikey parse(String did) {
        return Multikey.decode(multibaseValue(did));
    }

    /** The document with Multikey verification methods. */
    public static ObjectNode resolve(String did) {
        return resolve(did, PublicKeyFormat.MULTIKEY);
    }

    public static ObjectNode resolve(String did, PublicKeyFormat format) {
        return document(did, parse(did), format);
    }

    /** The did:key document for {@code key} under the identifier {@code did}; did:peer:0 shares it. */
    static ObjectNode document(String did, Multikey key, PublicKeyFormat format) {
        record Method(String id, Multikey key) {
        }
        Method self = new Method(did + "#" + key.encode(), key);
        List<Method> methods = new ArrayList<>(List.of(self));
        Method agreement = null;
        if (key.type() == KeyType.ED25519) {
            Multikey derived = key.x25519FromEd25519();
            agreement = new Method(did + "#" + derived.encode(), derived);
            methods.add(agreement);
        } else if (key.type().agreesKeys()) {
            agreement = self;
        }

        Set<String> contexts = new LinkedHashSet<>();
        contexts.add(JsonLdContext.DID_V1);
        methods.forEach(m -> contexts.add(format.context(m.key().type())));

        ObjectNode doc = DidJson.object();
        doc.set("@context", DidJson.strings(List.copyOf(contexts)));
        doc.put("id", did);
        ArrayNode vms = doc.putArray("verificationMethod");
        methods.forEach(m -> vms.add(format.verificationMethod(m.id(), did, m.key())));
        if (key.type().signs()) {
            for (String relationship : List.of("assertionMethod", "authentication", "capabilityInvocation",
                    "capabilityDelegation")) {
                doc.set(relationship, DidJson.strings(self.id()));
            }
        }
        if (agreement != null) {
            doc.set("keyAgreement", DidJson.strings(agreement.id()));
        }
        return doc;
    }

    private static String multibaseValue(String did) {
        if (did == null || !did.startsWith(PREFIX)) {
            throw DidResolutionException.invalidDid("a did:key starts with '" + PREFIX + "'");
        }
        String[] parts = did.substring(PREFIX.length()).split(":", -1);
        if (parts.length > 2) {
            throw DidResolutionException.invalidDid("did:key has the form did:key[:version]:<multibase>");
        }
        if (parts.length == 2 && !parts[0].matches("[1-9][0-9]{0,8}")) {
            throw DidResolutionException.invalidDid("did:key version must be a positive integer, got '" + parts[0] + "'");
        }
        String value = parts[parts.length - 1];
        if (value.isEmpty() || value.charAt(0) != 'z') {
            throw DidResolutionException.invalidDid("did:key needs a base58btc multibase value starting with 'z', got "
                    + (value.isEmpty() ? "nothing" : "'" + value.charAt(0) + "'"));
        }
        return value;
    }
}
