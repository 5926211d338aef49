package org.fleetmesh.nostr.nip44;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

import org.bouncycastle.crypto.engines.ChaCha7539Engine;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** NIP-44 v2 behaviour beyond the vector file: the extended length prefix, and every refusal. */
class Nip44Test {
    private static final HexFormat HEX = HexFormat.of();
    /** The conversation key and nonce of 44.md's example and of its extended-prefix vectors. */
    private static final ConversationKey KEY = ConversationKey
            .ofHex("c41c775356fd92eadc63ff5a0dc1da211b268cbea22316767095b2871ea1412d");
    private static final byte[] NONCE = HEX.parseHex("0000000000000000000000000000000000000000000000000000000000000001");

    private static String sha256(String s) {
        return HEX.formatHex(Events.sha256(s.getBytes(StandardCharsets.UTF_8)));
    }

    /** The padded plaintext inside a payload, opened without {@link Nip44#decrypt} so the prefix can be seen. */
    private static byte[] paddedPlaintext(String payload, ConversationKey key) {
        byte[] data = Base64.getDecoder().decode(payload);
        MessageKeys keys = MessageKeys.of(key, Arrays.copyOfRange(data, 1, 33));
        byte[] ciphertext = Arrays.copyOfRange(data, 33, data.length - 32);
        ChaCha7539Engine chacha = new ChaCha7539Engine();
        chacha.init(false, new ParametersWithIV(new KeyParameter(keys.chachaKey()), keys.chachaNonce()));
        byte[] padded = new byte[ciphertext.length];
        chacha.processBytes(ciphertext, 0, ciphertext.length, padded, 0);
        return padded;
    }

    /** A payload with one raw byte changed and re-encoded, so only the intended rule can fail. */
    private static String withRawByte(String payload, int index, int value) {
        byte[] data = Base64.getDecoder().decode(payload);
        data[index] = (byte) value;
        return Base64.getEncoder().encodeToString(data);
    }

