package org.fleetmesh.nostr.nip44;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.engines.ChaCha7539Engine;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * NIP-44 version 2 encrypted payloads: padding, ChaCha20, HMAC-SHA256 over {@code nonce || ciphertext},
 * base64 of {@code version || nonce || ciphertext || mac}. Plaintexts of 65,536 bytes and more carry
 * the extended 6-byte length prefix ({@code 0x0000 || u32}).
 */
public final class Nip44 {
    public static final int VERSION = 2;
    public static final long MIN_PLAINTEXT_SIZE = 1;
    public static final long MAX_PLAINTEXT_SIZE = 0xFFFF_FFFFL;
    /** Plaintexts this long or longer use the 6-byte prefix. */
    public static final int EXTENDED_PREFIX_THRESHOLD = 65536;

    /** Shortest base64 payload: 99 raw bytes (version, nonce, 34-byte minimum ciphertext, mac). */
    static final int MIN_PAYLOAD_CHARS = 132;
    static final int MIN_PAYLOAD_BYTES = 99;
    private static final int NONCE_SIZE = 32;
    private static final int MAC_SIZE = 32;
    /** The largest array most JVMs will allocate. */
    private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Nip44() {
    }

    /** Encrypts with a fresh random nonce from a CSPRNG. */
    public static String encrypt(String plaintext, ConversationKey key) {
        byte[] nonce = new byte[NONCE_SIZE];
        RANDOM.nextBytes(nonce);
        return encrypt(plaintext, key, nonce);
    }

    /**
     * Encrypts with the given 32-byte nonce. Only test vectors and callers that draw the nonce from
     * their own CSPRNG should use this: a nonce used twice with one key exposes both messages.
     *
     * @throws IllegalArgumentException if the plaintext is empty, holds an unpaired surrogate (it has
     *         no UTF-8 form), or is too large for a Java array once padded and encoded
     */
    public static String encrypt(String plaintext, ConversationKey key, byte[] nonce) {
        return Base64.getEncoder().encodeToString(encryptToBytes(utf8Encode(plaintext), key, nonce));
    }

    /** {@code concat(version, nonce, ciphertext, mac)} before base64. */
    static byte[] encryptToBytes(byte[] unpadded, ConversationKey key, byte[] nonce) {
        MessageKeys keys = MessageKeys.of(key, nonce);
        int n = unpadded.length;
        if (n < MIN_PLAINTEXT_SIZE) {
            throw new IllegalArgumentException("invalid plaintext length: a plaintext is at least 1 byte");
        }
        long paddedWithPrefix = prefixSize(n) + calcPaddedLen(n);
        long rawSize = 1 + NONCE_SIZE + paddedWithPrefix + MAC_SIZE;
        if (4 * ((rawSize + 2) / 3) > MAX_ARRAY) {
            throw new IllegalArgumentException("invalid plaintext length: " + n
                    + " bytes do not fit in a Java array once padded and base64-encoded");
        }
        int ciphertextSize = (int) paddedWithPrefix;
        byte[] raw = new byte[(int) rawSize];
        raw[0] = VERSION;
        System.arraycopy(nonce, 0, raw, 1, NONCE_SIZE);
        int ciphertextAt = 1 + NONCE_SIZE;
        writePadded(unpadded, raw, ciphertextAt);
        chacha20(keys, raw, ciphertextAt, ciphertextSize);
        System.arraycopy(hmacAad(keys, raw, ciphertextAt + ciphertextSize), 0, raw, ciphertextAt + ciphertextSize,
                MAC_SIZE);
        return raw;
    }

    /** Decrypts a payload of any size the platform can hold. */
    public static String decrypt(String payload, ConversationKey key) throws Nip44Exception {
        return decrypt(payload, key, Integer.MAX_VALUE);
    }

