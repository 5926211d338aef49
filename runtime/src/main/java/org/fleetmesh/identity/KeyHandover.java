package org.fleetmesh.identity;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.fleetmesh.nostr.Snippet;

/**
 * A signed hand-over from a node's old DID to its new one after a key rotation: the DIDComm v2 {@code from_prior}
 * JWT (DIDComm Messaging v2, "DID Rotation"; RFC 7519 over an RFC 7515 compact JWS, {@code EdDSA} as in RFC 8037).
 * The header is {@code {"typ":"JWT","alg":"EdDSA","kid":"<prior DID>#key-1"}}, the claims
 * {@code {"iss":"<prior DID>","sub":"<new DID>","iat":<seconds>}}; the prior DID's Ed25519 authentication key
 * {@code kid} names signs it. The new DID's own proof is the link's (docs/spec/mesh-link.md, "Key hand-over"): a
 * hand-over is only believed from the DID it names as {@code sub}.
 *
 * <p>Pure: strings and keys in, values out. {@link #verify} resolves the prior DID offline (a did:peer:4 long form or
 * a did:key: both carry their keys).
 *
 * @param jwt the compact JWS as sent
 * @param prior the prior DID ({@code iss}) as signed
 * @param next the new DID ({@code sub}) as signed
 * @param issuedAt {@code iat}, seconds since 1970
 */
public record KeyHandover(String jwt, String prior, String next, long issuedAt) {
    /** The longest JWT read: two did:peer:4 long forms in base64url and a signature fit with room to spare. */
    public static final int MAX_LENGTH = 16 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getUrlDecoder();

    public KeyHandover {
        Objects.requireNonNull(jwt, "jwt");
        Objects.requireNonNull(prior, "prior");
        Objects.requireNonNull(next, "next");
    }

    /** The did:peer:4 short form of the prior DID (or the DID itself): how peers key it. */
    public String priorKey() {
        return shortForm(prior);
    }

    /** The did:peer:4 short form of the new DID (or the DID itself). */
    public String nextKey() {
        return shortForm(next);
    }

    /**
     * Signs a hand-over.
     *
     * @param prior the old DID (a did:peer:4 long form, so that anyone can resolve its keys offline)
     * @param kid the DID URL of the old Ed25519 authentication key, e.g. {@code prior + "#key-1"}
     * @param priorTransport the old Ed25519 seed (wiped copy only)
     * @param next the new DID
     * @param issuedAt seconds since 1970
     */
    public static KeyHandover sign(String prior, String kid, SecretKey priorTransport, String next, long issuedAt) {
        if (shortForm(prior).equals(shortForm(next))) {
            throw new IllegalArgumentException("a hand-over names two different DIDs");
        }
        ObjectNode header = JSON.createObjectNode();
        header.put("typ", "JWT");
        header.put("alg", "EdDSA");
        header.put("kid", kid);
        ObjectNode claims = JSON.createObjectNode();
        claims.put("iss", prior);
        claims.put("sub", next);
        claims.put("iat", issuedAt);
        String input = B64.encodeToString(bytes(header)) + "." + B64.encodeToString(bytes(claims));
        byte[] message = input.getBytes(StandardCharsets.US_ASCII);
        byte[] seed = priorTransport.bytes();
        byte[] sig = new byte[Ed25519.SIGNATURE_SIZE];
        try {
            Ed25519.sign(seed, 0, message, 0, message.length, sig, 0);
        } finally {
            Arrays.fill(seed, (byte) 0);
        }
        KeyHandover h = new KeyHandover(input + "." + B64.encodeToString(sig), prior, next, issuedAt);
        verify(h.jwt(), issuedAt, 0); // what this node signs, every reader must accept
        return h;
    }

    /**
     * Reads and verifies a hand-over: the JWS form, {@code alg} EdDSA, {@code typ} JWT when present, {@code kid} a
     * DID URL of {@code iss} naming an Ed25519 key listed under its document's {@code authentication}, the signature
     * under that key, {@code sub} another DID, {@code iat} not after {@code now + skewSeconds}.
     *
     * @throws IllegalArgumentException with the reason
     */
    public static KeyHandover verify(String jwt, long now, long skewSeconds) {
        if (jwt == null || jwt.isEmpty() || jwt.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("a hand-over is a JWT of 1.." + MAX_LENGTH + " characters");
        }
        String[] parts = jwt.split("\\.", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("a hand-over is a compact JWS: three base64url parts separated by '.'");
        }
        ObjectNode header = object(parts[0], "header");
        ObjectNode claims = object(parts[1], "claims");
        byte[] sig = base64(parts[2], "signature");
        if (!"EdDSA".equals(text(header, "alg", "header"))) {
            throw new IllegalArgumentException("the header's \"alg\" must be \"EdDSA\"");
        }
        if (header.has("typ") && !"JWT".equals(header.get("typ").asText(null))) {
            throw new IllegalArgumentException("the header's \"typ\" must be \"JWT\"");
        }
        if (header.has("crit")) {
            throw new IllegalArgumentException("the header's \"crit\" is not understood");
        }
        String kid = text(header, "kid", "header");
        String iss = text(claims, "iss", "claims");
        String sub = text(claims, "sub", "claims");
        JsonNode iatNode = claims.get("iat");
        if (iatNode == null || !iatNode.isIntegralNumber() || !iatNode.canConvertToLong() || iatNode.asLong() < 0) {
            throw new IllegalArgumentException("the claims' \"iat\" must be a non-negative integer");
        }
        long iat = iatNode.asLong();
        if (iat > now + skewSeconds) {
            throw new IllegalArgumentException("the hand-over is dated " + iat + ", in the future (now " + now + ")");
        }
        if (!DidResolver.isDid(sub, MAX_LENGTH) || sub.indexOf('#') >= 0) {
            throw new IllegalArgumentException("the claims' \"sub\" must be a DID");
        }
        if (shortForm(iss).equals(shortForm(sub))) {
            throw new IllegalArgumentException("\"iss\" and \"sub\" name the same DID");
        }
        int hash = kid.indexOf('#');
        String kidDid = hash < 0 ? kid : kid.substring(0, hash);
        if (hash <= 0 || !(kidDid.equals(iss) || kidDid.equals(shortForm(iss)))) {
            throw new IllegalArgumentException("the header's \"kid\" must be a DID URL of \"iss\" (" + Snippet.of(iss, 64) + "#...)");
        }
        ObjectNode doc;
        try {
            doc = DidResolver.offline().resolve(iss);
        } catch (DidResolutionException e) {
            throw new IllegalArgumentException("\"iss\" does not resolve: " + e.getMessage()
                    + (DidPeer4.isShortForm(iss) ? " (a hand-over names the did:peer:4 long form)" : ""));
        }
        Multikey key = authenticationKey(doc, iss, kid.substring(hash));
        if (key.type() != KeyType.ED25519) {
            throw new IllegalArgumentException("\"kid\" names a " + key.type() + " key; a hand-over is signed with Ed25519");
        }
        byte[] message = (parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII);
        if (sig.length != Ed25519.SIGNATURE_SIZE
                || !Ed25519.verify(sig, 0, key.keyBytes(), 0, message, 0, message.length)) {
            throw new IllegalArgumentException("the signature does not verify under \"kid\"");
        }
        return new KeyHandover(jwt, iss, sub, iat);
    }

