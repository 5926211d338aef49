package org.fleetmesh.identity.didcomm;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A DIDComm signed message (media type {@code application/didcomm-signed+json}): a JWS in JSON serialization
 * (RFC 7515 §7.2) over a plaintext message, the signer's key id in the {@code kid} header. Written with EdDSA over
 * Ed25519 (RFC 8037) in the General form as the spec's examples are; read in General or Flattened form, with exactly
 * one signature, since only the sender signs, and verified with EdDSA (Ed25519), ES256 (ECDSA over P-256 with
 * SHA-256, RFC 7518 §3.4) or ES256K (ECDSA over secp256k1 with SHA-256, RFC 8812), as DIDComm Messaging v2
 * §"Message Signing" requires of every recipient, and ES384 (P-384 with SHA-384). A P-256 or P-384 key signs ES256 or
 * ES384.
 */
public final class SignedMessage {
    private static final Set<String> GENERAL = Set.of("payload", "signatures");
    private static final Set<String> FLATTENED = Set.of("payload", "protected", "header", "signature");
    private static final Set<String> SIGNATURE = Set.of("protected", "header", "signature");

    private static final X9ECParameters SECP256K1 = CustomNamedCurves.getByName("secp256k1");
    private static final ECDomainParameters SECP256K1_DOMAIN = new ECDomainParameters(SECP256K1);
    private static final String EDDSA = "EdDSA";
    private static final String ES256K = "ES256K";

    private final String payload; // base64url as received: the signing input is exactly these characters
    private final String protectedHeader;
    private final String alg;
    private final String kid;
    private final byte[] signature;

    private SignedMessage(String payload, String protectedHeader, String alg, String kid, byte[] signature) {
        this.payload = payload;
        this.protectedHeader = protectedHeader;
        this.alg = alg;
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
        return new SignedMessage(encodedPayload, protectedHeader, EDDSA, kid, signature);
    }

    /** Signs {@code payload} with the P-256 or P-384 {@code secret} the key {@code kid} names: ES256 or ES384. */
    public static SignedMessage sign(byte[] payload, String kid, EcSecret secret) {
        if (!DidUrl.isKid(kid)) {
            throw new IllegalArgumentException("the signer's kid is a DID URL with a fragment, got '" + kid + "'");
        }
        String alg = secret.curve().jwsAlgorithm();
        ObjectNode header = DidcommJson.object();
        header.put("typ", MediaType.SIGNED.value());
        header.put("alg", alg);
        String protectedHeader = Base64Url.encode(DidcommJson.utf8(header));
        String encodedPayload = Base64Url.encode(payload);
        byte[] signature = secret.sign(signingInput(protectedHeader, encodedPayload));
        return new SignedMessage(encodedPayload, protectedHeader, alg, kid, signature);
    }

    /** The JWS {@code alg}: EdDSA, ES256, ES384 or ES256K. */
    public String algorithm() {
        return alg;
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
     * @throws DidcommException WRONG_KEY_TYPE when the key is not the algorithm's (Ed25519 for EdDSA, P-256 for ES256,
     *         P-384 for ES384, secp256k1 for ES256K), INVALID_SIGNATURE when it does not verify
     */
    public void verify(Multikey key) throws DidcommException {
        if (alg.equals(ES256K)) {
            verifyEs256k(key);
            return;
        }
        Optional<NistCurve> nist = NistCurve.ofJwsAlgorithm(alg);
        if (nist.isPresent()) {
            verifyNist(nist.get(), key);
            return;
        }
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

    /** ES256K (RFC 8812 §3.2): ECDSA over secp256k1 with SHA-256, the signature R ‖ S, 32 bytes each. */
    private void verifyEs256k(Multikey key) throws DidcommException {
        if (key.type() != KeyType.SECP256K1) {
            throw new DidcommException(DidcommException.Reason.WRONG_KEY_TYPE, kid + " is " + key.type()
                    + ", ES256K needs secp256k1");
        }
        boolean valid = false;
        if (signature.length == 64) {
            ECDSASigner ecdsa = new ECDSASigner();
            ecdsa.init(false, new ECPublicKeyParameters(SECP256K1.getCurve().decodePoint(key.keyBytes()),
                    SECP256K1_DOMAIN));
            byte[] digest = ConcatKdf.sha256().digest(signingInput(protectedHeader, payload));
            valid = ecdsa.verifySignature(digest, new BigInteger(1, Arrays.copyOfRange(signature, 0, 32)),
                    new BigInteger(1, Arrays.copyOfRange(signature, 32, 64)));
        }
        if (!valid) {
            throw new DidcommException(DidcommException.Reason.INVALID_SIGNATURE, "the ES256K signature does not verify"
                    + " with " + kid + ": payload, protected header or signature altered, or another key");
        }
    }

    /** ES256 / ES384 (RFC 7518 §3.4): ECDSA over P-256 with SHA-256 or P-384 with SHA-384, R ‖ S. */
    private void verifyNist(NistCurve curve, Multikey key) throws DidcommException {
        if (key.type() != curve.type()) {
            throw new DidcommException(DidcommException.Reason.WRONG_KEY_TYPE, kid + " is " + key.type() + ", " + alg
                    + " needs " + curve.type().curve());
        }
        if (!curve.verify(key, signingInput(protectedHeader, payload), signature)) {
            throw new DidcommException(DidcommException.Reason.INVALID_SIGNATURE, "the " + alg + " signature does not"
                    + " verify with " + kid + ": payload, protected header or signature altered, or another key");
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
     * Reads a JWS in JSON serialization and checks its headers: {@code alg} EdDSA, ES256, ES384 or ES256K, {@code typ} (when present) the
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
        if (!EDDSA.equals(alg) && !ES256K.equals(alg) && NistCurve.ofJwsAlgorithm(alg).isEmpty()) {
            throw DidcommException.unsupported(hw + " alg '" + alg + "'; EdDSA (Ed25519), ES256, ES384 and ES256K are"
                    + " supported");
        }
        Optional<String> crv = DidcommJson.optionalString(header, "crv", hw);
        if (EDDSA.equals(alg) && crv.isPresent() && !"Ed25519".equalsIgnoreCase(crv.get())) {
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
        return new SignedMessage(payload, protectedHeader, alg, kid, signature);
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
        return "SignedMessage[" + alg + " by " + kid + "]";
    }
}
