package org.fleetmesh.identity.didcomm;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A DIDComm signed message (media type {@code application/didcomm-signed+json}): a JWS in JSON serialization
 * (RFC 7515 §7.2) over a plaintext message, EdDSA with Ed25519 (RFC 8037), the signer's key id in the {@code kid}
 * header. Written in the General form as the spec's examples are; read in General or Flattened form, with exactly
 * one signature, since only the sender signs.
 */
public final class SignedMessage {
    private static final Set<String> GENERAL = Set.of("payload", "signatures");
    private static final Set<String> FLATTENED = Set.of("payload", "protected", "header", "signature");
    private static final Set<String> SIGNATURE = Set.of("protected", "header", "signature");

    private final String payload; // base64url as received: the signing input is exactly these characters
    private final String protectedHeader;
    private final String kid;
    private final byte[] signature;

    private SignedMessage(String payload, String protectedHeader, String kid, byte[] signature) {
        this.payload = payload;
        this.protectedHeader = protectedHeader;
        this.kid = kid;
        this.signature = signature;
    }

    /** Signs {@code payload} (a plaintext message's JSON) with {@code secret}, the key {@code kid} names. */
    public static SignedMessage sign(byte[] payload, String kid, Ed25519Secret secret) {
        if (!DidUrl.isKid(kid)) {
            throw new IllegalArgumentException("the signer's kid is a DID URL with a fragment, got '" + kid + "'");
        }
        ObjectNode header = DidcommJson.object();
        header.put("typ", MediaType.SIGNED.value());
        header.put("alg", "EdDSA");
        String protectedHeader = Base64Url.encode(DidcommJson.utf8(header));
        String encodedPayload = Base64Url.encode(payload);
        byte[] signature = secret.sign(signingInput(protectedHeader, encodedPayload));
        return new SignedMessage(encodedPayload, protectedHeader, kid, signature);
    }

    /** The signer's key id. */
    public String kid() {
        return kid;
    }

    /** The signed bytes: a plaintext message's JSON. */
    public byte[] payload() throws DidcommException {
        return Base64Url.decode(payload, "payload");
    }

    /**
     * Checks the signature with {@code key}, the key {@link #kid()} names.
     *
     * @throws DidcommException WRONG_KEY_TYPE when the key is not Ed25519, INVALID_SIGNATURE when it does not verify
     */
    public void verify(Multikey key) throws DidcommException {
        if (key.type() != KeyType.ED25519) {
            throw new DidcommException(DidcommException.Reason.WRONG_KEY_TYPE, kid + " is " + key.type()
                    + ", EdDSA needs Ed25519");
        }
        byte[] input = signingInput(protectedHeader, payload);
        if (signature.length != Ed25519.SIGNATURE_SIZE
                || !Ed25519.verify(signature, 0, key.keyBytes(), 0, input, 0, input.length)) {
            throw new DidcommException(DidcommException.Reason.INVALID_SIGNATURE, "the EdDSA signature does not verify"
                    + " with " + kid + ": payload, protected header or signature altered, or another key");
        }
    }

    public ObjectNode toJsonNode() {
        ObjectNode o = DidcommJson.object();
        o.put("payload", payload);
        ArrayNode signatures = o.putArray("signatures");
        ObjectNode s = signatures.addObject();
        s.put("protected", protectedHeader);
        s.put("signature", Base64Url.encode(signature));
        s.putObject("header").put("kid", kid);
        return o;
    }

    public String toJson() {
        return DidcommJson.compact(toJsonNode());
    }

    public static SignedMessage parse(String json) throws DidcommException {
        return parse(DidcommJson.parseObject(json, "signed message"));
    }

