package org.fleetmesh.identity.didcomm;

import java.security.SecureRandom;
import java.util.Arrays;

import org.bouncycastle.math.ec.rfc7748.X25519;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;

/** An X25519 private key (RFC 7748 §5): the 32-byte scalar, clamped when used. */
public final class X25519Secret implements KeyAgreementSecret {
    private final byte[] scalar;
    private final Multikey publicKey;

    private X25519Secret(byte[] scalar) {
        this.scalar = scalar;
        byte[] pub = new byte[X25519.POINT_SIZE];
        X25519.scalarMultBase(scalar, 0, pub, 0);
        this.publicKey = Multikey.x25519(pub);
    }

    public static X25519Secret of(byte[] scalar) {
        if (scalar.length != X25519.SCALAR_SIZE) {
            throw new IllegalArgumentException("an X25519 secret is " + X25519.SCALAR_SIZE + " bytes, got " + scalar.length);
        }
        return new X25519Secret(scalar.clone());
    }

    public static X25519Secret generate(SecureRandom random) {
        byte[] scalar = new byte[X25519.SCALAR_SIZE];
        X25519.generatePrivateKey(random, scalar);
        return new X25519Secret(scalar);
    }

    @Override
    public Multikey publicKey() {
        return publicKey;
    }

    /**
     * The X25519 shared secret with {@code peer}. A peer key of small order gives the all-zero value, which
     * RFC 7748 §6.1 tells us to refuse: it would let anyone compute the same secret.
     */
    byte[] agree(Multikey peer, String what) throws DidcommException {
        return agree(scalar, peer, what);
    }

    static byte[] agree(byte[] scalar, Multikey peer, String what) throws DidcommException {
        if (peer.type() != KeyType.X25519) {
            throw new DidcommException(DidcommException.Reason.WRONG_KEY_TYPE,
                    what + " is " + peer.type() + ", key agreement needs X25519");
        }
        byte[] shared = new byte[X25519.POINT_SIZE];
        if (!X25519.calculateAgreement(scalar, 0, peer.keyBytes(), 0, shared, 0)) {
            throw DidcommException.malformed(what + " is a point of small order (all-zero X25519 output)");
        }
        return shared;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof X25519Secret s && Arrays.equals(s.scalar, scalar);
    }

    @Override
    public int hashCode() {
        return publicKey.hashCode();
    }

    @Override
    public String toString() {
        return "X25519Secret[public " + publicKey + "]";
    }
}