    /** 44.md's "Extended length prefix test vectors": 'a' repeated, checksums of plaintext and payload. */
    @ParameterizedTest(name = "{0} bytes, {1}-byte prefix")
    @CsvSource({
            "65535, 2, 65536, 6e1bebca6a8229364a162a72ef064826c4cd7457bf54f190ef782bd9deff3e42, 6d8c2810d1e870fbaa1f0a0937126cca837a15f9260e27060c331d70a3c0bc84",
            "65536, 6, 65536, bf718b6f653bebc184e1479f1935b8da974d701b893afcf49e701f3e2f9f9c5a, b7b4edb36ba92e267d322d56d9aebc22e7fa96ff52e3c12adc07f07a43cbc616",
            "65537, 6, 81920, 008ffc88d3c96a9f307524eb361e47c5222a887fc45fa0c1fb8d429c5c23b430, eeb7c7c5373894ea2c1547cfd3ccb15d5a0b2d619da852e5c79df792dcc9e435" })
    void extendedLengthPrefixVectorsFrom44md(int length, int prefix, long paddedLen, String plaintextSha256,
            String payloadSha256) throws Nip44Exception {
        String plaintext = "a".repeat(length);
        assertEquals(plaintextSha256, sha256(plaintext));
        assertEquals(paddedLen, Nip44.calcPaddedLen(length));
        String payload = Nip44.encrypt(plaintext, KEY, NONCE);
        assertEquals(payloadSha256, sha256(payload));
        assertEquals(prefix + paddedLen, paddedPlaintext(payload, KEY).length);
        assertEquals(plaintext, Nip44.decrypt(payload, KEY));
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = { 1, 32, 33, 65535, 65536, 65537, 100_000, 1_000_000 })
    void plaintextsOfAnyLengthRoundTripWithARandomNonce(int length) throws Nip44Exception {
        byte[] secretA = Schnorr.newSecretKey();
        byte[] secretB = Schnorr.newSecretKey();
        ConversationKey ab = ConversationKey.of(secretA, new PubKey(Schnorr.publicKey(secretB)));
        ConversationKey ba = ConversationKey.of(secretB, new PubKey(Schnorr.publicKey(secretA)));
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append((char) ('a' + i % 26));
        }
        String plaintext = sb.toString();
        String payload = Nip44.encrypt(plaintext, ab);
        assertEquals(plaintext, Nip44.decrypt(payload, ba));
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = { 1, 65535 })
    void plaintextsBelow65536HaveATwoByteBigEndianPrefix(int length) {
        byte[] padded = paddedPlaintext(Nip44.encrypt("z".repeat(length), KEY), KEY);
        assertEquals(length, ((padded[0] & 0xff) << 8) | (padded[1] & 0xff));
        assertEquals(2 + Nip44.calcPaddedLen(length), padded.length);
        assertEquals('z', padded[2]);
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = { 65536, 100_000, 1_000_000 })
    void plaintextsOf65536AndMoreHaveASixBytePrefixOfTwoZerosAndAU32(int length) {
        byte[] padded = paddedPlaintext(Nip44.encrypt("z".repeat(length), KEY), KEY);
        byte[] u32 = { (byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length };
        assertArrayEquals(new byte[] { 0, 0, u32[0], u32[1], u32[2], u32[3] }, Arrays.copyOf(padded, 6));
        assertEquals(6 + Nip44.calcPaddedLen(length), padded.length);
        assertEquals('z', padded[6]);
    }

    @Test
    void padWritesTheExtendedPrefixExactlyFrom65536() {
        assertArrayEquals(HEX.parseHex("ffff"), Arrays.copyOf(Nip44.pad(new byte[65535]), 2));
        assertArrayEquals(HEX.parseHex("000000010000"), Arrays.copyOf(Nip44.pad(new byte[65536]), 6));
        assertEquals(65538, Nip44.pad(new byte[65535]).length);
        assertEquals(65542, Nip44.pad(new byte[65536]).length);
    }

    @Test
    void calcPaddedLenUsesSixtyFourBitArithmeticUpToTheMaximum() {
        assertEquals(81920, Nip44.calcPaddedLen(65537));
        assertEquals(1L << 32, Nip44.calcPaddedLen(Nip44.MAX_PLAINTEXT_SIZE));
        assertThrows(IllegalArgumentException.class, () -> Nip44.calcPaddedLen(0));
        assertThrows(IllegalArgumentException.class, () -> Nip44.calcPaddedLen(Nip44.MAX_PLAINTEXT_SIZE + 1));
    }

    @Test
    void unpadRefusesAnExtendedPrefixHoldingAShortLength() {
        byte[] padded = new byte[6 + 65536];
        padded[4] = (byte) 0xff;
        padded[5] = (byte) 0xff; // 0x0000 then u32 65535: a length that belongs in the 2-byte form
        Nip44Exception e = assertThrows(Nip44Exception.class, () -> Nip44.unpad(padded, 0, padded.length));
        assertTrue(e.getMessage().startsWith("invalid padding"), e.getMessage());
    }

    @Test
    void unpadRefusesAPaddedSizeThatDoesNotMatchTheLength() {
        byte[] padded = Nip44.pad(new byte[65536]);
        byte[] longer = Arrays.copyOf(padded, padded.length + 32);
        Nip44Exception e = assertThrows(Nip44Exception.class, () -> Nip44.unpad(longer, 0, longer.length));
        assertTrue(e.getMessage().startsWith("invalid padding"), e.getMessage());
    }

    @Test
    void emptyPlaintextIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Nip44.encrypt("", KEY));
    }

    @Test
    void plaintextWithAnUnpairedSurrogateIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Nip44.encrypt("a\uD800b", KEY));
    }

    @Test
    void nonceMustBe32Bytes() {
        assertThrows(IllegalArgumentException.class, () -> Nip44.encrypt("a", KEY, new byte[31]));
    }

    @Test
    void twoEncryptionsOfOneMessageUseDifferentNonces() {
        assertNotEquals(Nip44.encrypt("same", KEY), Nip44.encrypt("same", KEY));
    }

    @Test
    void conversationKeyIsTheSameFromBothSides() throws Nip44Exception {
        byte[] a = Schnorr.newSecretKey();
        byte[] b = Schnorr.newSecretKey();
        assertEquals(ConversationKey.of(a, new PubKey(Schnorr.publicKey(b))),
                ConversationKey.of(b, new PubKey(Schnorr.publicKey(a))));
    }

    @Test
    void libsecp256k1AndBouncyCastleAgreeOnTheSharedX() throws Nip44Exception {
        byte[] a = Schnorr.newSecretKey();
        byte[] peer = Schnorr.publicKey(Schnorr.newSecretKey());
        assertArrayEquals(ConversationKey.sharedX(a, peer, false), ConversationKey.sharedX(a, peer, Schnorr.isNative()));
    }

    @Test
    void conversationKeyNeverPrintsItself() {
        assertEquals("ConversationKey[redacted]", KEY.toString());
    }

    @Test
    void futureEncodingFlagIsAnUnknownVersion() {
        Nip44Exception e = assertThrows(Nip44Exception.class, () -> Nip44.decrypt("#" + "A".repeat(200), KEY));
        assertTrue(e.getMessage().startsWith("unknown version"), e.getMessage());
    }

    @Test
    void versionThreeIsAnUnknownVersion() {
        String payload = withRawByte(Nip44.encrypt("hello", KEY), 0, 3);
        Nip44Exception e = assertThrows(Nip44Exception.class, () -> Nip44.decrypt(payload, KEY));
        assertEquals("unknown version 3", e.getMessage());
    }

    @Test
    void aChangedCiphertextByteFailsTheMac() {
        String payload = Nip44.encrypt("hello", KEY);
        String tampered = withRawByte(payload, 40, Base64.getDecoder().decode(payload)[40] ^ 1);
        Nip44Exception e = assertThrows(Nip44Exception.class, () -> Nip44.decrypt(tampered, KEY));
        assertEquals("invalid MAC", e.getMessage());
    }

    @Test
    void aChangedNonceFailsTheMac() {
        String payload = Nip44.encrypt("hello", KEY);
        String tampered = withRawByte(payload, 1, Base64.getDecoder().decode(payload)[1] ^ 1);
        Nip44Exception e = assertThrows(Nip44Exception.class, () -> Nip44.decrypt(tampered, KEY));
        assertEquals("invalid MAC", e.getMessage());
    }

    @Test
    void anotherConversationKeyFailsTheMac() {
        String payload = Nip44.encrypt("hello", KEY);
        Nip44Exception e = assertThrows(Nip44Exception.class,
                () -> Nip44.decrypt(payload, ConversationKey.ofBytes(new byte[32])));
        assertEquals("invalid MAC", e.getMessage());
    }

    @Test
    void aTruncatedPayloadIsAnInvalidSize() {
        Nip44Exception e = assertThrows(Nip44Exception.class, () -> Nip44.decrypt("AgAA", KEY));
        assertTrue(e.getMessage().startsWith("invalid payload size"), e.getMessage());
    }

    @Test
    void unpaddedBase64IsInvalid() {
        String payload = Nip44.encrypt("a".repeat(40), KEY); // 131 raw bytes: ends in one '='
        assertTrue(payload.endsWith("=") && !payload.endsWith("=="), payload);
        Nip44Exception e = assertThrows(Nip44Exception.class,
                () -> Nip44.decrypt(payload.substring(0, payload.length() - 1), KEY));
        assertTrue(e.getMessage().startsWith("invalid base64"), e.getMessage());
    }

    @Test
    void nonZeroBitsUnderTheBase64PaddingAreInvalid() {
        String payload = Nip44.encrypt("a".repeat(40), KEY);
        char last = payload.charAt(payload.length() - 2);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        char flipped = alphabet.charAt(alphabet.indexOf(last) ^ 1); // same bytes, one stray bit
        String malleated = payload.substring(0, payload.length() - 2) + flipped + "=";
        Nip44Exception e = assertThrows(Nip44Exception.class, () -> Nip44.decrypt(malleated, KEY));
        assertTrue(e.getMessage().startsWith("invalid base64"), e.getMessage());
    }

    @Test
    void payloadsLongerThanTheCallersBoundAreRefusedBeforeDecoding() {
        String payload = Nip44.encrypt("a".repeat(1000), KEY);
        Nip44Exception e = assertThrows(Nip44Exception.class, () -> Nip44.decrypt(payload, KEY, 1000));
        assertTrue(e.getMessage().startsWith("invalid payload size"), e.getMessage());
    }

    @Test
    void plaintextThatIsNotUtf8IsRefused() {
        String payload = Base64.getEncoder()
                .encodeToString(Nip44.encryptToBytes(new byte[] { (byte) 0xc3, 0x28 }, KEY, NONCE));
        Nip44Exception e = assertThrows(Nip44Exception.class, () -> Nip44.decrypt(payload, KEY));
        assertEquals("invalid UTF-8 in the plaintext", e.getMessage());
    }

    @Test
    void aGenuineReplacementCharacterSurvives() throws Nip44Exception {
        assertEquals("a\uFFFDb", Nip44.decrypt(Nip44.encrypt("a\uFFFDb", KEY), KEY));
    }

    @Test
    void example44mdPayloadDecrypts() throws Nip44Exception {
        String payload = "AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABee0G5VSK0/9YypIObAtDKfYEAjD35uVkHyB0F4DwrcNaCXlCWZKaArsGrY6M9wnuTMxWfp1RTN9Xga8no+kF5Vsb";
        byte[] sec1 = HEX.parseHex("0000000000000000000000000000000000000000000000000000000000000001");
        byte[] sec2 = HEX.parseHex("0000000000000000000000000000000000000000000000000000000000000002");
        assertEquals(KEY, ConversationKey.of(sec1, new PubKey(Schnorr.publicKey(sec2))));
        assertEquals(payload, Nip44.encrypt("a", KEY, NONCE));
        assertEquals("a", Nip44.decrypt(payload, KEY));
    }
}
