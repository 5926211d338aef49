package org.fleetmesh.identity.didcomm;

/** One envelope a received message came in. */
public enum Protection {
    /** ECDH-ES: confidential and tamper-evident, the sender unknown. */
    ANONCRYPT,
    /** ECDH-1PU: confidential, tamper-evident, and the sender proven to the recipient alone (repudiable). */
    AUTHCRYPT,
    /** EdDSA JWS: the sender proven to anyone who sees the signed message (non-repudiable). */
    SIGNED
}