    /**
     * {@link #verify}, and the hand-over must be to {@code holder} (short forms compared): what a node checks of its
     * own hand-over and of one presented by {@code holder}.
     *
     * @throws IllegalArgumentException with the reason
     */
    public static KeyHandover verifyTo(String holder, String jwt, long now, long skewSeconds) {
        KeyHandover h = verify(jwt, now, skewSeconds);
        if (!h.nextKey().equals(shortForm(holder))) {
            throw new IllegalArgumentException("it hands over to " + h.nextKey() + ", not to " + shortForm(holder));
        }
        return h;
    }

    /** The key a {@code #fragment} of {@code did} names, if {@code authentication} lists it. */
    private static Multikey authenticationKey(ObjectNode doc, String did, String fragment) {
        boolean listed = false;
        JsonNode auth = doc.get("authentication");
        if (auth != null && auth.isArray()) {
            for (JsonNode a : auth) {
                if (a.isTextual() && sameRef(did, a.textValue(), fragment)
                        || a.isObject() && a.has("id") && sameRef(did, a.get("id").asText(""), fragment)) {
                    listed = true;
                    if (a.isObject() && a.has("publicKeyMultibase")) {
                        return Multikey.decode(a.get("publicKeyMultibase").asText());
                    }
                }
            }
        }
        if (!listed) {
            throw new IllegalArgumentException("\"kid\" names no key under the prior DID's authentication");
        }
        JsonNode methods = doc.get("verificationMethod");
        if (methods != null && methods.isArray()) {
            for (JsonNode m : methods) {
                if (m.has("id") && sameRef(did, m.get("id").asText(""), fragment) && m.has("publicKeyMultibase")) {
                    try {
                        return Multikey.decode(m.get("publicKeyMultibase").asText());
                    } catch (DidResolutionException e) {
                        throw new IllegalArgumentException("\"kid\" names an unreadable key: " + e.getMessage());
                    }
                }
            }
        }
        throw new IllegalArgumentException("\"kid\" names no verification method of the prior DID");
    }

    /** Whether a document reference ({@code #key-1} or absolute) is {@code did + fragment}. */
    private static boolean sameRef(String did, String ref, String fragment) {
        if (ref.startsWith("#")) {
            return ref.equals(fragment);
        }
        int hash = ref.indexOf('#');
        return hash > 0 && ref.substring(hash).equals(fragment)
                && shortForm(ref.substring(0, hash)).equals(shortForm(did));
    }

    private static ObjectNode object(String part, String what) {
        byte[] raw = base64(part, what);
        try {
            JsonNode n = JSON.readTree(raw);
            if (n == null || !n.isObject()) {
                throw new IllegalArgumentException("the " + what + " is not a JSON object");
            }
            return (ObjectNode) n;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the " + what + " is not JSON: " + e.getOriginalMessage(), e);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("the " + what + " is not JSON", e);
        }
    }

    private static byte[] base64(String part, String what) {
        if (part.isEmpty() || part.indexOf('=') >= 0) {
            throw new IllegalArgumentException("the " + what + " is not unpadded base64url");
        }
        try {
            return B64D.decode(part);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the " + what + " is not unpadded base64url");
        }
    }

    private static String text(ObjectNode o, String name, String what) {
        JsonNode n = o.get(name);
        if (n == null || !n.isTextual()) {
            throw new IllegalArgumentException("the " + (what.endsWith("s") ? what + "'" : what + "'s") + " \"" + name
                    + "\" must be a string");
        }
        return n.textValue();
    }

    private static byte[] bytes(ObjectNode o) {
        try {
            return JSON.writeValueAsBytes(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The did:peer:4 short form of a long form, otherwise the DID itself: how a node keys a DID. */
    public static String shortForm(String did) {
        return DidPeer4.shortFormOf(did);
    }
}