    /**
     * Decrypts, refusing payloads longer than {@code maxPayloadChars} before any decoding, as NIP-44
     * asks of implementations that bound their memory.
     *
     * @throws Nip44Exception naming the failed rule: unknown version, invalid payload size, invalid
     *         base64, invalid data size, invalid MAC, invalid padding or invalid UTF-8
     */
    public static String decrypt(String payload, ConversationKey key, int maxPayloadChars) throws Nip44Exception {
        byte[] data = decodePayload(payload, maxPayloadChars);
        int dataSize = data.length;
        int ciphertextAt = 1 + NONCE_SIZE;
        int ciphertextSize = dataSize - ciphertextAt - MAC_SIZE;
        byte[] nonce = new byte[NONCE_SIZE];
        System.arraycopy(data, 1, nonce, 0, NONCE_SIZE);
        MessageKeys keys = MessageKeys.of(key, nonce);

        byte[] mac = new byte[MAC_SIZE];
        System.arraycopy(data, dataSize - MAC_SIZE, mac, 0, MAC_SIZE);
        if (!MessageDigest.isEqual(hmacAad(keys, data, dataSize - MAC_SIZE), mac)) { // constant time
            throw new Nip44Exception("invalid MAC");
        }
        chacha20(keys, data, ciphertextAt, ciphertextSize);
        Unpadded plaintext = unpad(data, ciphertextAt, ciphertextSize);
        return utf8Decode(data, plaintext.at(), plaintext.length());
    }

    /**
     * The length the plaintext is padded to, not counting the length prefix: at least 32, then
     * chunks of one eighth of the next power of two. Can return 2^32, so it is a long.
     */
    public static long calcPaddedLen(long unpaddedLen) {
        if (unpaddedLen < MIN_PLAINTEXT_SIZE || unpaddedLen > MAX_PLAINTEXT_SIZE) {
            throw new IllegalArgumentException("invalid plaintext length: " + unpaddedLen);
        }
        if (unpaddedLen <= 32) {
            return 32;
        }
        long nextPower = 1L << (64 - Long.numberOfLeadingZeros(unpaddedLen - 1)); // 1 << (floor(log2(n-1)) + 1)
        long chunk = nextPower <= 256 ? 32 : nextPower / 8;
        return chunk * ((unpaddedLen - 1) / chunk + 1);
    }

    /** 2 bytes ({@code u16}) below 65536, else 6 ({@code 0x0000 || u32}). */
    static int prefixSize(long unpaddedLen) {
        return unpaddedLen >= EXTENDED_PREFIX_THRESHOLD ? 6 : 2;
    }

    /** {@code [prefix][plaintext][zeros]} as a new array. */
    static byte[] pad(byte[] unpadded) {
        long size = prefixSize(unpadded.length) + calcPaddedLen(unpadded.length);
        byte[] out = new byte[Math.toIntExact(size)];
        writePadded(unpadded, out, 0);
        return out;
    }

    /** Writes prefix and plaintext at {@code at}; the zero suffix is the array's own zeros. */
    private static void writePadded(byte[] unpadded, byte[] out, int at) {
        int n = unpadded.length;
        if (n >= EXTENDED_PREFIX_THRESHOLD) {
            // out[at], out[at + 1] stay 0: a zero u16 announces the u32 length
            out[at + 2] = (byte) (n >>> 24);
            out[at + 3] = (byte) (n >>> 16);
            out[at + 4] = (byte) (n >>> 8);
            out[at + 5] = (byte) n;
            System.arraycopy(unpadded, 0, out, at + 6, n);
        } else {
            out[at] = (byte) (n >>> 8);
            out[at + 1] = (byte) n;
            System.arraycopy(unpadded, 0, out, at + 2, n);
        }
    }

    /** Where the plaintext sits inside a padded buffer. */
    record Unpadded(int at, int length) {
    }

    /** Checks the length prefix and padding of {@code padded[at, at + size)} and locates the plaintext. */
    static Unpadded unpad(byte[] padded, int at, int size) throws Nip44Exception {
        if (size < 2) {
            throw new Nip44Exception("invalid padding: no length prefix");
        }
        long unpaddedLen = ((padded[at] & 0xFFL) << 8) | (padded[at + 1] & 0xFFL);
        int prefix = 2;
        if (unpaddedLen == 0) {
            if (size < 6) {
                throw new Nip44Exception("invalid padding: truncated extended length prefix");
            }
            unpaddedLen = ((padded[at + 2] & 0xFFL) << 24) | ((padded[at + 3] & 0xFFL) << 16)
                    | ((padded[at + 4] & 0xFFL) << 8) | (padded[at + 5] & 0xFFL);
            if (unpaddedLen < EXTENDED_PREFIX_THRESHOLD) {
                // a short length in the long form would give one plaintext two encodings
                throw new Nip44Exception("invalid padding: extended prefix holds " + unpaddedLen
                        + ", below " + EXTENDED_PREFIX_THRESHOLD);
            }
            prefix = 6;
        }
        if (size != prefix + calcPaddedLen(unpaddedLen)) {
            throw new Nip44Exception("invalid padding: " + size + " padded bytes for a plaintext of " + unpaddedLen);
        }
        return new Unpadded(at + prefix, (int) unpaddedLen); // fits: unpaddedLen <= calcPaddedLen < size
    }

