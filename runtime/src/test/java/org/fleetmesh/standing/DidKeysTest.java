package org.fleetmesh.standing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.fleetmesh.identity.DidKey;
import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.peering.PeerIdentity;
import org.junit.jupiter.api.Test;

/** The memo of DID resolutions: the resolver's answers, and no more of them than its bound, whatever strangers name. */
class DidKeysTest {
    private static PubKey key(int i) {
        byte[] secret = new byte[32];
        secret[31] = (byte) (i & 0xff);
        secret[30] = (byte) ((i >> 8) & 0xff);
        secret[0] = 1;
        return new PubKey(Schnorr.publicKey(secret));
    }

    @Test
    void answersWhatTheResolverAnswers() {
        String did = TestFindings.SUBJECT_DID;
        assertEquals(DidResolver.offline().nostrKeys(did), DidKeys.of(did));
        assertEquals(List.of(TestFindings.SUBJECT_KEY), DidKeys.of(did));
        assertEquals(PeerIdentity.shortForm(did), DidKeys.shortForm(did));
        assertEquals("did:key:z6Mk", DidKeys.shortForm("did:key:z6Mk"));
        String shortForm = PeerIdentity.shortForm(did);
        DidResolutionException first = assertThrows(DidResolutionException.class, () -> DidKeys.of(shortForm));
        DidResolutionException again = assertThrows(DidResolutionException.class, () -> DidKeys.of(shortForm));
        assertEquals(first.getMessage(), again.getMessage());
    }

    @Test
    void remembersAtMostItsBound() {
        for (int i = 0; i < DidKeys.REMEMBERED + 100; i++) {
            String did = DidKey.of(Multikey.nostr(key(i)));
            assertEquals(List.of(key(i)), DidKeys.of(did));
            DidKeys.shortForm("did:peer:4zQm" + i + ":not-a-document");
        }
        int[] n = DidKeys.remembered();
        assertTrue(n[0] <= DidKeys.REMEMBERED && n[1] <= DidKeys.REMEMBERED, n[0] + ", " + n[1]);
        assertEquals(DidKeys.REMEMBERED, n[0]);
    }
}
