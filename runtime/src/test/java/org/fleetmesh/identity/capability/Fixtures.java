package org.fleetmesh.identity.capability;

import java.time.Instant;
import java.util.HexFormat;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.SecretKey;

/** A node with fixed keys, its issuer and verifier, and a fixed clock. */
final class Fixtures {
    /** RFC 8032 §7.1 test 1: secret key and the public key it must give. */
    static final String RFC8032_SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
    static final String RFC8032_PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

    static final Instant NOW = Instant.parse("2026-05-01T12:00:00Z");
    static final Instant EXPIRY = NOW.plusSeconds(3600);
    static final String WORKER = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

    static final NodeSecrets SECRETS = NodeSecrets.of(key("0101010101010101010101010101010101010101010101010101010101010101"),
            key("0202020202020202020202020202020202020202020202020202020202020202"), key(RFC8032_SECRET));
    static final NodeDidDocument NODE = NodeDidDocument.of(SECRETS.publicKeys(), NodeEndpoints.of("wss://node.example.org",
            "wss://node.example.org/mesh", "https://node.example.org/didcomm"));
    static final CapabilityIssuer ISSUER = CapabilityIssuer.forNode(SECRETS, NODE);
    static final CapabilityVerifier VERIFIER = CapabilityVerifier.forNode(NODE);

    /** Another node's key: tokens it signs are forgeries to {@link #VERIFIER}. */
    static final SecretKey OTHER_ROOT = key("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb");

    private Fixtures() {
    }

    static SecretKey key(String hex) {
        return new SecretKey(HexFormat.of().parseHex(hex));
    }

    /** A worker token for relay:read, relay:publish and compute:run up to 1000 fuel, valid an hour from NOW. */
    static String workerToken() {
        return ISSUER.issue(WORKER, Rights.of(Right.RELAY_READ, Right.RELAY_PUBLISH).andComputeRun(1000), EXPIRY);
    }
}
