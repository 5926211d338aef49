package org.fleetmesh.identity.didcomm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.identity.multiformats.Base58Btc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A {@link KeyResolver} over DID documents: those given to {@link #knowing}, then whatever the
 * {@link DidResolver} resolves offline (did:key, did:peer, did:nostr). A verification method may sit in
 * {@code verificationMethod} and be referenced from a relationship, or be embedded in the relationship; its id may
 * be absolute or relative ({@code #key-1}). Keys are read from {@code publicKeyMultibase}, {@code publicKeyJwk} or
 * {@code publicKeyBase58}. Immutable.
 */
public final class DidDocumentKeys implements KeyResolver {
    private static final String KEY_AGREEMENT = "keyAgreement";
    private static final String AUTHENTICATION = "authentication";

    private final DidResolver resolver;
    private final Map<String, ObjectNode> known;

    private DidDocumentKeys(DidResolver resolver, Map<String, ObjectNode> known) {
        this.resolver = resolver;
        this.known = known;
    }

    /** Keys of the DIDs {@link DidResolver#offline()} resolves. */
    public static DidDocumentKeys offline() {
        return using(DidResolver.offline());
    }

    /** Keys of the DIDs {@code resolver} resolves (one that knows did:peer:4 long forms, say). */
    public static DidDocumentKeys using(DidResolver resolver) {
        return new DidDocumentKeys(resolver, Map.of());
    }

    /** A resolver that also knows {@code document}, under its {@code id}, ahead of the DID resolver. */
    public DidDocumentKeys knowing(ObjectNode document) {
        JsonNode id = document.get("id");
        if (id == null || !id.isTextual() || !DidUrl.isDid(id.textValue())) {
            throw new IllegalArgumentException("a DID document needs its DID in 'id'");
        }
        Map<String, ObjectNode> docs = new HashMap<>(known);
        docs.put(id.textValue(), document.deepCopy());
        return new DidDocumentKeys(resolver, Map.copyOf(docs));
    }

    @Override
    public Multikey keyAgreementKey(String kid) throws DidcommException {
        return key(kid, KEY_AGREEMENT);
    }

    @Override
    public Multikey authenticationKey(String kid) throws DidcommException {
        return key(kid, AUTHENTICATION);
    }

    @Override
    public List<String> keyAgreementKids(String did) throws DidcommException {
        ObjectNode doc = document(did);
        List<String> kids = new ArrayList<>();
        JsonNode relationship = doc.get(KEY_AGREEMENT);
        if (relationship != null && relationship.isArray()) {
            for (JsonNode entry : relationship) {
                JsonNode ref = entry.isObject() ? entry.get("id") : entry;
                if (ref != null && ref.isTextual()) {
                    kids.add(absolute(did, ref.textValue()));
                }
            }
        }
        if (kids.isEmpty()) {
            throw new DidcommException(DidcommException.Reason.UNKNOWN_KEY, did + " has no keyAgreement key");
        }
        return List.copyOf(kids);
    }

    private Multikey key(String kid, String relationship) throws DidcommException {
        if (kid == null || !DidUrl.isKid(kid)) {
            throw DidcommException.malformed("a kid is a DID URL with a fragment, got '" + kid + "'");
        }
        String did = DidUrl.didOf(kid);
        ObjectNode doc = document(did);
        Optional<ObjectNode> method = Optional.empty();
        boolean authorized = false;
        JsonNode listed = doc.get(relationship);
        if (listed != null && listed.isArray()) {
            for (JsonNode entry : listed) {
                if (entry.isTextual() && absolute(did, entry.textValue()).equals(kid)) {
                    authorized = true;
                } else if (entry.isObject() && hasId(entry, did, kid)) {
                    authorized = true;
                    method = Optional.of((ObjectNode) entry);
                }
            }
        }
        if (method.isEmpty()) {
            method = findMethod(doc, did, kid);
        }
        if (method.isEmpty()) {
            throw new DidcommException(DidcommException.Reason.UNKNOWN_KEY, "the DID document of " + did
                    + " has no verification method " + kid);
        }
        if (!authorized) {
            throw new DidcommException(DidcommException.Reason.KEY_NOT_AUTHORIZED, kid + " is not listed under "
                    + relationship + " in the DID document of " + did);
        }
        return keyOf(method.get(), kid);
    }

    private ObjectNode document(String did) throws DidcommException {
        ObjectNode doc = known.get(did);
        if (doc != null) {
            return doc;
        }
        try {
            return resolver.resolve(did);
        } catch (DidResolutionException e) {
            throw new DidcommException(DidcommException.Reason.UNRESOLVABLE_DID, did + ": " + e.getMessage());
        }
    }

    /** A method anywhere in the document: {@code verificationMethod} or embedded in any relationship. */
    private static Optional<ObjectNode> findMethod(ObjectNode doc, String did, String kid) {
        for (Map.Entry<String, JsonNode> member : doc.properties()) {
            if (!member.getValue().isArray()) {
                continue;
            }
            for (JsonNode entry : member.getValue()) {
                if (entry.isObject() && hasId(entry, did, kid) && hasKeyMaterial(entry)) {
                    return Optional.of((ObjectNode) entry);
                }
            }
        }
        return Optional.empty();
    }

    private static boolean hasKeyMaterial(JsonNode method) {
        return method.has("publicKeyMultibase") || method.has("publicKeyJwk") || method.has("publicKeyBase58");
    }

    private static boolean hasId(JsonNode entry, String did, String kid) {
        JsonNode id = entry.get("id");
        return id != null && id.isTextual() && absolute(did, id.textValue()).equals(kid);
    }

    /** A relative DID URL ({@code #key-1}, as did:peer:2 and did:peer:4 write them) made absolute. */
    private static String absolute(String did, String ref) {
        return ref.startsWith("#") ? did + ref : ref;
    }

    private static Multikey keyOf(ObjectNode method, String kid) throws DidcommException {
        String where = "verification method " + kid;
        try {
            JsonNode multibase = method.get("publicKeyMultibase");
            if (multibase != null) {
                if (!multibase.isTextual()) {
                    throw DidcommException.malformed(where + " publicKeyMultibase must be a string");
                }
                return Multikey.decode(multibase.textValue());
            }
            JsonNode jwk = method.get("publicKeyJwk");
            if (jwk != null) {
                if (!jwk.isObject()) {
                    throw DidcommException.malformed(where + " publicKeyJwk must be an object");
                }
                return Jwk.publicKey((ObjectNode) jwk, where + " publicKeyJwk");
            }
            JsonNode base58 = method.get("publicKeyBase58");
            if (base58 != null && base58.isTextual()) {
                String type = DidcommJson.optionalString(method, "type", where).orElse("");
                KeyType keyType = switch (type) {
                    case "Ed25519VerificationKey2018" -> KeyType.ED25519;
                    case "X25519KeyAgreementKey2019" -> KeyType.X25519;
                    default -> throw DidcommException.unsupported(where + " of type '" + type
                            + "' carries publicKeyBase58; Ed25519VerificationKey2018 and X25519KeyAgreementKey2019 do");
                };
                return Multikey.of(keyType, Base58Btc.decode(base58.textValue()));
            }
        } catch (DidResolutionException | IllegalArgumentException e) {
            throw DidcommException.malformed(where + ": " + e.getMessage());
        }
        throw DidcommException.malformed(where + " has no publicKeyMultibase, publicKeyJwk or publicKeyBase58");
    }
}
