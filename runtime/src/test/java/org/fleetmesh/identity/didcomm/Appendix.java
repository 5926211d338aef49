package org.fleetmesh.identity.didcomm;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The spec appendix's keys and documents as this package's types. */
final class Appendix {
    static final String ALICE = "did:example:alice";
    static final String BOB = "did:example:bob";
    static final String ALICE_ED25519 = ALICE + "#key-1";
    static final String ALICE_X25519 = ALICE + "#key-x25519-1";
    static final String BOB_X25519_1 = BOB + "#key-x25519-1";
    static final String BOB_X25519_2 = BOB + "#key-x25519-2";
    static final String BOB_X25519_3 = BOB + "#key-x25519-3";
    /** Alice's P-256 signing key (authentication), ES256. */
    static final String ALICE_P256_SIGNING = ALICE + "#key-2";
    static final String ALICE_P256 = ALICE + "#key-p256-1";
    static final String BOB_P256_1 = BOB + "#key-p256-1";
    static final String BOB_P256_2 = BOB + "#key-p256-2";
    static final String BOB_P384_1 = BOB + "#key-p384-1";
    static final String BOB_P384_2 = BOB + "#key-p384-2";

    private static final ObjectMapper JSON = new ObjectMapper();

    private Appendix() {
    }

    static ObjectNode json(String text) {
        try {
            return (ObjectNode) JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Alice's and Bob's DID documents of Appendix B. */
    static DidDocumentKeys keys() {
        return DidDocumentKeys.offline().knowing(json(SpecVectors.ALICE_DID_DOC)).knowing(json(SpecVectors.BOB_DID_DOC));
    }

    /** The OKP, P-256 and P-384 secrets of Appendix A by kid (P-521 and secp256k1 ones are left out). */
    static Map<String, Secret> secrets() {
        Map<String, Secret> out = new LinkedHashMap<>();
        for (String list : new String[] { SpecVectors.SENDER_SECRETS, SpecVectors.RECIPIENT_SECRETS }) {
            try {
                for (JsonNode jwk : JSON.readTree(list)) {
                    String crv = jwk.get("crv").asText();
                    if (crv.equals("P-521") || crv.equals("secp256k1")) {
                        continue;
                    }
                    // A.2 spells the member "kid " with a trailing space
                    JsonNode kid = jwk.has("kid") ? jwk.get("kid") : jwk.get("kid ");
                    out.put(kid.asText(), Secret.fromJwk(jwk.toString()));
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return out;
    }

    static X25519Secret x25519(String kid) {
        return (X25519Secret) secrets().get(kid);
    }

    static EcSecret ec(String kid) {
        return (EcSecret) secrets().get(kid);
    }

    static Ed25519Secret ed25519(String kid) {
        return (Ed25519Secret) secrets().get(kid);
    }

    /** Only the secret of {@code kid}. */
    static SecretResolver only(String kid) {
        return SecretResolver.of(Map.of(kid, secrets().get(kid)));
    }
}
