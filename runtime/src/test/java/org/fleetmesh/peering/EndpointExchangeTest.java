package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.Optional;

import org.fleetmesh.identity.EndpointAnnouncement;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.junit.jupiter.api.Test;

/** MESH-ENDPOINT: a peer's signed kind 30802, checked against the peer the link proved. */
class EndpointExchangeTest {
    private static final NodeEndpoints B_MOVED = NodeEndpoints.of("wss://b2.example/", "wss://b2.example/mesh",
            "https://b2.example/didcomm");
    private static final PeerIdentity B = new PeerIdentity(Nodes.B.did(), Nodes.B.transportKey(),
            Optional.of(Nodes.B_KEYS.publicKeys().nostr()));
    private static final PeerIdentity C = new PeerIdentity(Nodes.C.did(), Nodes.C.transportKey(),
            Optional.of(Nodes.C_KEYS.publicKeys().nostr()));

    private static String announcement(org.fleetmesh.identity.NodeSecrets keys, NodeEndpoints at) {
        return EndpointExchange.encode(EndpointAnnouncement.sign(keys, NodeDidDocument.of(keys.publicKeys(), at),
                Nodes.T0).event());
    }

    @Test
    void thePeersOwnAnnouncementIsLearnt() throws Exception {
        EndpointAnnouncement a = EndpointExchange.read(announcement(Nodes.B_KEYS, B_MOVED), B);
        assertEquals(URI.create("wss://b2.example/mesh"), a.endpoints().mesh());
        assertEquals(B.shortDid(), a.shortForm());
        assertEquals(Nodes.T0, a.createdAt());
    }

    @Test
    void anotherNodesAnnouncementIsRefused() {
        MeshRefusedException e = assertThrows(MeshRefusedException.class,
                () -> EndpointExchange.read(announcement(Nodes.C_KEYS, Nodes.C_AT), B));
        assertEquals("invalid: the endpoint announcement is not signed by this link's peer", e.refusal().reason());
    }

    @Test
    void anAlteredAnnouncementIsRefused() {
        String altered = announcement(Nodes.B_KEYS, B_MOVED).replace("wss://b2.example/mesh", "wss://evil.example/mesh");
        MeshRefusedException e = assertThrows(MeshRefusedException.class, () -> EndpointExchange.read(altered, B));
        assertEquals(Refusal.Kind.INVALID, e.refusal().kind(), e.refusal().reason());
    }

    @Test
    void overALinkTheFirstIsLearntAndASecondIsRefusedUnexpected() {
        Nodes.TestClock clock = new Nodes.TestClock(Nodes.T0);
        java.util.List<String> sentByA = new java.util.ArrayList<>();
        java.util.List<EndpointAnnouncement> learnt = new java.util.ArrayList<>();
        java.util.List<String> inner = new java.util.ArrayList<>();
        MeshLink[] b = new MeshLink[1];
        MeshLink a = new MeshLink(Nodes.initiator(Nodes.A, clock, new SeenProofs()), new MeshLink.Socket() {
            @Override
            public void send(String text) {
                sentByA.add(text);
                b[0].receive(text);
            }

            @Override
            public void close(int code, String reason) {
            }
        });
        b[0] = new MeshLink(Nodes.responder(Nodes.B, clock, new SeenProofs()), new MeshLink.Socket() {
            @Override
            public void send(String text) {
                a.receive(text);
            }

            @Override
            public void close(int code, String reason) {
            }
        });
        a.open();
        b[0].open();
        assertTrue(a.peer().isPresent());
        sentByA.clear();
        EndpointExchange x = EndpointExchange.open(a, Optional.empty(), inner::add, learnt::add);
        String fromB = announcement(Nodes.B_KEYS, B_MOVED);
        x.receive(fromB);
        x.receive(fromB);
        x.receive("[\"MESH-OTHER\"]");
        assertEquals(1, learnt.size());
        assertEquals(java.util.List.of("[\"MESH-ERR\",\"unexpected: MESH-ENDPOINT is sent once per link\"]"), sentByA);
        assertEquals(java.util.List.of("[\"MESH-OTHER\"]"), inner);
    }

    @Test
    void malformedAndOversizeMessagesAreRefusedMalformed() {
        for (String bad : new String[] { "[\"MESH-ENDPOINT\"]", "[\"MESH-ENDPOINT\",1]", "[\"MESH-ENDPOINT\",{}]",
                "[\"MESH-ENDPOINT\",{" + "\"x\":1,".repeat(3000) + "\"y\":2}]" }) {
            MeshRefusedException e = assertThrows(MeshRefusedException.class, () -> EndpointExchange.read(bad, B));
            assertEquals(Refusal.Kind.MALFORMED, e.refusal().kind(), bad.length() + ": " + e.refusal().reason());
        }
        assertTrue(assertThrows(MeshRefusedException.class, () -> EndpointExchange.read(
                "[\"MESH-ENDPOINT\",{" + "\"x\":1,".repeat(3000) + "\"y\":2}]", C)).refusal().reason()
                .startsWith("malformed: MESH-ENDPOINT is at most 16384 characters"));
    }
}