    /** {@code decode_payload}: size and version checks, then base64, returning the raw bytes. */
    private static byte[] decodePayload(String payload, int maxPayloadChars) throws Nip44Exception {
        int chars = payload.length();
        if (chars > 0 && payload.charAt(0) == '#') {
            throw new Nip44Exception("unknown version: '#' marks a non-base64 encoding that is not supported");
        }
        if (chars > maxPayloadChars) {
            throw new Nip44Exception("invalid payload size: " + chars + " characters, at most " + maxPayloadChars
                    + " accepted");
        }
        if (chars < MIN_PAYLOAD_CHARS) {
            throw new Nip44Exception("invalid payload size: " + chars + " characters, at least " + MIN_PAYLOAD_CHARS);
        }
        if (chars % 4 != 0) {
            throw new Nip44Exception("invalid base64: " + chars + " characters is not a multiple of 4");
        }
        byte[] data;
        try {
            data = Base64.getDecoder().decode(payload);
        } catch (IllegalArgumentException e) {
            throw new Nip44Exception("invalid base64: " + e.getMessage());
        }
        requireZeroPaddingBits(payload);
        if (data.length < MIN_PAYLOAD_BYTES) {
            throw new Nip44Exception("invalid data size: " + data.length + " bytes, at least " + MIN_PAYLOAD_BYTES);
        }
        if (data[0] != VERSION) {
            throw new Nip44Exception("unknown version " + (data[0] & 0xFF));
        }
        return data;
    }

    /** RFC 4648 canonical form: the bits under the '=' padding are zero, so one payload has one spelling. */
    private static void requireZeroPaddingBits(String payload) throws Nip44Exception {
        int n = payload.length();
        int mask;
        char last;
        if (payload.charAt(n - 2) == '=') {
            last = payload.charAt(n - 3);
            mask = 0x0F;
        } else if (payload.charAt(n - 1) == '=') {
            last = payload.charAt(n - 2);
            mask = 0x03;
        } else {
            return;
        }
        if ((base64Value(last) & mask) != 0) {
            throw new Nip44Exception("invalid base64: non-zero bits under the padding");
        }
    }

    private static int base64Value(char c) {
        if (c >= 'A' && c <= 'Z') {
            return c - 'A';
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 26;
        }
        if (c >= '0' && c <= '9') {
            return c - '0' + 52;
        }
        return c == '+' ? 62 : 63;
    }

    /** ChaCha20 (RFC 8439, counter 0) in place. */
    private static void chacha20(MessageKeys keys, byte[] buf, int at, int size) {
        ChaCha7539Engine chacha = new ChaCha7539Engine();
        chacha.init(true, new ParametersWithIV(new KeyParameter(keys.chachaKey()), keys.chachaNonce()));
        chacha.processBytes(buf, at, size, buf, at);
    }

    /** HMAC-SHA256 over {@code buf[1, end)}: the nonce (the AAD) then the ciphertext. */
    private static byte[] hmacAad(MessageKeys keys, byte[] buf, int end) {
        HMac hmac = new HMac(new SHA256Digest());
        hmac.init(new KeyParameter(keys.hmacKey()));
        hmac.update(buf, 1, end - 1);
        byte[] mac = new byte[MAC_SIZE];
        hmac.doFinal(mac, 0);
        return mac;
    }

    private static byte[] utf8Encode(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                // getBytes would write '?', silently changing the message
                throw new IllegalArgumentException("plaintext holds an unpaired UTF-16 surrogate at index " + i);
            }
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String utf8Decode(byte[] b, int at, int size) throws Nip44Exception {
        String s = new String(b, at, size, StandardCharsets.UTF_8);
        if (s.indexOf('\uFFFD') < 0) {
            return s;
        }
        // U+FFFD may be genuine or a replaced malformed sequence: only a strict decoder can tell
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b, at, size));
            return s;
        } catch (CharacterCodingException e) {
            throw new Nip44Exception("invalid UTF-8 in the plaintext");
        }
    }
}
