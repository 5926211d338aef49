package org.fleetmesh.settlement.cashu.crypto;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import javax.crypto.Mac;
import org.fleetmesh.nostr.Hex;

/** NUT-13 deterministic secrets and blinding factors, chosen by the keyset id version. */
public final class Derivation {
    private static final byte[] KDF_TAG = "Cashu_KDF_HMAC_SHA256".getBytes(StandardCharsets.US_ASCII);
    private static final BigInteger TWO_31_MINUS_1 = BigInteger.valueOf(0x7fffffffL);

    private Derivation() {
    }

    /** secret: the string a proof carries (lower-case hex of the 32 derived bytes); r: the blinding factor. */
    public record Derived(String secret, BigInteger r) {
        @Override
        public String toString() {
            return "Derived[redacted]";
        }
    }

    /** HMAC-SHA256 derivation for "01" keyset ids, BIP-32 m/129372'/0'/{id_int}'/{counter}'/{0|1} for "00". */
    public static Derived derive(byte[] seed, String keysetId, long counter) {
        if (seed == null || seed.length == 0) {
            throw new IllegalArgumentException("seed is missing");
        }
        if (counter < 0) {
            throw new IllegalArgumentException("counter must not be negative");
        }
        String id = requireId(keysetId);
        if (id.startsWith("01")) {
            return hmac(seed, id, counter);
        }
        if (id.startsWith("00")) {
            return bip32(seed, id, counter);
        }
        throw new IllegalArgumentException("unsupported keyset id version " + id.substring(0, 2));
    }

    /** The deprecated keyset id integer: first 8 bytes of the id, big-endian, mod 2^31 - 1. */
    public static long keysetIdInt(String keysetId) {
        String id = requireId(keysetId);
        return new BigInteger(1, Hex.decodeLower(id.substring(0, 16))).mod(TWO_31_MINUS_1).longValueExact();
    }

    private static Derived hmac(byte[] seed, String id, long counter) {
        byte[] idBytes = Hex.decodeLower(id);
        byte[] message = new byte[KDF_TAG.length + idBytes.length + 8 + 1];
        System.arraycopy(KDF_TAG, 0, message, 0, KDF_TAG.length);
        System.arraycopy(idBytes, 0, message, KDF_TAG.length, idBytes.length);
        int at = KDF_TAG.length + idBytes.length;
        for (int i = 0; i < 8; i++) {
            message[at + i] = (byte) (counter >>> (56 - 8 * i));
        }
        Mac mac = Dleq.hmacSha256(seed);
        message[message.length - 1] = 0x00;
        byte[] secret = mac.doFinal(message);
        message[message.length - 1] = 0x01;
        BigInteger r = new BigInteger(1, mac.doFinal(message)).mod(Secp256k1.N);
        if (r.signum() == 0) {
            throw new IllegalStateException("derived blinding factor is zero; use the next counter");
        }
        return new Derived(Hex.encode(secret), r);
    }

    private static Derived bip32(byte[] seed, String id, long counter) {
        if (counter >= Bip32.HARDENED) {
            throw new IllegalArgumentException("counter must be below 2^31 for BIP-32 derivation");
        }
        Bip32.ExtendedKey k = Bip32.master(seed);
        k = Bip32.child(k, Bip32.HARDENED + 129372);
        k = Bip32.child(k, Bip32.HARDENED);
        k = Bip32.child(k, Bip32.HARDENED + keysetIdInt(id));
        k = Bip32.child(k, Bip32.HARDENED + counter);
        BigInteger secret = Bip32.child(k, 0).privateKey();
        BigInteger r = Bip32.child(k, 1).privateKey();
        return new Derived(Hex.encode(Secp256k1.bytes32(secret)), r);
    }

    private static String requireId(String keysetId) {
        if (keysetId == null || keysetId.length() < 16 || (keysetId.length() & 1) != 0) {
            throw new IllegalArgumentException("keyset id must be at least 16 hex characters");
        }
        String id = keysetId.toLowerCase(Locale.ROOT);
        if (!Hex.isLowerHex(id, id.length())) {
            throw new IllegalArgumentException("keyset id is not hex");
        }
        return id;
    }
}
