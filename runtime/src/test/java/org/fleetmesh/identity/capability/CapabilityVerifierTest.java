package org.fleetmesh.identity.capability;

import static org.fleetmesh.identity.capability.Fixtures.EXPIRY;
import static org.fleetmesh.identity.capability.Fixtures.ISSUER;
import static org.fleetmesh.identity.capability.Fixtures.NODE;
import static org.fleetmesh.identity.capability.Fixtures.NOW;
import static org.fleetmesh.identity.capability.Fixtures.VERIFIER;
import static org.fleetmesh.identity.capability.Fixtures.WORKER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

import org.fleetmesh.identity.DidKey;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.PublicKeyFormat;
import org.fleetmesh.identity.capability.CapabilityException.Reason;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

class CapabilityVerifierTest {
    private static final String TOKEN = Fixtures.workerToken();

    static Reason refusal(CapabilityVerifier verifier, String token, CapabilityRequest request) {
        return assertThrows(CapabilityException.class, () -> verifier.authorize(token, request)).reason();
    }

    static Reason refusal(String token, CapabilityRequest request) {
        return refusal(VERIFIER, token, request);
    }

    @Test
    void allowsAGrantedRightBeforeExpiry() {
        Authorization a = VERIFIER.authorize(TOKEN, CapabilityRequest.of(Right.RELAY_READ, NOW));
        assertEquals(WORKER, a.subject());
        assertEquals(Capability.tokenId(TOKEN), a.tokenId());
    }

    @Test
    void allowsUpToAndIncludingTheExpirySecond() {
        VERIFIER.authorize(TOKEN, CapabilityRequest.of(Right.RELAY_READ, EXPIRY));
        VERIFIER.authorize(TOKEN, CapabilityRequest.of(Right.RELAY_READ, EXPIRY.plusMillis(999)));
    }

    @Test
    void refusesAfterExpiry() {
        CapabilityException e = assertThrows(CapabilityException.class,
                () -> VERIFIER.authorize(TOKEN, CapabilityRequest.of(Right.RELAY_READ, EXPIRY.plusSeconds(1))));
        assertEquals(Reason.EXPIRED, e.reason());
        assertTrue(e.getMessage().startsWith("expired: "), e.getMessage());
        assertEquals(1, e.failedChecks().size());
        assertTrue(e.failedChecks().get(0).startsWith("block 0: check if time($t)"), e.failedChecks().toString());
    }

    @Test
    void refusesARightNotGranted() {
        CapabilityException e = assertThrows(CapabilityException.class,
                () -> VERIFIER.authorize(TOKEN, CapabilityRequest.of(Right.ADMIN_WRITE, NOW)));
        assertEquals(Reason.RIGHT_NOT_GRANTED, e.reason());
        assertTrue(e.getMessage().contains("does not grant admin:write"), e.getMessage());
        assertEquals(Reason.RIGHT_NOT_GRANTED, refusal(TOKEN, CapabilityRequest.of(Right.PEER_SYNC, NOW)));
    }

    @Test
    void allowsFuelUpToTheLimit() {
        VERIFIER.authorize(TOKEN, CapabilityRequest.compute(1000, NOW));
        VERIFIER.authorize(TOKEN, CapabilityRequest.compute(0, NOW));
    }

    @Test
    void refusesFuelOverTheLimit() {
        CapabilityException e = assertThrows(CapabilityException.class,
                () -> VERIFIER.authorize(TOKEN, CapabilityRequest.compute(1001, NOW)));
        assertEquals(Reason.FUEL_OVER_LIMIT, e.reason());
        assertTrue(e.getMessage().contains("verifier: check if fuel($f), fuel_limit($l), $f <= $l"), e.getMessage());
    }

    @Test
    void refusesComputeToATokenWithoutIt() {
        String relayOnly = ISSUER.issue(WORKER, Rights.of(Right.RELAY_READ), EXPIRY);
        assertEquals(Reason.RIGHT_NOT_GRANTED, refusal(relayOnly, CapabilityRequest.compute(1, NOW)));
    }

