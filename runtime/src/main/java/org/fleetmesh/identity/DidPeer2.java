package org.fleetmesh.identity;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.identity.multiformats.Multibase;
import org.fleetmesh.identity.multiformats.Multihash;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * did:peer numalgo 2 (DIF Peer DID Method, "multiple inception key without doc"): keys and services inline,
 * {@code did:peer:2.<purpose><multikey>....S<base64url service>}, each key a {@code #key-N} verification method.
 */
public final class DidPeer2 {
    public static final String PREFIX = "did:peer:2";
    private static final String SERVICE_CODE = "S";
    private static final Map<String, String> ABBREVIATIONS = Map.of("type", "t", "serviceEndpoint", "s",
            "routingKeys", "r", "accept", "a");
    private static final Map<String, String> EXPANSIONS = Map.of("t", "type", "s", "serviceEndpoint", "r",
            "routingKeys", "a", "accept");
    private static final String DIDCOMM_MESSAGING = "DIDCommMessaging";
    private static final String DIDCOMM_MESSAGING_ABBREVIATED = "dm";

    private DidPeer2() {
    }

    /** The purpose codes: which verification relationship a key element goes into (in document order). */
    public enum Purpose {
        AUTHENTICATION('V', "authentication"),
        ASSERTION('A', "assertionMethod"),
        KEY_AGREEMENT('E', "keyAgreement"),
        CAPABILITY_INVOCATION('I', "capabilityInvocation"),
        CAPABILITY_DELEGATION('D', "capabilityDelegation");

        private final char code;
        private final String relationship;

        Purpose(char code, String relationship) {
            this.code = code;
            this.relationship = relationship;
        }

        public char code() {
            return code;
        }

        public String relationship() {
            return relationship;
        }

        /** An X25519 key cannot sign and an Ed25519 key cannot agree keys. */
        public boolean allows(KeyType type) {
            return this == KEY_AGREEMENT ? type.agreesKeys() : type.signs();
        }

        public static Optional<Purpose> of(char code) {
            return Arrays.stream(values()).filter(p -> p.code == code).findFirst();
        }
    }

    /** One key element of the DID. */
    public record PurposedKey(Purpose purpose, Multikey key) {
        public PurposedKey {
            if (!purpose.allows(key.type())) {
                throw new IllegalArgumentException("a " + key.type() + " key cannot serve " + purpose.relationship());
            }
        }
    }

    /** Keys in order (they become #key-1, #key-2, ...), then each service encoded on its own. */
    public static String create(List<PurposedKey> keys, List<ObjectNode> services) {
        if (keys.isEmpty() && services.isEmpty()) {
            throw new IllegalArgumentException("a did:peer:2 needs at least one element");
        }
        StringBuilder did = new StringBuilder(PREFIX);
        for (PurposedKey k : keys) {
            did.append('.').append(k.purpose().code()).append(k.key().encode());
        }
        for (ObjectNode service : services) {
            did.append('.').append(SERVICE_CODE).append(encodeService(service));
        }
        return did.toString();
    }

    /** Abbreviates the common strings, writes compact JSON, and base64url-encodes it without padding. */
    public static String encodeService(ObjectNode service) {
        JsonNode abbreviated = rename(service, ABBREVIATIONS);
        JsonNode type = abbreviated.get("t");
        if (type != null && DIDCOMM_MESSAGING.equals(type.asText())) {
            ((ObjectNode) abbreviated).put("t", DIDCOMM_MESSAGING_ABBREVIATED);
        }
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString(DidJson.compact(abbreviated).getBytes(StandardCharsets.UTF_8));
    }

    /** The inverse of {@link #encodeService}: the service as the document shows it (without an assigned id). */
    public static ObjectNode decodeService(String encoded) {
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(encoded);
        } catch (IllegalArgumentException e) {
            throw DidResolutionException.invalidDid("did:peer:2 service is not base64url: " + e.getMessage());
        }
        ObjectNode abbreviated = DidJson.parseObject(utf8(bytes, "did:peer:2 service"), "did:peer:2 service");
        ObjectNode service = (ObjectNode) rename(abbreviated, EXPANSIONS);
        JsonNode type = service.get("type");
        if (type != null && DIDCOMM_MESSAGING_ABBREVIATED.equals(type.asText())) {
            service.put("type", DIDCOMM_MESSAGING);
        }
        if (!service.hasNonNull("type") || !service.hasNonNull("serviceEndpoint")) {
            throw DidResolutionException.invalidDid("did:peer:2 service needs a type and a serviceEndpoint");
        }
        return service;
    }

    /**
     * The DID document: DID Core and Multikey contexts, {@code #key-N} Multikey methods controlled by the DID,
     * relationship references, services ({@code #service}, {@code #service-1}... when they carry no id) and, in
     * {@code alsoKnownAs}, the did:peer:3 that shortens it.
     *
     * @throws DidResolutionException invalidDid for structure, multibase, base64 and JSON errors;
     *         invalidPublicKeyType for a key that cannot serve its purpose or an unknown multicodec;
     *         invalidPublicKeyLength and invalidPublicKey for bad key bytes
     */
    public static ObjectNode resolve(String did) {
        if (did == null || !did.startsWith(PREFIX + ".")) {
            throw DidResolutionException.invalidDid("a did:peer:2 starts with '" + PREFIX + ".'");
        }
        ObjectNode doc = DidJson.object();
        doc.set("@context", DidJson.strings(JsonLdContext.DID_V1, JsonLdContext.MULTIKEY_V1));
        doc.put("id", did);
        ArrayNode methods = DidJson.array();
        Map<Purpose, List<String>> relationships = new EnumMap<>(Purpose.class);
        List<ObjectNode> services = new ArrayList<>();
        int unnamedServices = 0;
        String[] elements = did.substring(PREFIX.length() + 1).split("\\.", -1);
        for (String element : elements) {
            if (element.length() < 2) {
                throw DidResolutionException.invalidDid("did:peer:2 has an empty element");
            }
            char code = element.charAt(0);
            String value = element.substring(1);
            if (SERVICE_CODE.charAt(0) == code) {
                ObjectNode service = decodeService(value);
                if (!service.has("id")) {
                    service.put("id", unnamedServices == 0 ? "#service" : "#service-" + unnamedServices);
                    unnamedServices++;
                }
                services.add(service);
                continue;
            }
            Purpose purpose = Purpose.of(code).orElseThrow(() -> DidResolutionException
                    .invalidDid("'" + code + "' is not a did:peer:2 purpose code (A, E, V, I, D, S)"));
            if (value.charAt(0) != Multibase.BASE58BTC.prefix()) {
                throw DidResolutionException.invalidDid("did:peer:2 keys are base58btc multibase ('z'), got '"
                        + value.charAt(0) + "'");
            }
            Multikey key = Multikey.decode(value);
            if (!purpose.allows(key.type())) {
                throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY_TYPE,
                        "a " + key.type().codec().tableName() + " key cannot serve " + purpose.relationship()
                                + " (purpose '" + code + "')");
            }
            String id = "#key-" + (methods.size() + 1);
            ObjectNode vm = methods.addObject();
            vm.put("id", id);
            vm.put("controller", did);
            vm.put("type", PublicKeyFormat.MULTIKEY.type(key.type()));
            vm.put("publicKeyMultibase", value);
            relationships.computeIfAbsent(purpose, p -> new ArrayList<>()).add(id);
        }
        if (!methods.isEmpty()) {
            doc.set("verificationMethod", methods);
        }
        relationships.forEach((purpose, ids) -> doc.set(purpose.relationship(), DidJson.strings(ids)));
        if (!services.isEmpty()) {
            doc.putArray("service").addAll(services);
        }
        doc.set("alsoKnownAs", DidJson.strings(numalgo3(did)));
        return doc;
    }

    /** did:peer numalgo 3: the base58btc SHA2-256 multihash of the numalgo 2 DID after {@code did:peer:2}. */
    public static String numalgo3(String did) {
        if (did == null || !did.startsWith(PREFIX + ".")) {
            throw DidResolutionException.invalidDid("a did:peer:2 starts with '" + PREFIX + ".'");
        }
        byte[] suffix = did.substring(PREFIX.length()).getBytes(StandardCharsets.UTF_8);
        return "did:peer:3" + Multibase.BASE58BTC.encode(Multihash.sha256(suffix));
    }

    /** A copy with object keys renamed through {@code names}, at every depth. */
    private static JsonNode rename(JsonNode node, Map<String, String> names) {
        if (node.isObject()) {
            ObjectNode out = DidJson.object();
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                String name = names.getOrDefault(field.getKey(), field.getKey());
                if (out.has(name)) {
                    throw DidResolutionException.invalidDid("did:peer:2 service has '" + name + "' twice, abbreviated and in full");
                }
                out.set(name, rename(field.getValue(), names));
            }
            return out;
        }
        if (node.isArray()) {
            ArrayNode out = DidJson.array();
            node.forEach(element -> out.add(rename(element, names)));
            return out;
        }
        return node;
    }

    static String utf8(byte[] bytes, String what) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw DidResolutionException.invalidDid(what + " is not UTF-8");
        }
    }
}
