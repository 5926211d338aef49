package org.fleetmesh.identity.capability;

import static org.fleetmesh.identity.capability.Fixtures.EXPIRY;
import static org.fleetmesh.identity.capability.Fixtures.ISSUER;
import static org.fleetmesh.identity.capability.Fixtures.NODE;
import static org.fleetmesh.identity.capability.Fixtures.NOW;
import static org.fleetmesh.identity.capability.Fixtures.SECRETS;
import static org.fleetmesh.identity.capability.Fixtures.VERIFIER;
import static org.fleetmesh.identity.capability.Fixtures.WORKER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import org.biscuitsec.biscuit.token.UnverifiedBiscuit;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeSecrets;
import org.junit.jupiter.api.Test;

class CapabilityIssuerTest {
    @Test
    void theRootIsTheTransportKeyAsRfc8032DerivesIt() {
        assertEquals(Fixtures.RFC8032_PUBLIC, HexFormat.of().formatHex(ISSUER.rootKey().keyBytes()));
        assertEquals(NODE.keys().transport(), ISSUER.rootKey());
    }

    @Test
    void theIssuerIsTheNodesShortFormDid() {
        assertEquals(NODE.shortForm(), ISSUER.issuer());
    }

    @Test
    void anIssuedTokenIsBase64urlOfABiscuit() {
        String token = Fixtures.workerToken();
        assertTrue(token.matches("[A-Za-z0-9_-]+=*"), token);
    }

    @Test
    void theAuthorityBlockHoldsIssuerSubjectRightsFuelLimitAndExpiry() throws Exception {
        String printed = UnverifiedBiscuit.from_b64url(Fixtures.workerToken()).print();
        for (String expected : List.of("issuer(\"" + NODE.shortForm() + "\")", "subject(\"" + WORKER + "\")",
                "right(\"relay:read\")", "right(\"relay:publish\")", "right(\"compute:run\")", "fuel_limit(1000)",
                "check if time($t), $t <= 2026-05-01T13:00:00Z")) {
            assertTrue(printed.contains(expected), expected + " in " + printed);
        }
        assertFalse(printed.contains("admin:"), printed);
    }

    @Test
    void everyGrantedRightIsAllowedToTheSubject() {
        String token = ISSUER.issue(WORKER, Rights.of(Right.ADMIN_READ, Right.ADMIN_WRITE, Right.RELAY_PUBLISH,
                Right.RELAY_READ, Right.PEER_SYNC).andComputeRun(10), EXPIRY);
        for (Right right : Right.values()) {
            Authorization a = VERIFIER.authorize(token, new CapabilityRequest(right,
                    right == Right.COMPUTE_RUN ? 10 : 0, NOW, Optional.empty()));
            assertEquals(WORKER, a.subject());
            assertEquals(NODE.shortForm(), a.issuer());
            assertEquals(right, a.request().right());
            assertEquals(0, a.attenuations());
        }
    }

    @Test
    void twoTokensForTheSameGrantHaveDifferentIds() {
        assertNotEquals(Capability.tokenId(Fixtures.workerToken()), Capability.tokenId(Fixtures.workerToken()));
    }

    @Test
    void theExpiryIsRoundedDownToTheSecond() throws Exception {
        String token = ISSUER.issue(WORKER, Rights.of(Right.RELAY_READ), Instant.parse("2026-05-01T13:00:00.999Z"));
        assertTrue(UnverifiedBiscuit.from_b64url(token).print().contains("$t <= 2026-05-01T13:00:00Z"));
    }

    @Test
    void refusesASubjectThatIsNotADidOrKey() {
        Rights rights = Rights.of(Right.RELAY_READ);
        assertThrows(IllegalArgumentException.class, () -> ISSUER.issue("", rights, EXPIRY));
        assertThrows(IllegalArgumentException.class, () -> ISSUER.issue("did:key:\"x", rights, EXPIRY));
        assertThrows(IllegalArgumentException.class, () -> ISSUER.issue("two words", rights, EXPIRY));
        assertThrows(IllegalArgumentException.class, () -> ISSUER.issue("x".repeat(4097), rights, EXPIRY));
    }

    @Test
    void refusesAnExpiryOutsideBiscuitDates() {
        Rights rights = Rights.of(Right.RELAY_READ);
        assertThrows(IllegalArgumentException.class, () -> ISSUER.issue(WORKER, rights, Instant.parse("1969-12-31T23:59:59Z")));
        assertThrows(IllegalArgumentException.class, () -> ISSUER.issue(WORKER, rights, Instant.parse("+10000-01-01T00:00:00Z")));
    }

    @Test
    void refusesADidDocumentOfAnotherNode() {
        NodeSecrets other = NodeSecrets.of(SECRETS.nostr(), SECRETS.agreement(), Fixtures.OTHER_ROOT);
        NodeDidDocument otherDoc = NodeDidDocument.of(other.publicKeys(), NODE.endpoints());
        assertThrows(IllegalArgumentException.class, () -> CapabilityIssuer.forNode(SECRETS, otherDoc));
    }

    @Test
    void neverPrintsItsSecret() {
        String printed = ISSUER.toString();
        assertFalse(printed.contains(Fixtures.RFC8032_SECRET), printed);
        assertTrue(printed.contains(ISSUER.rootKey().encode()), printed);
    }

    @Test
    void tokensCarryNoSecret() {
        byte[] token = Capability.decode(Fixtures.workerToken());
        String hex = HexFormat.of().formatHex(token);
        assertFalse(hex.contains(Fixtures.RFC8032_SECRET));
    }
}