    @Test
    void reportsExpiryFirstWhenSeveralChecksFail() {
        CapabilityException e = assertThrows(CapabilityException.class,
                () -> VERIFIER.authorize(TOKEN, CapabilityRequest.of(Right.ADMIN_WRITE, EXPIRY.plusSeconds(1))));
        assertEquals(Reason.EXPIRED, e.reason());
        assertEquals(2, e.failedChecks().size(), e.failedChecks().toString());
    }

    @Test
    void allowsTheAuthenticatedSubject() {
        VERIFIER.authorize(TOKEN, CapabilityRequest.of(Right.RELAY_READ, NOW).heldBy(WORKER));
    }

    @Test
    void refusesAnAuthenticatedHolderThatIsNotTheSubject() {
        CapabilityException e = assertThrows(CapabilityException.class, () -> VERIFIER.authorize(TOKEN,
                CapabilityRequest.of(Right.RELAY_READ, NOW).heldBy("did:key:z6MkotherHolder")));
        assertEquals(Reason.WRONG_HOLDER, e.reason());
    }

    @Test
    void refusesATokenSignedByAnotherKey() {
        CapabilityIssuer forger = new CapabilityIssuer(Fixtures.OTHER_ROOT, NODE.shortForm());
        String forged = forger.issue(WORKER, Rights.of(Right.ADMIN_WRITE), EXPIRY);
        CapabilityException e = assertThrows(CapabilityException.class,
                () -> VERIFIER.authorize(forged, CapabilityRequest.of(Right.ADMIN_WRITE, NOW)));
        assertEquals(Reason.BAD_SIGNATURE, e.reason());
        assertTrue(e.getMessage().contains(NODE.keys().transport().encode()), e.getMessage());
    }

    @Test
    void refusesATokenToAVerifierWithAnotherRoot() {
        CapabilityVerifier other = CapabilityVerifier.of(new CapabilityIssuer(Fixtures.OTHER_ROOT, "did:example:x").rootKey());
        assertEquals(Reason.BAD_SIGNATURE, refusal(other, TOKEN, CapabilityRequest.of(Right.RELAY_READ, NOW)));
    }

    @Test
    void refusesEveryTokenWithAByteFlipped() {
        byte[] bytes = Capability.decode(TOKEN);
        Set<Reason> seen = EnumSet.noneOf(Reason.class);
        for (int i = 0; i < bytes.length; i++) {
            for (int mask : new int[] { 0x01, 0x80, 0xff }) {
                byte[] flipped = bytes.clone();
                flipped[i] ^= (byte) mask;
                String token = Base64.getUrlEncoder().encodeToString(flipped);
                Reason reason = refusal(token, CapabilityRequest.of(Right.RELAY_READ, NOW));
                assertTrue(reason == Reason.BAD_SIGNATURE || reason == Reason.MALFORMED,
                        "byte " + i + " ^ " + mask + ": " + reason);
                seen.add(reason);
            }
        }
        assertEquals(EnumSet.of(Reason.BAD_SIGNATURE, Reason.MALFORMED), seen);
    }

    @Test
    void refusesWhatIsNotAToken() {
        CapabilityRequest read = CapabilityRequest.of(Right.RELAY_READ, NOW);
        assertEquals(Reason.MALFORMED, refusal("", read));
        assertEquals(Reason.MALFORMED, refusal("not base64!", read));
        assertEquals(Reason.MALFORMED, refusal("AAAA", read));
        assertEquals(Reason.MALFORMED, refusal(TOKEN.substring(0, TOKEN.length() / 2), read));
        assertEquals(Reason.MALFORMED, refusal("A".repeat(Capability.MAX_TOKEN_CHARS + 4), read));
    }

    @Test
    void refusesARevokedToken() {
        CapabilityVerifier verifier = VERIFIER.revoking(RevocationList.empty().with(Capability.tokenId(TOKEN)));
        CapabilityException e = assertThrows(CapabilityException.class,
                () -> verifier.authorize(TOKEN, CapabilityRequest.of(Right.RELAY_READ, NOW)));
        assertEquals(Reason.REVOKED, e.reason());
        assertTrue(e.getMessage().startsWith("revoked: the token is revoked"), e.getMessage());
        VERIFIER.authorize(TOKEN, CapabilityRequest.of(Right.RELAY_READ, NOW));
        verifier.authorize(Fixtures.workerToken(), CapabilityRequest.of(Right.RELAY_READ, NOW));
    }

