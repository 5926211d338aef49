package org.fleetmesh.compute.market;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.SecretKey;
import org.fleetmesh.identity.capability.CapabilityIssuer;
import org.fleetmesh.identity.capability.Right;
import org.fleetmesh.identity.capability.Rights;
import org.junit.jupiter.api.Test;

/** A request's token: from a root the worker honours, granting compute:run within the job's fuel, not expired. */
class RequestTokensTest {
    static final Instant NOW = Instant.parse("2026-05-01T12:00:00Z");

    static NodeSecrets secrets(int b) {
        return NodeSecrets.of(key(b), key(b + 1), key(b + 2));
    }

    static SecretKey key(int b) {
        byte[] x = new byte[32];
        Arrays.fill(x, (byte) b);
        return new SecretKey(x);
    }

    static NodeDidDocument node(NodeSecrets s) {
        return NodeDidDocument.of(s.publicKeys(), NodeEndpoints.of("wss://n.example/", "wss://n.example/mesh",
                "https://n.example/didcomm"));
    }

    final NodeSecrets root = secrets(1);
    final String token = CapabilityIssuer.forNode(root, node(root)).issue("did:key:z6MkBuyer",
            Rights.computeRun(1_000_000), NOW.plusSeconds(3600));
    final List<String> roots = List.of(node(root).did());

    @Test
    void aTokenOfTheRootWithinItsFuelRuns() {
        assertNull(RequestTokens.problem(token, 1_000_000, roots, DidResolver.offline(), NOW));
    }

    @Test
    void moreFuelThanGrantedAnotherRootOrLaterThanItsExpiryIsRefused() {
        assertNotNull(RequestTokens.problem(token, 1_000_001, roots, DidResolver.offline(), NOW));
        NodeSecrets other = secrets(7);
        assertNotNull(RequestTokens.problem(token, 10, List.of(node(other).did()), DidResolver.offline(), NOW));
        assertNotNull(RequestTokens.problem(token, 10, roots, DidResolver.offline(), NOW.plusSeconds(3601)));
        assertNotNull(RequestTokens.problem(token, 10, List.of(), DidResolver.offline(), NOW));
        String relayOnly = CapabilityIssuer.forNode(root, node(root)).issue("did:key:z6MkBuyer",
                Rights.of(Right.RELAY_READ), NOW.plusSeconds(3600));
        assertNotNull(RequestTokens.problem(relayOnly, 10, roots, DidResolver.offline(), NOW));
    }
}
