package org.fleetmesh.identity.didcomm;

/**
 * A secret that agrees keys for anoncrypt and authcrypt: X25519, or P-256 / P-384 ECDH. Its curve is its
 * {@link #publicKey()}'s type; both sides of an agreement must be on it.
 */
public sealed interface KeyAgreementSecret extends Secret permits X25519Secret, EcSecret {
}
