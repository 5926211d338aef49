package org.fleetmesh.identity.didcomm;

import org.fleetmesh.identity.Multikey;

/**
 * A private key the local agent holds: a {@link KeyAgreementSecret} (X25519, P-256, P-384) to agree keys (anoncrypt,
 * authcrypt; a P-256 or P-384 one also signs ES256 / ES384), Ed25519 to sign. None prints, serialises nor compares
 * its secret bytes.
 */
public sealed interface Secret permits KeyAgreementSecret, Ed25519Secret {
    /** The public key of this secret, as DID documents list it. */
    Multikey publicKey();

    /**
     * A secret from its private JWK (RFC 8037 OKP, {@code crv} X25519 or Ed25519, with {@code d} and {@code x}; or
     * RFC 7518 §6.2 EC, {@code crv} P-256 or P-384, with {@code d}, {@code x} and {@code y}), as DIDComm test vectors
     * and wallets give them. The public members, when present, must be the public key of {@code d}.
     *
     * @throws DidcommException MALFORMED for a JWK that is not such a key or whose x does not match d, UNSUPPORTED
     *         for another kty or crv
     */
    static Secret fromJwk(String jwk) throws DidcommException {
        return Jwk.secret(DidcommJson.parseObject(jwk, "private JWK"));
    }
}
