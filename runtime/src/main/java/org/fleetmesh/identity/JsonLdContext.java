package org.fleetmesh.identity;

/** The JSON-LD {@code @context} URLs the DID documents here name. */
public final class JsonLdContext {
    public static final String DID_V1 = "https://www.w3.org/ns/did/v1";
    public static final String MULTIKEY_V1 = "https://w3id.org/security/multikey/v1";
    /** Controlled Identifiers 1.0, which defines Multikey; did:nostr uses it in place of DID_V1. */
    public static final String CID_V1 = "https://www.w3.org/ns/cid/v1";
    public static final String NOSTR = "https://w3id.org/nostr/context";
    public static final String JWS_2020 = "https://w3id.org/security/suites/jws-2020/v1";
    public static final String ED25519_2020 = "https://w3id.org/security/suites/ed25519-2020/v1";
    public static final String X25519_2020 = "https://w3id.org/security/suites/x25519-2020/v1";
    public static final String ED25519_2018 = "https://w3id.org/security/suites/ed25519-2018/v1";
    public static final String X25519_2019 = "https://w3id.org/security/suites/x25519-2019/v1";
    public static final String SECP256K1_2019 = "https://w3id.org/security/suites/secp256k1-2019/v1";

    private JsonLdContext() {
    }
}
