package org.fleetmesh.identity.didcomm;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DidUrlTest {

    @Test
    void didsOfDidCoreSyntaxAreAccepted() {
        for (String did : List.of("did:example:alice", "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
                "did:web:example.com%3A8443", "did:example::x", "did:a1:b.c-d_e")) {
            assertTrue(DidUrl.isDid(did), did);
        }
    }

    @Test
    void malformedDidsAreRefused() {
        for (String s : List.of("did:", "did:example", "did:example:", "did:Example:x", "did:ex ample:x", "did:example:a:",
                "did:example:%zz", "did:example:%4", "DID:example:x", "did:example:a#b", "did::x")) {
            assertFalse(DidUrl.isDid(s), s);
        }
    }

    @Test
    void aNodesDidPeer4LongFormIsADidAndItsKeyIdsAreKids(@TempDir Path dir) {
        NodeSecrets s = NodeSecrets.loadOrCreate(dir, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE);
        String did = NodeDidDocument.of(s.publicKeys(), NodeEndpoints.of("wss://relay.example/", "wss://relay.example/mesh",
                "https://relay.example/didcomm")).did();
        assertTrue(did.length() > 1000, "a long form is long: " + did.length());
        assertTrue(DidUrl.isDid(did));
        assertTrue(DidUrl.isKid(did + "#key-2"));
    }
}
