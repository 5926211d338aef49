package org.fleetmesh.identity;

import java.util.List;

import org.fleetmesh.identity.multiformats.Multibase;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * did:nostr (Nostr CG draft 0.1.0): {@code did:nostr:<64 lower-case hex x-only key>}. Its document has one
 * Multikey method {@code #key1} whose publicKeyMultibase is base16 ({@code f}) of {@code 0xe7 0x01 ‖ 0x02 ‖ x},
 * referenced relatively from authentication and assertionMethod.
 */
public final class DidNostr {
    public static final String PREFIX = "did:nostr:";
    public static final String DOCUMENT_TYPE = "DIDNostr";
    public static final String RELAY_SERVICE_TYPE = "Relay";
    private static final String KEY_FRAGMENT = "#key1";

    private DidNostr() {
    }

    public static String of(PubKey key) {
        return PREFIX + key.hex();
    }

    /**
     * The key a did:nostr names.
     *
     * @throws DidResolutionException invalidDid for anything but lower-case hex, invalidPublicKeyLength for other
     *         than 64 hex characters, invalidPublicKey for an x that is not on secp256k1
     */
    public static PubKey parse(String did) {
        if (did == null || !did.startsWith(PREFIX)) {
            throw DidResolutionException.invalidDid("a did:nostr starts with '" + PREFIX + "'");
        }
        String hex = did.substring(PREFIX.length());
        for (int i = 0; i < hex.length(); i++) {
            char c = hex.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                throw DidResolutionException.invalidDid("did:nostr keys are lower-case hex; '" + c + "' at position "
                        + i + " is not");
            }
        }
        if (hex.length() != 64) {
            throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY_LENGTH,
                    "did:nostr keys are 64 hex characters (32 bytes), got " + hex.length());
        }
        PubKey key = PubKey.ofHex(hex);
        Multikey.nostr(key); // x must lift to a point (x < p and x^3 + 7 a square)
        return key;
    }

    /** {@code f e701 02 <x>}: the draft's Multikey form, base16 where did:key would use base58btc. */
    public static String publicKeyMultibase(PubKey key) {
        return Multikey.nostr(key).encode(Multibase.BASE16_LOWER);
    }

    /** The x-only key of a did:nostr publicKeyMultibase; 0x02 and 0x03 parities both accepted, as the draft asks. */
    public static PubKey decodePublicKeyMultibase(String publicKeyMultibase) {
        if (publicKeyMultibase == null || publicKeyMultibase.isEmpty()
                || publicKeyMultibase.charAt(0) != Multibase.BASE16_LOWER.prefix()) {
            throw DidResolutionException.invalidDid("did:nostr publicKeyMultibase is base16 lower-case ('f')");
        }
        Multikey key = Multikey.decode(publicKeyMultibase);
        if (key.type() != KeyType.SECP256K1) {
            throw new DidResolutionException(ResolutionError.INVALID_PUBLIC_KEY_TYPE,
                    "did:nostr keys are secp256k1-pub, got " + key.type().codec().tableName());
        }
        return key.xOnly();
    }

    /** The minimal document, from the key alone (the draft's offline resolution). */
    public static ObjectNode resolve(String did) {
        return document(parse(did), List.of(), List.of());
    }

    /**
     * The document with the optional parts the draft allows: {@code alsoKnownAs} and {@code Relay} services
     * ({@code #relay1}, {@code #relay2}...). Field order follows the draft's examples.
     */
    public static ObjectNode document(PubKey key, List<String> alsoKnownAs, List<String> relays) {
        String did = of(key);
        ObjectNode doc = DidJson.object();
        doc.set("@context", DidJson.strings(JsonLdContext.CID_V1, JsonLdContext.NOSTR));
        doc.put("id", did);
        if (!alsoKnownAs.isEmpty()) {
            doc.set("alsoKnownAs", DidJson.strings(alsoKnownAs));
        }
        doc.put("type", DOCUMENT_TYPE);
        ObjectNode vm = doc.putArray("verificationMethod").addObject();
        vm.put("id", did + KEY_FRAGMENT);
        vm.put("type", PublicKeyFormat.MULTIKEY.type(KeyType.SECP256K1));
        vm.put("controller", did);
        vm.put("publicKeyMultibase", publicKeyMultibase(key));
        doc.set("authentication", DidJson.strings(KEY_FRAGMENT));
        doc.set("assertionMethod", DidJson.strings(KEY_FRAGMENT));
        if (!relays.isEmpty()) {
            ArrayNode services = doc.putArray("service");
            for (int i = 0; i < relays.size(); i++) {
                ObjectNode service = services.addObject();
                service.put("id", did + "#relay" + (i + 1));
                service.put("type", RELAY_SERVICE_TYPE);
                service.put("serviceEndpoint", relays.get(i));
            }
        }
        return doc;
    }

    /** Where a host serves the document over HTTPS: {@code /.well-known/did/nostr/<hex>.json}. */
    public static String wellKnownPath(PubKey key) {
        return "/.well-known/did/nostr/" + key.hex() + ".json";
    }

    /** The key a well-known path names, for the route that serves it. */
    public static PubKey parseWellKnownPath(String path) {
        String prefix = "/.well-known/did/nostr/";
        if (path == null || !path.startsWith(prefix) || !path.endsWith(".json")) {
            throw DidResolutionException.invalidDid("a did:nostr well-known path is " + prefix + "<hex>.json");
        }
        String hex = path.substring(prefix.length(), path.length() - ".json".length());
        if (!Hex.isLowerHex(hex, 64)) {
            throw DidResolutionException.invalidDid("a did:nostr well-known path names 64 lower-case hex characters");
        }
        return parse(PREFIX + hex);
    }
}