    @Test
    void revocationIsCheckedAfterTheSignature() {
        CapabilityIssuer forger = new CapabilityIssuer(Fixtures.OTHER_ROOT, NODE.shortForm());
        String forged = forger.issue(WORKER, Rights.of(Right.RELAY_READ), EXPIRY);
        CapabilityVerifier verifier = VERIFIER.revoking(RevocationList.of(Capability.revocationIds(forged)));
        assertEquals(Reason.BAD_SIGNATURE, refusal(verifier, forged, CapabilityRequest.of(Right.RELAY_READ, NOW)));
    }

    @Test
    void verifiesWithTheDidKeyOfTheTransportKey() {
        CapabilityVerifier verifier = CapabilityVerifier.forDid(NODE.transportDidKey(), DidResolver.offline());
        assertEquals(NODE.keys().transport(), verifier.rootKey());
        verifier.authorize(TOKEN, CapabilityRequest.compute(1000, NOW));
    }

    @Test
    void verifiesWithTheNodesDidPeer4AndDidPeer2() {
        DidResolver resolver = DidResolver.offline().knowing(NODE.did());
        for (String did : new String[] { NODE.did(), NODE.shortForm(), NODE.peer2() }) {
            CapabilityVerifier verifier = CapabilityVerifier.forDid(did, resolver);
            assertEquals(NODE.keys().transport(), verifier.rootKey(), did);
            verifier.authorize(TOKEN, CapabilityRequest.of(Right.RELAY_PUBLISH, NOW));
        }
    }

    @Test
    void prefersTheCapabilityDelegationKeyOfADocument() {
        var doc = DidResolver.offline().resolve(NODE.transportDidKey());
        assertTrue(doc.has("capabilityDelegation"));
        CapabilityVerifier.forDidDocument(doc).authorize(TOKEN, CapabilityRequest.of(Right.RELAY_READ, NOW));
    }

    @Test
    void readsTheKeyInEveryFormatDidKeyResolvesTo() {
        for (PublicKeyFormat format : PublicKeyFormat.values()) {
            ObjectNode doc = DidKey.resolve(NODE.transportDidKey(), format);
            assertEquals(NODE.keys().transport(), CapabilityVerifier.forDidDocument(doc).rootKey(), format.name());
        }
    }

    @Test
    void refusesADocumentWhoseDelegationIsAmbiguousOrDangling() {
        ObjectNode doc = DidKey.resolve(NODE.transportDidKey());
        ObjectNode other = DidKey.resolve(DidKey.of(new CapabilityIssuer(Fixtures.OTHER_ROOT, "did:example:x").rootKey()));
        ObjectNode two = doc.deepCopy();
        two.withArray("capabilityDelegation").add(other.get("verificationMethod").get(0).deepCopy());
        assertThrows(IllegalArgumentException.class, () -> CapabilityVerifier.forDidDocument(two));
        ObjectNode dangling = doc.deepCopy();
        dangling.putArray("capabilityDelegation").add("#nowhere");
        assertThrows(IllegalArgumentException.class, () -> CapabilityVerifier.forDidDocument(dangling));
    }

    @Test
    void refusesADidWithoutAnEd25519Key() {
        assertThrows(IllegalArgumentException.class,
                () -> CapabilityVerifier.forDid(NODE.didNostr(), DidResolver.offline()));
        assertThrows(IllegalArgumentException.class,
                () -> CapabilityVerifier.forDid(NODE.agreementDidKey(), DidResolver.offline()));
        assertThrows(IllegalArgumentException.class,
                () -> CapabilityVerifier.of(NODE.keys().agreement()));
    }

    @Test
    void refusesARequestForFuelWithAnotherRight() {
        assertThrows(IllegalArgumentException.class,
                () -> new CapabilityRequest(Right.RELAY_READ, 1, NOW, Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> CapabilityRequest.compute(-1, NOW));
    }

    @Test
    void messagesNeverContainTheToken() {
        CapabilityException e = assertThrows(CapabilityException.class,
                () -> VERIFIER.authorize(TOKEN, CapabilityRequest.compute(5000, NOW)));
        assertFalse(e.getMessage().contains(TOKEN.substring(0, 40)));
    }
}
