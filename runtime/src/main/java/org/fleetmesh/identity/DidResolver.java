package org.fleetmesh.identity;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.nostr.PubKey;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Resolves, offline, the DIDs fleetmesh speaks: did:key, did:peer (0, 2, and 4 in long form; 4 in short form once
 * its long form is known here) and did:nostr (the draft's minimal document). Immutable: {@link #knowing} returns
 * a resolver that also knows a long form.
 *
 * <p>Everything a DID encodes is decoded and checked; what fails is a {@link DidResolutionException} whose
 * {@link ResolutionError} is the W3C DID Resolution error.
 */
public final class DidResolver {
    private static final DidResolver OFFLINE = new DidResolver(Map.of());

    /** did:peer:4 long forms by their short form. */
    private final Map<String, DidPeer4> peer4ByShortForm;

    private DidResolver(Map<String, DidPeer4> peer4ByShortForm) {
        this.peer4ByShortForm = peer4ByShortForm;
    }

    public static DidResolver offline() {
        return OFFLINE;
    }

    /**
     * A resolver that also resolves the short form of {@code peer4LongForm}.
     *
     * @throws DidResolutionException when the long form does not resolve itself
     */
    public DidResolver knowing(String peer4LongForm) {
        DidPeer4 peer = DidPeer4.parse(peer4LongForm);
        Map<String, DidPeer4> known = new HashMap<>(peer4ByShortForm);
        known.put(peer.shortForm(), peer);
        return new DidResolver(Map.copyOf(known));
    }

    public DidResolver knowing(Collection<String> peer4LongForms) {
        DidResolver r = this;
        for (String longForm : peer4LongForms) {
            r = r.knowing(longForm);
        }
        return r;
    }

    /** Whether a did:peer:4 short form has a known long form here. */
    public boolean knowsShortForm(String shortForm) {
        return peer4ByShortForm.containsKey(shortForm);
    }

    /**
     * The DID document of a DID (not a DID URL: no path, query or fragment).
     *
     * @throws DidResolutionException invalidDid, methodNotSupported, notFound (a did:peer:4 short form whose long
     *         form is unknown), invalidPublicKey, invalidPublicKeyLength, invalidPublicKeyType
     */
    public ObjectNode resolve(String did) {
        if (did == null || !did.startsWith("did:")) {
            throw DidResolutionException.invalidDid("a DID starts with 'did:'");
        }
        int methodEnd = did.indexOf(':', 4);
        if (methodEnd < 0 || !did.substring(4, methodEnd).matches("[a-z0-9]+")) {
            throw DidResolutionException.invalidDid("a DID is did:<method>:<method-specific id>, the method in"
                    + " lower-case letters and digits");
        }
        for (char c : new char[] { '/', '?', '#' }) {
            if (did.indexOf(c) >= 0) {
                throw DidResolutionException.invalidDid("'" + c + "' makes this a DID URL; resolve the DID before it");
            }
        }
        String method = did.substring(4, methodEnd);
        return switch (method) {
            case "key" -> DidKey.resolve(did);
            case "peer" -> resolvePeer(did);
            case "nostr" -> DidNostr.resolve(did);
            default -> throw new DidResolutionException(ResolutionError.METHOD_NOT_SUPPORTED,
                    "did:" + method + " is not supported (did:key, did:peer and did:nostr are)");
        };
    }

    /**
     * DID Core syntax, {@code did:<method>:<method-specific-id>}: method {@code [a-z0-9]+}, id of
     * {@code [A-Za-z0-9._:-]} and {@code %XX} (ASCII hex), not ending in {@code :}, at most {@code maxLength}
     * characters. A loop, not a regex: a repeated alternation recurses once per character and overflows the stack on a
     * did:peer:4 long form.
     */
    public static boolean isDid(String s, int maxLength) {
        if (s == null || s.length() > maxLength || !s.startsWith("did:")) {
            return false;
        }
        int i = 4;
        while (i < s.length() && (ascii(s.charAt(i), '0', '9') || ascii(s.charAt(i), 'a', 'z'))) {
            i++;
        }
        if (i == 4 || i >= s.length() - 1 || s.charAt(i) != ':') {
            return false;
        }
        for (i++; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length() || !hex(s.charAt(i + 1)) || !hex(s.charAt(i + 2))) {
                    return false;
                }
                i += 2;
            } else if (!(ascii(c, 'a', 'z') || ascii(c, 'A', 'Z') || ascii(c, '0', '9') || c == '.' || c == '_'
                    || c == '-' || c == ':')) {
                return false;
            }
        }
        return s.charAt(s.length() - 1) != ':';
    }

    private static boolean ascii(char c, char from, char to) {
        return c >= from && c <= to;
    }

    private static boolean hex(char c) {
        return ascii(c, '0', '9') || ascii(c, 'a', 'f') || ascii(c, 'A', 'F');
    }

    /**
     * The BIP-340 keys {@code did}'s document lists under {@code authentication}: the Nostr keys that speak for it
     * (a key of a type this resolver cannot read is left out, as it cannot have signed anything checked here).
     *
     * @throws DidResolutionException when {@code did} does not resolve
     */
    public List<PubKey> nostrKeys(String did) {
        ObjectNode doc = resolve(did);
        List<PubKey> out = new ArrayList<>();
        JsonNode auth = doc.get("authentication");
        JsonNode methods = doc.get("verificationMethod");
        if (auth == null || !auth.isArray()) {
            return out;
        }
        for (JsonNode a : auth) {
            JsonNode method = a;
            if (a.isTextual()) {
                method = null;
                String ref = a.textValue().startsWith("#") ? did + a.textValue() : a.textValue();
                if (methods != null && methods.isArray()) {
                    for (JsonNode m : methods) {
                        JsonNode id = m.get("id");
                        if (id != null && id.isTextual()
                                && (id.textValue().startsWith("#") ? did + id.textValue() : id.textValue()).equals(ref)) {
                            method = m;
                        }
                    }
                }
            }
            JsonNode mb = method == null ? null : method.get("publicKeyMultibase");
            if (mb == null || !mb.isTextual()) {
                continue;
            }
            try {
                Multikey key = Multikey.decode(mb.textValue());
                if (key.type() == KeyType.SECP256K1) {
                    out.add(key.xOnly());
                }
            } catch (DidResolutionException e) {
                // a key this resolver cannot read cannot have signed what is checked against it
            }
        }
        return out;
    }

    private ObjectNode resolvePeer(String did) {
        if (DidPeer4.isShortForm(did)) {
            DidPeer4 known = peer4ByShortForm.get(did);
            if (known == null) {
                throw new DidResolutionException(ResolutionError.NOT_FOUND,
                        "no long form is known for " + did + "; a did:peer:4 short form resolves only after it");
            }
            return known.resolveShort();
        }
        return DidPeer.resolve(did);
    }
}
