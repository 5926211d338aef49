package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Optional;

import org.fleetmesh.spi.peers.PeerStore;
import org.fleetmesh.spi.peers.PeerStore.Source;
import org.fleetmesh.spi.peers.PeerStore.StoredPeer;
import org.fleetmesh.storage.postgres.peers.PgPeerStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Declared peers in PostgreSQL (V3__peers.sql): declarations, learnt URLs, the operator's word over an old one. */
class PgPeerStoreTest extends PgFixture {
    static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
    static final String KEY = "did:peer:4zQmNNPJUM8fqAjuEuUbDHh6qRTGY9r8QQab2J9JaitaK7xU";
    PeerStore peers;

    @BeforeEach
    void clean() throws Exception {
        sql("truncate mesh_peer, mesh_peer_rotation");
        peers = new PgPeerStore(store.dataSource());
    }

    @Test
    void aDeclaredPeerIsStoredAndListed() {
        StoredPeer p = peers.declare(KEY, KEY, "ws://b:1/mesh", Source.CONFIG, T);
        assertEquals(new StoredPeer(KEY, KEY, "ws://b:1/mesh", "ws://b:1/mesh", Source.CONFIG, T, Optional.empty()), p);
        assertEquals(Optional.of(p), peers.find(KEY));
        assertEquals(1, peers.all().size());
    }

    @Test
    void aPeersFederateFiltersAreStoredKeptByLaterDeclarationsAndMovesAndCleared() {
        assertFalse(peers.federate(KEY, Optional.of("[]")), "no such peer");
        peers.declare(KEY, KEY, "ws://b:1/mesh", Source.ADMIN, T);
        assertTrue(peers.federate(KEY, Optional.of("[{\"kinds\":[1]}]")));
        assertEquals(Optional.of("[{\"kinds\":[1]}]"), peers.find(KEY).orElseThrow().federate());
        peers.moved(KEY, "ws://b:2/mesh", 100);
        StoredPeer again = peers.declare(KEY, KEY, "ws://b:3/mesh", Source.ADMIN, T.plusSeconds(60));
        assertEquals(Optional.of("[{\"kinds\":[1]}]"), again.federate(), "a new declaration keeps the filters");
        assertTrue(peers.federate(KEY, Optional.empty()));
        assertEquals(Optional.empty(), peers.find(KEY).orElseThrow().federate());
    }

    @Test
    void aLearntUrlSurvivesTheSameDeclarationAndOnlyANewerAnnouncementReplacesIt() {
        peers.declare(KEY, KEY, "ws://b:1/mesh", Source.CONFIG, T);
        assertTrue(peers.moved(KEY, "ws://b:2/mesh", 100));
        assertFalse(peers.moved(KEY, "ws://b:0/mesh", 99), "an older announcement");
        assertFalse(peers.moved(KEY, "ws://b:0/mesh", 100), "the same one again");
        StoredPeer again = peers.declare(KEY, KEY, "ws://b:1/mesh", Source.CONFIG, T.plusSeconds(60));
        assertEquals("ws://b:2/mesh", again.url(), "a restart with the same configuration keeps the learnt URL");
        assertEquals(Optional.of(100L), again.announcedAt());
        assertEquals(T, again.added(), "first declared then");
    }

    @Test
    void aChangedConfiguredUrlReplacesALearntOne() {
        peers.declare(KEY, KEY, "ws://b:1/mesh", Source.CONFIG, T);
        peers.moved(KEY, "ws://b:2/mesh", 100);
        StoredPeer p = peers.declare(KEY, KEY, "wss://b.example/mesh", Source.ADMIN, T);
        assertEquals("wss://b.example/mesh", p.url());
        assertEquals(Optional.empty(), p.announcedAt());
        assertEquals(Source.ADMIN, p.source());
        assertTrue(peers.moved(KEY, "ws://b:3/mesh", 50), "after the operator's word any announcement counts again");
    }

    @Test
    void aRotationMovesTheDeclarationWholeAndTheFirstOneStays() {
        String next = "did:peer:4zQmSEkjbtKBXP7Mdf3DiRDpprLiu2TxJxKJG2cWjDdNnC3f";
        peers.declare(KEY, KEY, "ws://b:1/mesh", Source.CONFIG, T);
        peers.moved(KEY, "ws://b:2/mesh", 100);
        peers.federate(KEY, Optional.of("[{\"kinds\":[1]}]"));
        PeerStore.Rotation r = new PeerStore.Rotation(KEY, next, next + ":zlong", "h.j.w", 1_767_225_000L, T.plusSeconds(5));
        assertTrue(peers.rotate(r));
        assertEquals(Optional.empty(), peers.find(KEY));
        assertEquals(new StoredPeer(next, next + ":zlong", "ws://b:2/mesh", "ws://b:1/mesh", Source.CONFIG, T,
                Optional.of(100L), Optional.of("[{\"kinds\":[1]}]")), peers.find(next).orElseThrow());
        assertEquals(java.util.List.of(r), peers.rotations());
        // a second hand-over of the same old key, to another DID, is not recorded and moves nothing
        assertFalse(peers.rotate(new PeerStore.Rotation(KEY, "did:peer:4zQmOther", "did:peer:4zQmOther", "x.y.z", 1L,
                T.plusSeconds(9))));
        assertEquals(java.util.List.of(r), peers.rotations());
        assertEquals(Optional.empty(), peers.find("did:peer:4zQmOther"));
    }

    @Test
    void aRotationKeepsADeclarationTheNewDidHadAndRecordsAnUndeclaredOne() {
        String next = "did:peer:4zQmSEkjbtKBXP7Mdf3DiRDpprLiu2TxJxKJG2cWjDdNnC3f";
        peers.declare(KEY, KEY, "ws://b:1/mesh", Source.CONFIG, T);
        StoredPeer own = peers.declare(next, next, "ws://b:9/mesh", Source.ADMIN, T.plusSeconds(1));
        assertTrue(peers.rotate(new PeerStore.Rotation(KEY, next, next, "h.j.w", 1L, T.plusSeconds(5))));
        assertEquals(java.util.List.of(own), peers.all());
        assertTrue(peers.rotate(new PeerStore.Rotation("did:peer:4zQmNone", next, next, "h.j.w", 1L, T)),
                "recorded although nothing was declared under it");
        assertEquals(2, peers.rotations().size());
    }

    @Test
    void removingAPeerForgetsIt() {
        assertFalse(peers.remove(KEY));
        peers.declare(KEY, KEY, "ws://b:1/mesh", Source.ADMIN, T);
        assertTrue(peers.remove(KEY));
        assertEquals(Optional.empty(), peers.find(KEY));
        assertFalse(peers.moved(KEY, "ws://b:2/mesh", 1), "an unknown peer is not recorded");
    }
}
