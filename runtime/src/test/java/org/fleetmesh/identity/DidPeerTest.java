package org.fleetmesh.identity;

import static org.fleetmesh.identity.DocumentAssertions.errorOf;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** did:peer numalgo 0 and the numalgo dispatch. */
class DidPeerTest {
    /** The spec: "did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH is equivalent to did:peer:0z6Mkp...". */
    @Test
    void numalgo0NamesTheSameKeyAsTheSpecsDidKey() {
        String key = "z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH";
        assertEquals("did:peer:0" + key, DidPeer.numalgo0(DidKey.parse("did:key:" + key)));
        assertEquals(DidKey.parse("did:key:" + key), DidPeer.parseNumalgo0("did:peer:0" + key));
    }

    @Test
    void numalgo0ResolvesLikeDidKeyUnderItsOwnId() {
        String did = "did:peer:0" + TestKeys.ED25519;
        ObjectNode doc = DidPeer.resolve(did);
        assertEquals(did, doc.get("id").asText());
        assertEquals(did + "#" + TestKeys.ED25519, doc.get("verificationMethod").get(0).get("id").asText());
        assertEquals(did + "#" + TestKeys.ED25519_AS_X25519, doc.get("keyAgreement").get(0).asText());
    }

    @Test
    void refusesNumalgo0WithoutBase58btc() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer.resolve("did:peer:0" + TestKeys.ED25519.substring(1))));
    }

    @Test
    void refusesNumalgo0WithAKeyOffTheCurve() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY, errorOf(() -> DidPeer.resolve("did:peer:0" + TestKeys.ed25519OffCurve())));
    }

    @Test
    void doesNotSupportNumalgo1() {
        assertEquals(ResolutionError.METHOD_NOT_SUPPORTED,
                errorOf(() -> DidPeer.resolve("did:peer:1zQmZMygzYqNwU6Uhmewx5Xepf2VLp5S4HLSwwgf2aiKZuwa")));
    }

    @Test
    void refusesANumalgoThatIsNotADigit() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> DidPeer.resolve("did:peer:x" + TestKeys.ED25519)));
    }
}
