package org.fleetmesh.identity;

import static org.fleetmesh.identity.DocumentAssertions.errorOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.node.ObjectNode;

class DidResolverTest {
    private static final DidResolver RESOLVER = DidResolver.offline();
    private static final DidPeer4 PEER4 = DidPeer4.create(DocumentAssertions.json("""
            {"verificationMethod":[{"id":"#key-1","type":"Multikey","publicKeyMultibase":"%s"}],
             "authentication":["#key-1"]}""".formatted(TestKeys.ED25519)));

    @ParameterizedTest
    @ValueSource(strings = { "did:key:" + TestKeys.SECP256K1, "did:peer:0" + TestKeys.ED25519,
            "did:peer:2.V" + TestKeys.ED25519 + ".E" + TestKeys.X25519,
            "did:nostr:124c0fa99407182ece5a24fad9b7f6674902fc422843d3128d38a0afbee0fdd2" })
    void resolvesEachSupportedMethodToADocumentWithItsId(String did) {
        assertEquals(did, RESOLVER.resolve(did).get("id").asText());
    }

    @Test
    void resolvesADidPeer4LongForm() {
        assertEquals(PEER4.resolve(), RESOLVER.resolve(PEER4.longForm()));
    }

    @Test
    void doesNotFindAShortFormWhoseLongFormItHasNotSeen() {
        DidResolutionException e = assertThrows(DidResolutionException.class, () -> RESOLVER.resolve(PEER4.shortForm()));
        assertEquals(ResolutionError.NOT_FOUND, e.error());
        assertTrue(e.getMessage().startsWith("notFound: no long form is known for " + PEER4.shortForm()), e.getMessage());
    }

    @Test
    void resolvesAShortFormOnceItKnowsTheLongForm() {
        DidResolver knowing = RESOLVER.knowing(PEER4.longForm());
        ObjectNode doc = knowing.resolve(PEER4.shortForm());
        assertEquals(PEER4.shortForm(), doc.get("id").asText());
        assertEquals(PEER4.longForm(), doc.get("alsoKnownAs").get(0).asText());
        assertEquals(PEER4.shortForm(), doc.get("verificationMethod").get(0).get("controller").asText());
    }

    @Test
    void staysUnchangedWhenAnotherResolverLearnsALongForm() {
        RESOLVER.knowing(List.of(PEER4.longForm()));
        assertFalse(RESOLVER.knowsShortForm(PEER4.shortForm()));
    }

    @Test
    void refusesToLearnALongFormWhoseHashDoesNotMatch() {
        String other = DidPeer4.create(DocumentAssertions.json("{\"alsoKnownAs\":[]}")).longForm();
        String broken = PEER4.shortForm() + other.substring(other.lastIndexOf(':'));
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> RESOLVER.knowing(broken)));
    }

    @Test
    void doesNotSupportOtherMethods() {
        DidResolutionException e = assertThrows(DidResolutionException.class, () -> RESOLVER.resolve("did:web:example.com"));
        assertEquals("methodNotSupported: did:web is not supported (did:key, did:peer and did:nostr are)", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = { "key:" + TestKeys.ED25519, "did:", "did:KEY:" + TestKeys.ED25519, "did:key" })
    void refusesWhatIsNotADid(String notADid) {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> RESOLVER.resolve(notADid)));
    }

    @Test
    void refusesADidUrl() {
        assertEquals(ResolutionError.INVALID_DID,
                errorOf(() -> RESOLVER.resolve("did:key:" + TestKeys.ED25519 + "#" + TestKeys.ED25519)));
    }

    @Test
    void refusesAWrongMulticodecForTheContext() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_TYPE, errorOf(() -> RESOLVER.resolve("did:peer:2.E" + TestKeys.ED25519)));
    }

    @Test
    void refusesAWrongKeyLength() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY_LENGTH, errorOf(() -> RESOLVER.resolve("did:key:" + TestKeys.ed25519TooShort())));
    }

    @Test
    void refusesASecp256k1PointNotOnTheCurve() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY, errorOf(() -> RESOLVER.resolve("did:key:" + TestKeys.secp256k1OffCurve())));
    }

    @Test
    void refusesAnEd25519KeyThatDoesNotDecode() {
        assertEquals(ResolutionError.INVALID_PUBLIC_KEY, errorOf(() -> RESOLVER.resolve("did:peer:0" + TestKeys.ed25519OffCurve())));
    }

    @Test
    void refusesBadBase58Characters() {
        assertEquals(ResolutionError.INVALID_DID,
                errorOf(() -> RESOLVER.resolve("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2dIl")));
    }

    @Test
    void refusesABadMultibasePrefix() {
        assertEquals(ResolutionError.INVALID_DID, errorOf(() -> RESOLVER.resolve("did:key:m" + TestKeys.ED25519.substring(1))));
    }

    @Test
    void refusesANumalgo4HashMismatch() {
        String other = DidPeer4.create(DocumentAssertions.json("{\"alsoKnownAs\":[]}")).longForm();
        String broken = PEER4.shortForm() + other.substring(other.lastIndexOf(':'));
        DidResolutionException e = assertThrows(DidResolutionException.class, () -> RESOLVER.resolve(broken));
        assertEquals("invalidDid: did:peer:4 hash does not match the encoded document", e.getMessage());
    }
}
