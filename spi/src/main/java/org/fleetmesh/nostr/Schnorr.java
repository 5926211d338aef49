package org.fleetmesh.nostr;

import java.security.SecureRandom;

import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.BIP340Signer;
import org.fleetmesh.spi.nativelib.UnpackedLibraries;
import org.jboss.logging.Logger;

import fr.acinq.secp256k1.Secp256k1;

/**
 * BIP-340 Schnorr signatures over secp256k1: libsecp256k1 through JNI when it loads, BouncyCastle's
 * {@link BIP340Signer} otherwise (and for messages that are not 32 bytes, which the JNI refuses).
 */
public final class Schnorr {
    private static final Logger LOG = Logger.getLogger(Schnorr.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** The library loader's own setting: the directory it unpacks its library into. */
    static final String LOADER_TMPDIR = "fr.acinq.secp256k1.tmpdir";
    private static final Secp256k1 NATIVE = loadNative();

    private Schnorr() {
    }

    private static Secp256k1 loadNative() {
        if (Boolean.getBoolean("fleetmesh.secp256k1.disable-native")) {
            return null;
        }
        String cache = System.getProperty(Secp256k1Library.CACHE_DIR);
        if (cache != null && !cache.isBlank() && System.getProperty(Secp256k1Library.LIB_PATH) == null) {
            java.nio.file.Path dir = Secp256k1Library.useCopyIn(java.nio.file.Path.of(cache));
            if (dir != null) {
                try {
                    return loaded();
                } catch (Throwable t) {
                    // e.g. a directory mounted noexec: the library's own loader, from its temporary directory
                    LOG.debugf("libsecp256k1 from %s: %s; unpacking it as the library does", dir, t);
                    System.clearProperty(Secp256k1Library.LIB_PATH);
                }
            }
        }
        try {
            Secp256k1 s = loaded();
            // the library's loader unpacked a copy into its temporary directory and deletes it only at a normal exit:
            // loaded now, it is unlinked so that a node stopped with kill -9 leaves nothing behind
            UnpackedLibraries.unlinkMapped(
                    java.nio.file.Path.of(System.getProperty(LOADER_TMPDIR, System.getProperty("java.io.tmpdir"))),
                    "secp256k1-", "-" + System.mapLibraryName("secp256k1-jni"), ".lck");
            return s;
        } catch (Throwable t) {
            LOG.warnf("libsecp256k1 JNI unavailable (%s); using BouncyCastle for BIP-340, which is slower", t.toString());
            return null;
        }
    }

    private static Secp256k1 loaded() {
        Secp256k1 s = Secp256k1.get();
        s.secKeyVerify(new byte[] { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 1 });
        return s;
    }

    /** Whether libsecp256k1 (JNI) is in use. */
    public static boolean isNative() {
        return NATIVE != null;
    }

    /** Verifies a BIP-340 signature; false for any malformed input rather than an exception. */
    public static boolean verify(byte[] sig64, byte[] message, byte[] xOnlyPubKey32) {
        if (sig64.length != 64 || xOnlyPubKey32.length != 32) {
            return false;
        }
        if (NATIVE != null && message.length == 32) {
            try {
                return NATIVE.verifySchnorr(sig64, message, xOnlyPubKey32);
            } catch (RuntimeException e) {
                return false; // libsecp256k1 refuses keys that are not on the curve
            }
        }
        return verifyPortable(sig64, message, xOnlyPubKey32);
    }

    /** The BouncyCastle path, kept callable so tests can check both against the vectors. */
    public static boolean verifyPortable(byte[] sig64, byte[] message, byte[] xOnlyPubKey32) {
        try {
            ECPublicKeyParameters pub = BIP340Signer.decodePublicKey(xOnlyPubKey32);
            BIP340Signer signer = new BIP340Signer();
            signer.init(false, pub);
            signer.update(message, 0, message.length);
            return signer.verifySignature(sig64);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Signs a message with fresh auxiliary randomness. */
    public static byte[] sign(byte[] message, byte[] secretKey32) {
        byte[] aux = new byte[32];
        RANDOM.nextBytes(aux);
        return sign(message, secretKey32, aux);
    }

    public static byte[] sign(byte[] message, byte[] secretKey32, byte[] auxRand32) {
        if (NATIVE != null && message.length == 32) {
            return NATIVE.signSchnorr(message, secretKey32, auxRand32);
        }
        return signPortable(message, secretKey32, auxRand32);
    }

    public static byte[] signPortable(byte[] message, byte[] secretKey32, byte[] auxRand32) {
        ECPrivateKeyParameters priv = new ECPrivateKeyParameters(new java.math.BigInteger(1, secretKey32),
                BIP340Signer.getDomain());
        ECPublicKeyParameters pub = new ECPublicKeyParameters(
                BIP340Signer.getDomain().getG().multiply(priv.getD()).normalize(), BIP340Signer.getDomain());
        BIP340Signer signer = new BIP340Signer();
        signer.init(true, new org.bouncycastle.crypto.AsymmetricCipherKeyPair(pub, priv), new FixedRandom(auxRand32));
        signer.update(message, 0, message.length);
        try {
            return signer.generateSignature();
        } catch (Exception e) {
            throw new IllegalStateException("BIP-340 signing failed", e);
        }
    }

    /** The x-only public key of a secret key. */
    public static byte[] publicKey(byte[] secretKey32) {
        if (NATIVE != null) {
            byte[] compressed = NATIVE.pubKeyCompress(NATIVE.pubkeyCreate(secretKey32));
            return java.util.Arrays.copyOfRange(compressed, 1, 33);
        }
        byte[] encoded = BIP340Signer.getDomain().getG().multiply(new java.math.BigInteger(1, secretKey32)).normalize()
                .getAffineXCoord().getEncoded();
        return encoded;
    }

    /** A fresh random secret key valid on secp256k1. */
    public static byte[] newSecretKey() {
        java.math.BigInteger n = BIP340Signer.getDomain().getN();
        while (true) {
            byte[] k = new byte[32];
            RANDOM.nextBytes(k);
            java.math.BigInteger v = new java.math.BigInteger(1, k);
            if (v.signum() > 0 && v.compareTo(n) < 0) {
                return k;
            }
        }
    }

    /** Hands BouncyCastle the exact auxiliary randomness BIP-340 test vectors specify. */
    private static final class FixedRandom extends SecureRandom {
        private final byte[] aux;

        FixedRandom(byte[] aux) {
            this.aux = aux;
        }

        @Override
        public void nextBytes(byte[] bytes) {
            System.arraycopy(aux, 0, bytes, 0, Math.min(aux.length, bytes.length));
        }
    }
}
