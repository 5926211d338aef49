package org.fleetmesh.identity.didcomm;

import java.security.SecureRandom;
import java.util.Arrays;

import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.fleetmesh.identity.Multikey;

/** An Ed25519 private key (RFC 8032 §5.1.5): the 32-byte seed. */
public final class Ed25519Secret implements Secret {
    private final byte[] seed;
    private final Multikey publicKey;

    private Ed25519Secret(byte[] seed) {
        this.seed = seed;
        byte[] pub = new byte[Ed25519.PUBLIC_KEY_SIZE];
        Ed25519.generatePublicKey(seed, 0, pub, 0);
        this.publicKey = Multikey.ed25519(pub);
    }

    public static Ed25519Secret of(byte[] seed) {
        if (seed.length != Ed25519.SECRET_KEY_SIZE) {
            throw new IllegalArgumentException("an Ed25519 secret is " + Ed25519.SECRET_KEY_SIZE + " bytes, got "
                    + seed.length);
        }
        return new Ed25519Secret(seed.clone());
    }

    public static Ed25519Secret generate(SecureRandom random) {
        byte[] seed = new byte[Ed25519.SECRET_KEY_SIZE];
        Ed25519.generatePrivateKey(random, seed);
        return new Ed25519Secret(seed);
    }

    @Override
    public Multikey publicKey() {
        return publicKey;
    }

    /** The 64-byte EdDSA signature of {@code message} (RFC 8032 §5.1.6, pure Ed25519). */
    byte[] sign(byte[] message) {
        byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
        Ed25519.sign(seed, 0, message, 0, message.length, signature, 0);
        return signature;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ed25519Secret s && Arrays.equals(s.seed, seed);
    }

    @Override
    public int hashCode() {
        return publicKey.hashCode();
    }

    @Override
    public String toString() {
        return "Ed25519Secret[public " + publicKey + "]";
    }
}