    /**
     * Reads a JWS in JSON serialization and checks its headers: {@code alg} EdDSA, {@code typ} (when present) the
     * signed media type, a {@code kid} that is a DID URL (in the protected or the unprotected header, not both),
     * no {@code crit}.
     */
    public static SignedMessage parse(ObjectNode jws) throws DidcommException {
        String where = "signed message";
        ObjectNode signatureObject;
        if (jws.has("signatures")) {
            requireOnly(jws, GENERAL, where);
            JsonNode signatures = jws.get("signatures");
            if (!signatures.isArray() || signatures.size() != 1 || !signatures.get(0).isObject()) {
                throw DidcommException.malformed(where + " 'signatures' must hold exactly one signature object, the"
                        + " sender's");
            }
            signatureObject = (ObjectNode) signatures.get(0);
            requireOnly(signatureObject, SIGNATURE, where + " signature");
        } else {
            requireOnly(jws, FLATTENED, where);
            signatureObject = jws;
        }
        String payload = DidcommJson.requireString(jws, "payload", where);
        String protectedHeader = DidcommJson.requireString(signatureObject, "protected", where);
        ObjectNode header = DidcommJson.parseObject(Base64Url.decode(protectedHeader, "JWS protected header"),
                "JWS protected header");
        String hw = "JWS protected header";
        Optional<String> typ = DidcommJson.optionalString(header, "typ", hw);
        if (typ.isPresent() && MediaType.of(typ.get()).orElse(null) != MediaType.SIGNED) {
            throw DidcommException.malformed(hw + " typ must be " + MediaType.SIGNED + ", got '" + typ.get() + "'");
        }
        if (header.has("crit")) {
            throw DidcommException.unsupported(hw + " 'crit' is not supported");
        }
        String alg = DidcommJson.requireString(header, "alg", hw);
        if (!"EdDSA".equals(alg)) {
            throw DidcommException.unsupported(hw + " alg '" + alg + "'; EdDSA (Ed25519) is supported");
        }
        Optional<String> crv = DidcommJson.optionalString(header, "crv", hw);
        if (crv.isPresent() && !"Ed25519".equalsIgnoreCase(crv.get())) {
            throw DidcommException.unsupported(hw + " EdDSA crv '" + crv.get() + "'; Ed25519 is supported");
        }
        JsonNode unprotected = signatureObject.get("header");
        ObjectNode unprotectedHeader = DidcommJson.object();
        if (unprotected != null) {
            if (!unprotected.isObject()) {
                throw DidcommException.malformed(where + " 'header' must be an object");
            }
            unprotectedHeader = (ObjectNode) unprotected;
            for (Map.Entry<String, JsonNode> e : unprotectedHeader.properties()) {
                if (header.has(e.getKey())) {
                    throw DidcommException.malformed(where + " header '" + e.getKey() + "' is both protected and not");
                }
            }
        }
        Optional<String> protectedKid = DidcommJson.optionalString(header, "kid", hw);
        Optional<String> unprotectedKid = DidcommJson.optionalString(unprotectedHeader, "kid", where + " header");
        String kid = protectedKid.or(() -> unprotectedKid)
                .orElseThrow(() -> DidcommException.malformed(where + " names no signer: no kid"));
        if (!DidUrl.isKid(kid)) {
            throw DidcommException.malformed(where + " kid must be a DID URL with a fragment, got '" + kid + "'");
        }
        byte[] signature = Base64Url.decode(DidcommJson.requireString(signatureObject, "signature", where), "signature");
        Base64Url.decode(payload, "payload");
        return new SignedMessage(payload, protectedHeader, kid, signature);
    }

    private static void requireOnly(ObjectNode o, Set<String> allowed, String where) throws DidcommException {
        for (Map.Entry<String, JsonNode> member : o.properties()) {
            if (!allowed.contains(member.getKey())) {
                throw DidcommException.malformed(where + " has unexpected member '" + member.getKey() + "'");
            }
        }
    }

    private static byte[] signingInput(String protectedHeader, String payload) {
        return (protectedHeader + "." + payload).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
        return "SignedMessage[EdDSA by " + kid + "]";
    }
}
