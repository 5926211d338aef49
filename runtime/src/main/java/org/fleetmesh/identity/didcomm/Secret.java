package org.fleetmesh.identity.didcomm;

import org.fleetmesh.identity.Multikey;

/**
 * A private key the local agent holds: X25519 to agree keys (anoncrypt, authcrypt), Ed25519 to sign. Neither
 * prints, serialises nor compares its secret bytes.
 */
public sealed interface Secret permits X25519Secret, Ed25519Secret {
    /** The public key of this secret, as DID documents list it. */
    Multikey publicKey();

    /**
     * A secret from its private JWK (RFC 8037 OKP, {@code crv} X25519 or Ed25519, with {@code d} and {@code x}),
     * as DIDComm test vectors and wallets give them. The {@code x} must be the public key of {@code d}.
     *
     * @throws DidcommException MALFORMED for a JWK that is not such a key or whose x does not match d, UNSUPPORTED
     *         for another kty or crv
     */
    static Secret fromJwk(String jwk) throws DidcommException {
        return Jwk.secret(DidcommJson.parseObject(jwk, "private JWK"));
    }
}
