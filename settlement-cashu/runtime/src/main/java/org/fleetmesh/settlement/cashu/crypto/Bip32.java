package org.fleetmesh.settlement.cashu.crypto;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** BIP-32 private-key derivation, only as far as NUT-13 legacy derivation needs (no xpub/xprv serialization). */
public final class Bip32 {
    /** Index offset of hardened children (i'). */
    public static final long HARDENED = 0x80000000L;
    private static final byte[] MASTER_KEY = "Bitcoin seed".getBytes(StandardCharsets.US_ASCII);

    private Bip32() {
    }

    /** An extended private key: k and its chain code. toString never shows them. */
    public static final class ExtendedKey {
        private final BigInteger key;
        private final byte[] chainCode;

        ExtendedKey(BigInteger key, byte[] chainCode) {
            this.key = Secp256k1.requireScalar(key, "BIP-32 private key");
            if (chainCode == null || chainCode.length != 32) {
                throw new IllegalArgumentException("BIP-32 chain code must be 32 bytes");
            }
            this.chainCode = chainCode.clone();
        }

        public BigInteger privateKey() {
            return key;
        }

        public byte[] chainCode() {
            return chainCode.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ExtendedKey k && key.equals(k.key) && Arrays.equals(chainCode, k.chainCode);
        }

        @Override
        public int hashCode() {
            return key.hashCode() * 31 + Arrays.hashCode(chainCode);
        }

        @Override
        public String toString() {
            return "Bip32.ExtendedKey[redacted]";
        }
    }

    /** m from a seed of 16..64 bytes: HMAC-SHA512("Bitcoin seed", seed). */
    public static ExtendedKey master(byte[] seed) {
        if (seed == null || seed.length < 16 || seed.length > 64) {
            throw new IllegalArgumentException("BIP-32 seed must be 16 to 64 bytes");
        }
        byte[] i = hmacSha512(MASTER_KEY, seed);
        BigInteger k = new BigInteger(1, Arrays.copyOfRange(i, 0, 32));
        if (k.signum() == 0 || k.compareTo(Secp256k1.N) >= 0) {
            throw new IllegalArgumentException("seed gives an invalid BIP-32 master key");
        }
        return new ExtendedKey(k, Arrays.copyOfRange(i, 32, 64));
    }

    /** CKDpriv: child index in [0, 2^32); indexes >= HARDENED are hardened. */
    public static ExtendedKey child(ExtendedKey parent, long index) {
        if (index < 0 || index > 0xffffffffL) {
            throw new IllegalArgumentException("BIP-32 child index must be in [0, 2^32)");
        }
        byte[] data = new byte[37];
        if (index >= HARDENED) {
            System.arraycopy(Secp256k1.bytes32(parent.key), 0, data, 1, 32);
        } else {
            System.arraycopy(Secp256k1.encode(Secp256k1.mulG(parent.key)), 0, data, 0, 33);
        }
        data[33] = (byte) (index >>> 24);
        data[34] = (byte) (index >>> 16);
        data[35] = (byte) (index >>> 8);
        data[36] = (byte) index;
        byte[] i = hmacSha512(parent.chainCode, data);
        BigInteger il = new BigInteger(1, Arrays.copyOfRange(i, 0, 32));
        BigInteger k = il.add(parent.key).mod(Secp256k1.N);
        if (il.compareTo(Secp256k1.N) >= 0 || k.signum() == 0) {
            // BIP-32 says to skip to the next index; with probability below 2^-127 we report it instead.
            throw new IllegalStateException("BIP-32 child " + index + " is invalid; use the next index");
        }
        return new ExtendedKey(k, Arrays.copyOfRange(i, 32, 64));
    }

    /** Derives a path such as m/129372'/0'/1'/0'/0 (h is accepted for '). */
    public static ExtendedKey derive(byte[] seed, String path) {
        if (path == null || !(path.equals("m") || path.startsWith("m/"))) {
            throw new IllegalArgumentException("BIP-32 path must start with m/");
        }
        ExtendedKey k = master(seed);
        if (path.equals("m")) {
            return k;
        }
        for (String part : path.substring(2).split("/", -1)) {
            boolean hardened = part.endsWith("'") || part.endsWith("h") || part.endsWith("H");
            String digits = hardened ? part.substring(0, part.length() - 1) : part;
            if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9') || digits.length() > 10) {
                throw new IllegalArgumentException("BIP-32 path element is not a number: " + part);
            }
            long index = Long.parseLong(digits);
            if (index >= HARDENED) {
                throw new IllegalArgumentException("BIP-32 path element must be below 2^31: " + part);
            }
            k = child(k, hardened ? index + HARDENED : index);
        }
        return k;
    }

    private static byte[] hmacSha512(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA512");
            mac.init(new SecretKeySpec(key, "HmacSHA512"));
            return mac.doFinal(data);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA512 is required by every JDK", e);
        }
    }
}
