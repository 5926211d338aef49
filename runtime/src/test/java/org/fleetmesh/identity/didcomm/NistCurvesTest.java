package org.fleetmesh.identity.didcomm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.crypto.KeyAgreement;

import org.fleetmesh.identity.DidKey;
import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.identity.didcomm.DidcommException.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * P-256 and P-384: ECDH and ECDSA checked against the JDK's own (SunEC), anoncrypt and authcrypt round trips and
 * alterations, the epk point checked on the curve, one curve per message, ES256 and ES384, Multikey p256-pub and
 * p384-pub.
 */
class NistCurvesTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String DAVE = "did:example:dave";
    private static final String DAVE_P384 = DAVE + "#key-p384";
    private static final String DAVE_SIGNING = DAVE + "#key-es384";

    private final EcSecret daveAgreement = EcSecret.generate(KeyType.P384, RANDOM);
    private final EcSecret daveSigning = EcSecret.generate(KeyType.P384, RANDOM);
    private final Didcomm didcomm = Didcomm.using(Appendix.keys().knowing(daveDocument()));

    /** Dave: one P-384 keyAgreement key and one P-384 authentication key, as Multikeys (p384-pub). */
    private ObjectNode daveDocument() {
        return Appendix.json("""
                {"id":"%s",
                 "authentication":[{"id":"%s","type":"Multikey","controller":"%s","publicKeyMultibase":"%s"}],
                 "keyAgreement":[{"id":"%s","type":"Multikey","controller":"%s","publicKeyMultibase":"%s"}]}"""
                .formatted(DAVE, DAVE_SIGNING, DAVE, daveSigning.publicKey().encode(), DAVE_P384, DAVE,
                        daveAgreement.publicKey().encode()));
    }

    private static PlaintextMessage toBob(String from) {
        ObjectNode body = DidcommJson.object();
        body.put("content", "P-256 and P-384");
        PlaintextMessage.Builder b = PlaintextMessage.builder("nist-1", "https://didcomm.org/basicmessage/2.0/message")
                .to(Appendix.BOB).createdTime(1700000000).body(body);
        return (from == null ? b : b.from(from)).build();
    }

    private static ObjectNode protectedHeader(String jwe) throws DidcommException {
        return Appendix.json(new String(Base64Url.decode(Appendix.json(jwe).get("protected").asText(), "p"),
                StandardCharsets.UTF_8));
    }

    private static List<String> bobsKeys(KeyType curve) {
        return curve == KeyType.P256 ? List.of(Appendix.BOB_P256_1, Appendix.BOB_P256_2)
                : List.of(Appendix.BOB_P384_1, Appendix.BOB_P384_2);
    }

    private static ECParameterSpec jcaParams(KeyType curve) throws Exception {
        AlgorithmParameters p = AlgorithmParameters.getInstance("EC");
        p.init(new ECGenParameterSpec(curve == KeyType.P256 ? "secp256r1" : "secp384r1"));
        return p.getParameterSpec(ECParameterSpec.class);
    }

    private static PublicKey jcaPublic(Multikey key) throws Exception {
        NistCurve curve = NistCurve.of(key.type()).orElseThrow();
        byte[][] xy = curve.affine(key);
        return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(
                new ECPoint(new BigInteger(1, xy[0]), new BigInteger(1, xy[1])), jcaParams(key.type())));
    }

    private static byte[] fixed(BigInteger v, int length) {
        byte[] b = v.toByteArray();
        byte[] out = new byte[length];
        int n = Math.min(b.length, length);
        System.arraycopy(b, b.length - n, out, length - n, n);
        return out;
    }

    // --- the primitives, against the JDK's own implementation

    @ParameterizedTest
    @EnumSource(value = KeyType.class, names = { "P256", "P384" })
    void ecdhIsTheJdksEcdh(KeyType curve) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec(curve == KeyType.P256 ? "secp256r1" : "secp384r1"));
        KeyPair jdk = g.generateKeyPair();
        int size = curve == KeyType.P256 ? 32 : 48;
        EcSecret ours = EcSecret.of(curve, fixed(((ECPrivateKey) jdk.getPrivate()).getS(), size));
        ECPoint w = ((ECPublicKey) jdk.getPublic()).getW();
        Multikey jdkPublic = NistCurve.of(curve).orElseThrow().fromAffine(fixed(w.getAffineX(), size),
                fixed(w.getAffineY(), size), "jdk key");
        assertEquals(jdkPublic, ours.publicKey());

        EcSecret other = EcSecret.generate(curve, RANDOM);
        KeyAgreement ka = KeyAgreement.getInstance("ECDH");
        ka.init(jdk.getPrivate());
        ka.doPhase(jcaPublic(other.publicKey()), true);
        byte[] z = ka.generateSecret();
        assertEquals(size, z.length);
        assertArrayEquals(z, ours.agree(other.publicKey(), "other"));
        assertArrayEquals(z, other.agree(ours.publicKey(), "jdk key"));
    }

    @ParameterizedTest
    @EnumSource(value = KeyType.class, names = { "P256", "P384" })
    void aSharedSecretWithALeadingZeroByteKeepsItsFixedLength(KeyType curve) throws Exception {
        // one pair in 256 has Z < 2^(8(n-1)): search one, so that a Z written without its leading zero would fail
        EcSecret ours = EcSecret.generate(curve, RANDOM);
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec(curve == KeyType.P256 ? "secp256r1" : "secp384r1"));
        for (int i = 0; i < 20_000; i++) {
            KeyPair jdk = g.generateKeyPair();
            KeyAgreement ka = KeyAgreement.getInstance("ECDH");
            ka.init(jdk.getPrivate());
            ka.doPhase(jcaPublic(ours.publicKey()), true);
            byte[] z = ka.generateSecret();
            if (z[0] == 0) {
                int size = curve == KeyType.P256 ? 32 : 48;
                ECPoint w = ((ECPublicKey) jdk.getPublic()).getW();
                Multikey peer = NistCurve.of(curve).orElseThrow().fromAffine(fixed(w.getAffineX(), size),
                        fixed(w.getAffineY(), size), "jdk key");
                assertArrayEquals(z, ours.agree(peer, "jdk key"));
                return;
            }
        }
        throw new AssertionError("no shared secret with a leading zero byte in 20000 tries");
    }

    @Test
    void anEs256SignatureWithAShortRorSKeepsItsFixedLength() throws Exception {
        // one signature in 128 has R or S < 2^248: search one, so that R or S written short would fail
        EcSecret secret = EcSecret.generate(KeyType.P256, RANDOM);
        Signature verify = Signature.getInstance("SHA256withECDSAinP1363Format");
        verify.initVerify(jcaPublic(secret.publicKey()));
        for (int i = 0; i < 20_000; i++) {
            byte[] message = ("message " + i).getBytes(StandardCharsets.US_ASCII);
            byte[] signature = secret.sign(message);
            if (signature[0] == 0 || signature[32] == 0) {
                verify.update(message);
                assertTrue(verify.verify(signature));
                assertTrue(NistCurve.P256.verify(secret.publicKey(), message, signature));
                return;
            }
        }
        throw new AssertionError("no signature with a short R or S in 20000 tries");
    }

    @ParameterizedTest
    @EnumSource(value = KeyType.class, names = { "P256", "P384" })
    void es256AndEs384AreTheJdksP1363Ecdsa(KeyType curve) throws Exception {
        String jdkName = curve == KeyType.P256 ? "SHA256withECDSAinP1363Format" : "SHA384withECDSAinP1363Format";
        EcSecret secret = EcSecret.generate(curve, RANDOM);
        byte[] message = "header.payload".getBytes(StandardCharsets.US_ASCII);
        byte[] ours = secret.sign(message);
        assertEquals(curve == KeyType.P256 ? 64 : 96, ours.length);
        Signature verify = Signature.getInstance(jdkName);
        verify.initVerify(jcaPublic(secret.publicKey()));
        verify.update(message);
        assertTrue(verify.verify(ours));

        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec(curve == KeyType.P256 ? "secp256r1" : "secp384r1"));
        KeyPair jdk = g.generateKeyPair();
        Signature sign = Signature.getInstance(jdkName);
        sign.initSign(jdk.getPrivate());
        sign.update(message);
        byte[] theirs = sign.sign();
        int size = curve == KeyType.P256 ? 32 : 48;
        ECPoint w = ((ECPublicKey) jdk.getPublic()).getW();
        Multikey key = NistCurve.of(curve).orElseThrow().fromAffine(fixed(w.getAffineX(), size),
                fixed(w.getAffineY(), size), "jdk key");
        assertTrue(NistCurve.of(curve).orElseThrow().verify(key, message, theirs));
        assertFalse(NistCurve.of(curve).orElseThrow().verify(key, "header.other".getBytes(StandardCharsets.US_ASCII),
                theirs));
        assertFalse(NistCurve.of(curve).orElseThrow().verify(key, message, Arrays.copyOf(theirs, theirs.length - 1)));
    }

    @Test
    void multikeysOfTheNistCurvesAreP256PubAndP384Pub() {
        // did:key writes P-256 keys zDn..., P-384 keys z82... (multicodec 0x1200, 0x1201: varints 80 24, 81 24)
        assertTrue(Appendix.ec(Appendix.BOB_P256_1).publicKey().encode().startsWith("zDn"));
        assertTrue(daveAgreement.publicKey().encode().startsWith("z82"));
        Multikey p256 = Appendix.ec(Appendix.BOB_P256_1).publicKey();
        assertEquals(p256, Multikey.decode(p256.encode()));
        assertEquals(33, p256.keyBytes().length);
        assertEquals(49, daveAgreement.publicKey().keyBytes().length);
    }

    @Test
    void aCompressedKeyNotOnTheCurveIsRefused() {
        // the smallest x for which x^3 - 3x + b has no square root: a P-256 "key" that names no point
        byte[] key = new byte[33];
        key[0] = 2;
        for (int x = 0;; x++) {
            key[32] = (byte) x;
            try {
                Multikey.of(KeyType.P256, key);
            } catch (DidResolutionException e) {
                assertTrue(e.getMessage().contains("not a point on P-256"), e.getMessage());
                return;
            }
        }
    }

    // --- anoncrypt

    @ParameterizedTest
    @EnumSource(ContentEncryption.class)
    void anoncryptToBobsP256KeysOpensWithEach(ContentEncryption enc) throws Exception {
        String packed = didcomm.packAnoncrypt(toBob(null), enc, bobsKeys(KeyType.P256));
        for (String kid : bobsKeys(KeyType.P256)) {
            UnpackedMessage u = didcomm.unpack(packed, Appendix.only(kid));
            assertEquals(toBob(null), u.message());
            assertEquals(List.of(Protection.ANONCRYPT), u.envelopes());
            assertEquals(List.of(kid), u.decryptedWith());
        }
    }

    @ParameterizedTest
    @EnumSource(ContentEncryption.class)
    void anoncryptToBobsP384KeysOpensWithEach(ContentEncryption enc) throws Exception {
        String packed = didcomm.packAnoncrypt(toBob(null), enc, bobsKeys(KeyType.P384));
        for (String kid : bobsKeys(KeyType.P384)) {
            assertEquals(toBob(null), didcomm.unpack(packed, Appendix.only(kid)).message());
        }
    }

    @ParameterizedTest
    @EnumSource(value = KeyType.class, names = { "P256", "P384" })
    void theEpkIsAnEcJwkOnTheRecipientsCurve(KeyType curve) throws Exception {
        ObjectNode header = protectedHeader(didcomm.packAnoncrypt(toBob(null), ContentEncryption.A256GCM,
                bobsKeys(curve)));
        ObjectNode epk = (ObjectNode) header.get("epk");
        int size = curve == KeyType.P256 ? 32 : 48;
        assertEquals(List.of("kty", "crv", "x", "y"), List.copyOf(iterable(epk.fieldNames())));
        assertEquals("EC", epk.get("kty").asText());
        assertEquals(curve.curve(), epk.get("crv").asText());
        assertEquals(size, Base64Url.decode(epk.get("x").asText(), "x").length);
        assertEquals(size, Base64Url.decode(epk.get("y").asText(), "y").length);
        assertEquals("ECDH-ES+A256KW", header.get("alg").asText());
        assertEquals(Base64Url.encode(EncryptedMessage.apv(bobsKeys(curve))), header.get("apv").asText());
    }

    private static <T> List<T> iterable(java.util.Iterator<T> it) {
        List<T> out = new java.util.ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    @Test
    void aDidStandsForItsKeysOnTheCurveOfItsFirstSupportedKey() throws Exception {
        // Bob lists X25519 first: a DID recipient gets his X25519 keys; Carol lists P-256 first: her P-256 keys only
        ObjectNode carol = Appendix.json("""
                {"id":"did:example:carol","keyAgreement":[
                 {"id":"did:example:carol#p256","type":"Multikey","controller":"did:example:carol",
                  "publicKeyMultibase":"%s"},
                 {"id":"did:example:carol#x25519","type":"Multikey","controller":"did:example:carol",
                  "publicKeyMultibase":"%s"}]}""".formatted(Appendix.ec(Appendix.BOB_P256_1).publicKey().encode(),
                Appendix.x25519(Appendix.BOB_X25519_1).publicKey().encode()));
        Didcomm withCarol = Didcomm.using(Appendix.keys().knowing(carol));
        PlaintextMessage m = PlaintextMessage.builder("c-1", "t").to("did:example:carol").build();
        String packed = withCarol.packAnoncrypt(m, "did:example:carol");
        assertEquals(List.of("did:example:carol#p256"), EncryptedMessage.parse(packed).recipientKids());
        assertEquals(KeyType.P256, EncryptedMessage.parse(packed).curve());
        assertEquals(m, withCarol.unpack(packed, SecretResolver.of(Map.of("did:example:carol#p256",
                Appendix.ec(Appendix.BOB_P256_1)))).message());
    }

    @Test
    void anoncryptToADidKeyOfP256OpensWithTheOfflineResolver() throws Exception {
        EcSecret erin = EcSecret.generate(KeyType.P256, RANDOM);
        String did = DidKey.of(erin.publicKey());
        assertTrue(did.startsWith("did:key:zDn"), did);
        Didcomm offline = Didcomm.using(DidDocumentKeys.offline());
        PlaintextMessage m = PlaintextMessage.builder("k-1", "t").to(did).build();
        String packed = offline.packAnoncrypt(m, did);
        String kid = EncryptedMessage.parse(packed).recipientKids().get(0);
        assertEquals(m, offline.unpack(packed, SecretResolver.of(Map.of(kid, erin))).message());
    }

    @Test
    void anoncryptAlteredIsRefused() throws Exception {
        String packed = didcomm.packAnoncrypt(toBob(null), ContentEncryption.A256CBC_HS512, bobsKeys(KeyType.P256));
        SecretResolver bob = Appendix.only(Appendix.BOB_P256_2);
        for (String member : List.of("ciphertext", "tag", "iv")) {
            assertEquals(Reason.DECRYPTION_FAILED, assertThrows(DidcommException.class,
                    () -> didcomm.unpack(Tamper.member(packed, member), bob)).reason(), member);
        }
        String key = Tamper.recipient(packed, 1, r -> r.put("encrypted_key", Tamper.flip(r.get("encrypted_key").asText())));
        assertEquals(Reason.DECRYPTION_FAILED, assertThrows(DidcommException.class, () -> didcomm.unpack(key, bob))
                .reason());
        // another valid P-256 point as epk: the KEK differs
        ObjectNode other = Jwk.of(EcSecret.generate(KeyType.P256, RANDOM).publicKey());
        String epk = Tamper.protectedHeader(packed, h -> h.set("epk", other));
        assertEquals(Reason.DECRYPTION_FAILED, assertThrows(DidcommException.class, () -> didcomm.unpack(epk, bob))
                .reason());
    }

    // --- the epk: on the curve, of the right size, of the recipients' curve

    @ParameterizedTest
    @EnumSource(value = KeyType.class, names = { "P256", "P384" })
    void anEpkNotOnTheCurveIsRefusedBeforeAnyKeyAgreement(KeyType curve) throws Exception {
        String packed = didcomm.packAnoncrypt(toBob(null), ContentEncryption.A256GCM, bobsKeys(curve));
        // y with its lowest bit flipped: (x, y') is on the curve only if y' = ±y, and p - y has the other parity
        // only when 2y ± 1 = p, so (x, y') is off the curve: an invalid-curve point
        String offCurve = Tamper.protectedHeader(packed, h -> {
            ObjectNode epk = (ObjectNode) h.get("epk");
            byte[] y = java.util.Base64.getUrlDecoder().decode(epk.get("y").asText());
            y[y.length - 1] ^= 1;
            epk.put("y", Base64Url.encode(y));
        });
        DidcommException e = assertThrows(DidcommException.class,
                () -> didcomm.unpack(offCurve, Appendix.only(bobsKeys(curve).get(0))));
        assertEquals(Reason.MALFORMED, e.reason());
        assertTrue(e.getMessage().contains("not a point on " + curve.curve()), e.getMessage());
        // also with EncryptedMessage alone: the check is in parsing, not left to the key agreement
        assertEquals(Reason.MALFORMED, assertThrows(DidcommException.class, () -> EncryptedMessage.parse(offCurve))
                .reason());

        // the origin, and coordinates of p itself (not below p)
        int size = curve == KeyType.P256 ? 32 : 48;
        String origin = Tamper.protectedHeader(packed, h -> ((ObjectNode) h.get("epk"))
                .put("x", Base64Url.encode(new byte[size])).put("y", Base64Url.encode(new byte[size])));
        assertEquals(Reason.MALFORMED, assertThrows(DidcommException.class, () -> EncryptedMessage.parse(origin))
                .reason());
        byte[] p = fixed(NistCurve.of(curve).orElseThrow().domain().getCurve().getField().getCharacteristic(), size);
        String unreduced = Tamper.protectedHeader(packed, h -> ((ObjectNode) h.get("epk")).put("x", Base64Url.encode(p)));
        assertEquals(Reason.MALFORMED, assertThrows(DidcommException.class, () -> EncryptedMessage.parse(unreduced))
                .reason());
    }

    @Test
    void anEpkOfTheWrongSizeOrCurveIsRefused() throws Exception {
        String packed = didcomm.packAnoncrypt(toBob(null), ContentEncryption.A256GCM, bobsKeys(KeyType.P384));
        // a P-384 epk relabelled P-256: coordinates of 48 bytes
        String relabelled = Tamper.protectedHeader(packed, h -> ((ObjectNode) h.get("epk")).put("crv", "P-256"));
        assertEquals(Reason.MALFORMED, assertThrows(DidcommException.class, () -> EncryptedMessage.parse(relabelled))
                .reason());
        // a valid P-256 epk in a message to P-384 keys: Bob's P-384 secret cannot agree with it
        ObjectNode p256 = Jwk.of(EcSecret.generate(KeyType.P256, RANDOM).publicKey());
        String otherCurve = Tamper.protectedHeader(packed, h -> h.set("epk", p256));
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class,
                () -> didcomm.unpack(otherCurve, Appendix.only(Appendix.BOB_P384_1))).reason());
        // P-521, and a secp256k1 epk, are not key agreement curves here
        ObjectNode p521 = Appendix.json("""
                {"kty":"EC","crv":"P-521","x":"AHBEVPRhAv-WHDEvxVM9S0px9WxxwHL641Pemgk9sDdxvli9VpKCBdra5gg_4kupBDhz__AlaBgKOC_15J2Byptz",
                 "y":"AciGcHJCD_yMikQvlmqpkBbVqqbg93mMVcgvXBYAQPP-u9AF7adybwZrNfHWCKAQwGF9ugd0Zhg7mLMEszIONFRk"}""");
        String withP521 = Tamper.protectedHeader(packed, h -> h.set("epk", p521));
        assertEquals(Reason.UNSUPPORTED, assertThrows(DidcommException.class, () -> EncryptedMessage.parse(withP521))
                .reason());
        ObjectNode secp256k1 = Appendix.json("""
                {"kty":"EC","crv":"secp256k1","x":"aToW5EaTq5mlAf8C5ECYDSkqsJycrW-e1SQ6_GJcAOk",
                 "y":"JAGX94caA21WKreXwYUaOCYTBMrqaX4KWIlsQZTHWCk"}""");
        String withK1 = Tamper.protectedHeader(packed, h -> h.set("epk", secp256k1));
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class, () -> EncryptedMessage.parse(withK1))
                .reason());
    }

    // --- one curve per message

    @Test
    void recipientsOnSeveralCurvesAreRefused() throws Exception {
        for (List<String> mixed : List.of(List.of(Appendix.BOB_X25519_1, Appendix.BOB_P256_1),
                List.of(Appendix.BOB_P256_1, Appendix.BOB_P384_1), List.of(Appendix.BOB_P384_2, Appendix.BOB_X25519_3))) {
            assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class,
                    () -> didcomm.packAnoncrypt(toBob(null), ContentEncryption.A256GCM, mixed)).reason(), mixed.toString());
        }
        DidDocumentKeys keys = Appendix.keys();
        List<RecipientKey> mixed = List.of(new RecipientKey(Appendix.BOB_P256_1, keys.keyAgreementKey(Appendix.BOB_P256_1)),
                new RecipientKey(Appendix.BOB_P384_1, keys.keyAgreementKey(Appendix.BOB_P384_1)));
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class, () -> EncryptedMessage.anoncrypt(
                new byte[] { '{', '}' }, mixed, ContentEncryption.A256GCM, RANDOM)).reason());
    }

    @Test
    void aSenderOnAnotherCurveThanTheRecipientsIsRefused() {
        EcSecret alice = Appendix.ec(Appendix.ALICE_P256);
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class, () -> didcomm.packAuthcrypt(
                toBob(Appendix.ALICE), Appendix.ALICE_P256, alice, Appendix.BOB_X25519_1)).reason());
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class, () -> didcomm.packAuthcrypt(
                toBob(Appendix.ALICE), Appendix.ALICE_P256, alice, Appendix.BOB_P384_1)).reason());
    }

    // --- authcrypt

    @Test
    void authcryptFromAlicesP256KeyGoesToBobsP256Keys() throws Exception {
        EcSecret alice = Appendix.ec(Appendix.ALICE_P256);
        String packed = didcomm.packAuthcrypt(toBob(Appendix.ALICE), Appendix.ALICE_P256, alice, Appendix.BOB);
        EncryptedMessage m = EncryptedMessage.parse(packed);
        assertEquals(bobsKeys(KeyType.P256), m.recipientKids());
        assertEquals(KeyType.P256, m.curve());
        ObjectNode header = protectedHeader(packed);
        assertEquals("ECDH-1PU+A256KW", header.get("alg").asText());
        assertEquals(Appendix.ALICE_P256, header.get("skid").asText());
        assertEquals("P-256", header.get("epk").get("crv").asText());
        for (String kid : bobsKeys(KeyType.P256)) {
            UnpackedMessage u = didcomm.unpack(packed, Appendix.only(kid));
            assertEquals(toBob(Appendix.ALICE), u.message());
            assertEquals(List.of(Protection.AUTHCRYPT), u.envelopes());
            assertEquals(Optional.of(Appendix.ALICE_P256), u.senderKid());
            assertTrue(u.senderAuthenticated());
        }
    }

    @Test
    void authcryptFromAP384KeyGoesToBobsP384Keys() throws Exception {
        String packed = didcomm.packAuthcrypt(toBob(DAVE), DAVE_P384, daveAgreement, Appendix.BOB);
        assertEquals(bobsKeys(KeyType.P384), EncryptedMessage.parse(packed).recipientKids());
        for (String kid : bobsKeys(KeyType.P384)) {
            UnpackedMessage u = didcomm.unpack(packed, Appendix.only(kid));
            assertEquals(toBob(DAVE), u.message());
            assertEquals(Optional.of(DAVE_P384), u.senderKid());
        }
    }

    @Test
    void authcryptAlteredOrFromAnotherKeyIsRefused() throws Exception {
        EcSecret alice = Appendix.ec(Appendix.ALICE_P256);
        String packed = didcomm.packAuthcrypt(toBob(Appendix.ALICE), Appendix.ALICE_P256, alice, Appendix.BOB);
        SecretResolver bob = Appendix.only(Appendix.BOB_P256_1);
        for (String member : List.of("ciphertext", "tag", "iv")) {
            assertEquals(Reason.DECRYPTION_FAILED, assertThrows(DidcommException.class,
                    () -> didcomm.unpack(Tamper.member(packed, member), bob)).reason(), member);
        }
        // Mallory's P-256 key under Alice's skid: Zs differs, the key does not unwrap
        EcSecret mallory = EcSecret.generate(KeyType.P256, RANDOM);
        String forged = EncryptedMessage.authcrypt(toBob(Appendix.ALICE).toJson().getBytes(StandardCharsets.UTF_8),
                Appendix.ALICE_P256, mallory, List.of(new RecipientKey(Appendix.BOB_P256_1,
                        Appendix.keys().keyAgreementKey(Appendix.BOB_P256_1))), RANDOM).toJson();
        assertEquals(Reason.DECRYPTION_FAILED, assertThrows(DidcommException.class, () -> didcomm.unpack(forged, bob))
                .reason());
        // a P-256 authcrypt whose skid names an X25519 key
        String x25519Skid = EncryptedMessage.authcrypt(toBob(Appendix.ALICE).toJson().getBytes(StandardCharsets.UTF_8),
                Appendix.ALICE_X25519, alice, List.of(new RecipientKey(Appendix.BOB_P256_1,
                        Appendix.keys().keyAgreementKey(Appendix.BOB_P256_1))), RANDOM).toJson();
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class, () -> didcomm.unpack(x25519Skid, bob))
                .reason());
    }

    // --- ES256, ES384

    @Test
    void es256RoundTripWithAlicesKey2() throws Exception {
        PlaintextMessage m = toBob(Appendix.ALICE);
        String packed = didcomm.packSigned(m, Appendix.ALICE_P256_SIGNING, Appendix.ec(Appendix.ALICE_P256_SIGNING));
        ObjectNode signature = (ObjectNode) Appendix.json(packed).get("signatures").get(0);
        ObjectNode header = Appendix.json(new String(Base64Url.decode(signature.get("protected").asText(), "p"),
                StandardCharsets.UTF_8));
        assertEquals("ES256", header.get("alg").asText());
        assertEquals(64, Base64Url.decode(signature.get("signature").asText(), "s").length);
        UnpackedMessage u = didcomm.unpack(packed, SecretResolver.of(Map.of()));
        assertEquals(m, u.message());
        assertEquals(Optional.of(Appendix.ALICE_P256_SIGNING), u.signerKid());

        String altered = Tamper.json(packed, o -> {
            ObjectNode s = (ObjectNode) o.get("signatures").get(0);
            s.put("signature", Tamper.flip(s.get("signature").asText()));
        });
        assertEquals(Reason.INVALID_SIGNATURE, assertThrows(DidcommException.class,
                () -> didcomm.unpack(altered, SecretResolver.of(Map.of()))).reason());
        String otherPayload = Tamper.json(packed, o -> o.put("payload", Base64Url.encode(
                toBob(Appendix.ALICE).toBuilder().to("did:example:carol").build().toJson().getBytes(StandardCharsets.UTF_8))));
        assertEquals(Reason.INVALID_SIGNATURE, assertThrows(DidcommException.class,
                () -> didcomm.unpack(otherPayload, SecretResolver.of(Map.of()))).reason());
        // R = 0, S = 0 never verifies
        String zero = Tamper.json(packed, o -> ((ObjectNode) o.get("signatures").get(0)).put("signature",
                Base64Url.encode(new byte[64])));
        assertEquals(Reason.INVALID_SIGNATURE, assertThrows(DidcommException.class,
                () -> didcomm.unpack(zero, SecretResolver.of(Map.of()))).reason());
    }

    @Test
    void es384RoundTripAndItsKeyChecks() throws Exception {
        PlaintextMessage m = toBob(DAVE);
        String packed = didcomm.packSigned(m, DAVE_SIGNING, daveSigning);
        assertEquals("ES384", SignedMessage.parse(packed).algorithm());
        assertEquals(m, didcomm.unpack(packed, SecretResolver.of(Map.of())).message());
        // the ES384 signature of Dave under Alice's P-256 kid: ES384 needs P-384
        String underP256 = SignedMessage.sign(m.toBuilder().from(Appendix.ALICE).build().toJson()
                .getBytes(StandardCharsets.UTF_8), Appendix.ALICE_P256_SIGNING, daveSigning).toJson();
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class,
                () -> didcomm.unpack(underP256, SecretResolver.of(Map.of()))).reason());
        // packing checks the secret's curve against the published key: Dave's key-es384 is P-384
        EcSecret p256 = Appendix.ec(Appendix.ALICE_P256_SIGNING);
        assertEquals(Reason.WRONG_KEY_TYPE, assertThrows(DidcommException.class,
                () -> didcomm.packSigned(m, DAVE_SIGNING, p256)).reason());
    }

    @Test
    void ecSecretsCheckTheirScalarAndNeverPrintIt() throws Exception {
        byte[] n = fixed(NistCurve.P256.order(), 32);
        assertThrows(IllegalArgumentException.class, () -> EcSecret.of(KeyType.P256, n));
        assertThrows(IllegalArgumentException.class, () -> EcSecret.of(KeyType.P256, new byte[32]));
        assertThrows(IllegalArgumentException.class, () -> EcSecret.of(KeyType.P384, new byte[32]));
        assertThrows(IllegalArgumentException.class, () -> EcSecret.of(KeyType.X25519, new byte[32]));
        EcSecret bob = Appendix.ec(Appendix.BOB_P256_1);
        assertTrue(bob.toString().startsWith("EcSecret[P-256, public zDn"), bob.toString());
        assertFalse(bob.toString().contains("PgwHnlXxt8pwR6OCTUwwWx-P51BiLkFZyqHzquKddXQ"));
        // a private JWK whose x, y are not its d's point
        String mismatched = """
                {"kty":"EC","crv":"P-256","d":"PgwHnlXxt8pwR6OCTUwwWx-P51BiLkFZyqHzquKddXQ",
                 "x":"n0yBsGrwGZup9ywKhzD4KoORGicilzIUyfcXb1CSwe0","y":"ov0buZJ8GHzV128jmCw1CaFbajZoFFmiJDbMrceCXIw"}""";
        assertEquals(Reason.MALFORMED, assertThrows(DidcommException.class, () -> Secret.fromJwk(mismatched)).reason());
        assertEquals(Reason.UNSUPPORTED, assertThrows(DidcommException.class, () -> Secret.fromJwk("""
                {"kty":"EC","crv":"secp256k1","d":"N3Hm1LXA210YVGGsXw_GklMwcLu_bMgnzDese6YQIyA"}""")).reason());
    }
}
