package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import java.util.Optional;

import org.fleetmesh.identity.DidKey;
import org.junit.jupiter.api.Test;

/** FLEETMESH_PEERS entries and how a proven peer is matched to its declaration. */
class PeerAddressTest {
    private static final String B_LONG = Nodes.B.did();
    private static final String B_SHORT = PeerIdentity.shortForm(B_LONG);
    private static final PeerIdentity B = new PeerIdentity(B_LONG, Nodes.B.transportKey(), Optional.empty());
    private static final PeerIdentity C = new PeerIdentity(Nodes.C.did(), Nodes.C.transportKey(), Optional.empty());

    @Test
    void aListOfShortLongAndDidKeyPeersParses() {
        String didKey = DidKey.of(Nodes.C.transportKey());
        List<PeerAddress> peers = PeerAddress.parseList(" " + B_SHORT + "@ws://127.0.0.1:7778/mesh , ,"
                + didKey + "@wss://c.example/mesh");
        assertEquals(2, peers.size());
        assertEquals(B_SHORT, peers.get(0).key());
        assertEquals(URI.create("ws://127.0.0.1:7778/mesh"), peers.get(0).url());
        assertEquals(didKey, peers.get(1).key());
        assertEquals(B_SHORT, PeerAddress.parse(B_LONG + "@ws://b.example/mesh").key(), "a long form keys by its short form");
    }

    @Test
    void aPeerMatchesTheDidItProvedInAnyDeclaredForm() {
        assertTrue(PeerAddress.parse(B_SHORT + "@ws://b/mesh").matches(B));
        assertTrue(PeerAddress.parse(B_LONG + "@ws://b/mesh").matches(B));
        assertTrue(PeerAddress.parse(DidKey.of(Nodes.B.transportKey()) + "@ws://b/mesh").matches(B));
        assertFalse(PeerAddress.parse(B_SHORT + "@ws://b/mesh").matches(C));
        assertFalse(PeerAddress.parse(DidKey.of(Nodes.B.transportKey()) + "@ws://b/mesh").matches(C));
    }

    @Test
    void badEntriesAreRefusedWithTheirReason() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PeerAddress.parse("ws://b/mesh")).getMessage()
                .startsWith("a peer is <did>@<ws-url>"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PeerAddress.parse("did:web:b.example@ws://b/mesh"))
                .getMessage().startsWith("a peer is declared by did:peer:4 or did:key"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PeerAddress.parse(B_SHORT + "@http://b/mesh"))
                .getMessage().startsWith("a peer's URL is ws:// or wss://"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> PeerAddress.parse(DidKey.of(Nodes.B_KEYS.publicKeys().nostrMultikey()) + "@ws://b/mesh"))
                .getMessage().startsWith("a peer's did:key is its Ed25519 transport key"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> PeerAddress.parseList(B_SHORT + "@ws://b/mesh," + B_LONG + "@ws://other/mesh")).getMessage()
                .endsWith("is declared twice"));
    }

    @Test
    void aLoopbackAnnouncementDoesNotReplaceAPublicUrl() {
        URI pub = URI.create("wss://b.example/mesh");
        assertFalse(PeerAddress.worthLearning(pub, URI.create("ws://localhost:7777/mesh")));
        assertFalse(PeerAddress.worthLearning(pub, URI.create("ws://127.0.0.1:7777/mesh")));
        assertTrue(PeerAddress.worthLearning(pub, URI.create("wss://b2.example/mesh")));
        assertTrue(PeerAddress.worthLearning(URI.create("ws://127.0.0.1:1/mesh"), URI.create("ws://localhost:2/mesh")));
        assertFalse(PeerAddress.worthLearning(pub, pub));
    }
}
