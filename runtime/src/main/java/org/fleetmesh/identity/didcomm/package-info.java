/**
 * DIDComm Messaging v2 (DIF, v2.1) as pure code: JSON and keys in, JSON and checked messages out.
 *
 * <ul>
 * <li>{@link org.fleetmesh.identity.didcomm.PlaintextMessage} and {@link org.fleetmesh.identity.didcomm.Attachment}:
 * the plaintext format, {@code application/didcomm-plain+json}.</li>
 * <li>{@link org.fleetmesh.identity.didcomm.SignedMessage}: a JWS, EdDSA over Ed25519 or ES256 / ES384 over P-256 /
 * P-384 (ES256K read), {@code application/didcomm-signed+json}.</li>
 * <li>{@link org.fleetmesh.identity.didcomm.EncryptedMessage}: a General JSON JWE over X25519, P-256 or P-384, anoncrypt
 * (ECDH-ES+A256KW) or authcrypt (ECDH-1PU+A256KW), with a {@link org.fleetmesh.identity.didcomm.ContentEncryption};
 * {@code application/didcomm-encrypted+json}.</li>
 * <li>{@link org.fleetmesh.identity.didcomm.Didcomm}: pack and unpack, keys from a
 * {@link org.fleetmesh.identity.didcomm.KeyResolver} ({@link org.fleetmesh.identity.didcomm.DidDocumentKeys} over
 * DID documents) and a {@link org.fleetmesh.identity.didcomm.SecretResolver}; what a message had is an
 * {@link org.fleetmesh.identity.didcomm.UnpackedMessage}, what it lacked a
 * {@link org.fleetmesh.identity.didcomm.DidcommException}.</li>
 * </ul>
 * JOSE is done here on BouncyCastle and the JDK, not nimbus-jose-jwt: nimbus' X25519 and Ed25519 need Google Tink,
 * which the build does not have.
 */
package org.fleetmesh.identity.didcomm;
