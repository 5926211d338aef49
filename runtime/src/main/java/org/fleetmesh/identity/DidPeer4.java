package org.fleetmesh.identity;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.identity.multiformats.Multibase;
import org.fleetmesh.identity.multiformats.Multicodec;
import org.fleetmesh.identity.multiformats.MultiformatException;
import org.fleetmesh.identity.multiformats.Multihash;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * did:peer numalgo 4 (DIF Peer DID Method, "short form and long form"): the input document rides in the DID,
 * {@code did:peer:4<hash>:<encoded document>}, and the short form {@code did:peer:4<hash>} names it once a peer has
 * seen the long form. encoded document = multibase(base58btc, multicodec json ‖ compact JSON); hash =
 * multibase(base58btc, sha2-256 multihash of the encoded document's characters).
 *
 * <p>An instance is a long form that has been checked: hash, encoding, and the input document rules.
 */
public final class DidPeer4 {
    public static final String PREFIX = "did:peer:4";
    /**
     * The longest encoded document read (characters of base58btc, about 11.7 KB of JSON): a node's own is about 1,330;
     * a stranger's longer one would only spend this resolver's CPU.
     */
    public static final int MAX_ENCODED = 16_384;
    static final List<String> RELATIONSHIPS = List.of("authentication", "assertionMethod", "keyAgreement",
            "capabilityInvocation", "capabilityDelegation");
    /** Verification method types whose publicKeyMultibase is a Multikey of a known key type. */
    private static final Map<String, Optional<KeyType>> MULTIKEY_TYPES = Map.of(
            "Multikey", Optional.empty(),
            "Ed25519VerificationKey2020", Optional.of(KeyType.ED25519),
            "X25519KeyAgreementKey2020", Optional.of(KeyType.X25519));

    private final String hash;
    private final String encodedDocument;
    private final ObjectNode inputDocument;

    private DidPeer4(String hash, String encodedDocument, ObjectNode inputDocument) {
        this.hash = hash;
        this.encodedDocument = encodedDocument;
        this.inputDocument = inputDocument;
    }

    /**
     * Encodes an input document: no root {@code id}, every resource id relative ({@code #...}), controller left
     * out where it is the DID itself.
     *
     * @throws DidResolutionException when the document breaks those rules or carries a bad key
     */
    public static DidPeer4 create(ObjectNode inputDocument) {
        ObjectNode doc = inputDocument.deepCopy();
        checkInputDocument(doc);
        byte[] json = DidJson.compact(doc).getBytes(StandardCharsets.UTF_8);
        String encoded = Multibase.BASE58BTC.encode(Multicodec.JSON.wrap(json));
        return new DidPeer4(hashOf(encoded), encoded, doc);
    }

    /**
     * Decodes a long form DID.
     *
     * @throws DidResolutionException invalidDid for syntax, a hash that does not match the encoded document, a
     *         document that is not multicodec json, or one that breaks the input document rules; the key errors
     *         for keys inside it
     */
    public static DidPeer4 parse(String longForm) {
        if (longForm == null || !longForm.startsWith(PREFIX)) {
            throw DidResolutionException.invalidDid("a did:peer:4 starts with '" + PREFIX + "'");
        }
        String[] parts = longForm.substring(PREFIX.length()).split(":", -1);
        if (parts.length == 1) {
            digestOf(parts[0]); // a malformed hash says so first
            throw DidResolutionException.invalidDid("'" + shortened(longForm) + "' is a did:peer:4 short form, not a long form");
        }
        if (parts.length != 2) {
            throw DidResolutionException.invalidDid("a did:peer:4 long form is did:peer:4<hash>:<encoded document>");
        }
        String hash = parts[0];
        String encoded = parts[1];
        if (encoded.length() > MAX_ENCODED) {
            // base58 decoding is quadratic in the length: 60,000 characters cost 90 ms, this bound about 7
            throw DidResolutionException.invalidDid("a did:peer:4 encoded document of " + encoded.length()
                    + " characters; this resolver reads at most " + MAX_ENCODED);
        }
        byte[] digest = digestOf(hash);
        byte[] actual = Multihash.sha256DigestOf(Multihash.sha256(encoded.getBytes(StandardCharsets.UTF_8)));
        if (!Arrays.equals(digest, actual)) {
            throw DidResolutionException.invalidDid("did:peer:4 hash does not match the encoded document");
        }
        Multicodec.Value value;
        try {
            value = Multicodec.unwrap(Multibase.BASE58BTC.decode(encoded));
        } catch (MultiformatException e) {
            throw DidResolutionException.invalidDid("did:peer:4 encoded document: " + e.getMessage());
        }
        if (value.code() != Multicodec.JSON.code()) {
            throw DidResolutionException.invalidDid("did:peer:4 encoded document has multicodec " + value.codeHex()
                    + ", not json (0x200)");
        }
        String json = DidPeer2.utf8(value.content(), "did:peer:4 document");
        ObjectNode doc = DidJson.parseObject(json, "did:peer:4 document");
        checkInputDocument(doc);
        return new DidPeer4(hash, encoded, doc);
    }

    /**
     * The short form of a did:peer:4 long form; any other DID (a short form, another method, a long form that does
     * not parse) as it is. How a node keys a DID.
     */
    public static String shortFormOf(String did) {
        if (did.startsWith(PREFIX) && !isShortForm(did)) {
            try {
                return parse(did).shortForm();
            } catch (RuntimeException e) {
                return did;
            }
        }
        return did;
    }

    /** Whether {@code did} has the syntax of a short form; says nothing of whether any long form matches it. */
    public static boolean isShortForm(String did) {
        if (did == null || !did.startsWith(PREFIX) || did.indexOf(':', PREFIX.length()) >= 0) {
            return false;
        }
        try {
            digestOf(did.substring(PREFIX.length()));
            return true;
        } catch (DidResolutionException e) {
            return false;
        }
    }

    public String longForm() {
        return PREFIX + hash + ":" + encodedDocument;
    }

    public String shortForm() {
        return PREFIX + hash;
    }

    /** Whether {@code shortForm} is this long form's hash: the check before trusting a short form with it. */
    public boolean hasShortForm(String shortForm) {
        return shortForm().equals(shortForm);
    }

    /** The input document as decoded, a copy. */
    public ObjectNode inputDocument() {
        return inputDocument.deepCopy();
    }

    /** The long form's document: id the long form, alsoKnownAs gains the short form. */
    public ObjectNode resolve() {
        return contextualize(longForm(), shortForm());
    }

    /** The short form's document: id the short form, alsoKnownAs gains the long form. */
    public ObjectNode resolveShort() {
        return contextualize(shortForm(), longForm());
    }

    /**
     * "Contextualising": {@code id} set to the DID (placed after {@code @context}), {@code controller} set on every
     * verification method that has none, and the other form appended to {@code alsoKnownAs}.
     */
    private ObjectNode contextualize(String did, String otherForm) {
        ObjectNode doc = DidJson.object();
        if (inputDocument.has("@context")) {
            doc.set("@context", inputDocument.get("@context").deepCopy());
        }
        doc.put("id", did);
        for (Map.Entry<String, JsonNode> field : inputDocument.properties()) {
            if (!field.getKey().equals("@context")) {
                doc.set(field.getKey(), field.getValue().deepCopy());
            }
        }
        for (String list : concat("verificationMethod", RELATIONSHIPS)) {
            JsonNode entries = doc.get(list);
            if (entries != null) {
                for (JsonNode entry : entries) {
                    if (entry.isObject() && !entry.has("controller")) {
                        ((ObjectNode) entry).put("controller", did);
                    }
                }
            }
        }
        ArrayNode aka = doc.has("alsoKnownAs") ? (ArrayNode) doc.get("alsoKnownAs") : doc.putArray("alsoKnownAs");
        aka.add(otherForm);
        return doc;
    }

    private static String hashOf(String encodedDocument) {
        return Multibase.BASE58BTC.encode(Multihash.sha256(encodedDocument.getBytes(StandardCharsets.UTF_8)));
    }

    private static byte[] digestOf(String hash) {
        try {
            return Multihash.sha256DigestOf(Multibase.BASE58BTC.decode(hash));
        } catch (MultiformatException e) {
            throw DidResolutionException.invalidDid("did:peer:4 hash: " + e.getMessage());
        }
    }

    /**
     * The input document rules of the reference implementation (no root id; lists where lists belong; every
     * resource with a relative id and a type), plus ours: relative references point at declared methods, and
     * Multikey material decodes to a key that can serve the relationship it is in.
     */
    private static void checkInputDocument(ObjectNode doc) {
        if (doc.isEmpty()) {
            throw DidResolutionException.invalidDid("did:peer:4 input document is empty");
        }
        if (doc.has("id")) {
            throw DidResolutionException.invalidDid("did:peer:4 input document must not carry a root id");
        }
        if (doc.has("alsoKnownAs") && !doc.get("alsoKnownAs").isArray()) {
            throw DidResolutionException.invalidDid("did:peer:4 alsoKnownAs must be a list");
        }
        Map<String, Optional<Multikey>> declared = new HashMap<>();
        for (String list : concat("verificationMethod", concat("service", RELATIONSHIPS))) {
            JsonNode entries = doc.get(list);
            if (entries == null) {
                continue;
            }
            if (!entries.isArray()) {
                throw DidResolutionException.invalidDid("did:peer:4 " + list + " must be a list");
            }
            for (int i = 0; i < entries.size(); i++) {
                JsonNode entry = entries.get(i);
                String where = list + "[" + i + "]";
                if (entry.isObject()) {
                    String id = checkResource(entry, where);
                    if (!list.equals("service")) {
                        Optional<Multikey> key = keyOf(entry, where);
                        declared.put(id, key);
                        key.ifPresent(k -> checkServes(k, list, where));
                    }
                } else if (!entry.isTextual() || list.equals("service")) {
                    throw DidResolutionException.invalidDid("did:peer:4 " + where + " must be "
                            + (list.equals("service") ? "an object" : "an object or a reference"));
                }
            }
        }
        for (String relationship : RELATIONSHIPS) {
            JsonNode entries = doc.get(relationship);
            if (entries == null) {
                continue;
            }
            for (JsonNode entry : entries) {
                String ref = entry.asText();
                if (!entry.isTextual() || !ref.startsWith("#")) {
                    continue; // embedded, or a method of another DID
                }
                if (!declared.containsKey(ref)) {
                    throw DidResolutionException.invalidDid("did:peer:4 " + relationship + " refers to " + ref
                            + ", which the document does not declare");
                }
                declared.get(ref).ifPresent(k -> checkServes(k, relationship, relationship + " " + ref));
            }
        }
    }

    private static String checkResource(JsonNode resource, String where) {
        JsonNode id = resource.get("id");
        if (id == null || !id.isTextual()) {
            throw DidResolutionException.invalidDid("did:peer:4 " + where + " needs a string id");
        }
        if (!id.asText().startsWith("#")) {
            throw DidResolutionException.invalidDid("did:peer:4 " + where + " id must be relative ('#...'), got '"
                    + id.asText() + "'");
        }
        if (!resource.has("type")) {
            throw DidResolutionException.invalidDid("did:peer:4 " + where + " needs a type");
        }
        return id.asText();
    }

    /** The Multikey a verification method carries, when its type says publicKeyMultibase is one. */
    private static Optional<Multikey> keyOf(JsonNode vm, String where) {
        Optional<KeyType> expected = MULTIKEY_TYPES.get(vm.get("type").asText());
        JsonNode multibase = vm.get("publicKeyMultibase");
        if (expected == null || multibase == null) {
            return Optional.empty(); // JsonWebKey2020, publicKeyBase58 suites...: carried as given
        }
        if (!multibase.isTextual()) {
            throw DidResolutionException.invalidDid("did:peer:4 " + where + " publicKeyMultibase must be a string");
        }
        Multikey key = Multikey.decode(multibase.asText());
        if (expected.isPresent() && expected.get() != key.type()) {
            throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY_TYPE, "did:peer:4 " + where + " is a "
                    + vm.get("type").asText() + " but carries a " + key.type().codec().tableName() + " key");
        }
        return Optional.of(key);
    }

    private static void checkServes(Multikey key, String list, String where) {
        boolean ok = switch (list) {
            case "verificationMethod" -> true;
            case "keyAgreement" -> key.type().agreesKeys();
            default -> key.type().signs();
        };
        if (!ok) {
            throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY_TYPE, "did:peer:4 " + where + ": a "
                    + key.type().codec().tableName() + " key cannot serve " + list);
        }
    }

    private static List<String> concat(String first, List<String> rest) {
        String[] all = new String[rest.size() + 1];
        all[0] = first;
        for (int i = 0; i < rest.size(); i++) {
            all[i + 1] = rest.get(i);
        }
        return List.of(all);
    }

    static String shortened(String did) {
        return did.length() <= 60 ? did : did.substring(0, 56) + "...";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DidPeer4 p && p.hash.equals(hash) && p.encodedDocument.equals(encodedDocument);
    }

    @Override
    public int hashCode() {
        return encodedDocument.hashCode();
    }

    @Override
    public String toString() {
        return shortForm();
    }
}
