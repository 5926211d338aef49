package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.peering.HandshakeSettings;
import org.fleetmesh.peering.MeshHandshake;
import org.fleetmesh.peering.MeshLink;
import org.fleetmesh.peering.MeshSigner;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.SeenProofs;
import org.fleetmesh.relay.client.Dialer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;

/**
 * The bounds of a packaged node's {@code /mesh} against real WebSocket connections: connection caps (total and per
 * address), the handshake timeout and the idle timeout after MESH-OK, each set small. (The send budget is shown by
 * MeshOverWebSocketTest: today a node only answers what it reads, and a node whose answers back up stops reading, so
 * no message of version 1 makes it queue; the budget bounds what later protocols send on their own.)
 */
class MeshBoundsIT {
    static MeshnodeProcess capped;
    static MeshnodeProcess timed;
    static Vertx vertx;
    static Path ourDir;
    static MeshSigner us;
    /** A second peer identity: a node keeps one link per peer, so two links at once need two peers. */
    static MeshSigner second;

    @BeforeAll
    static void start() throws Exception {
        capped = MeshnodeProcess.start("mesh-caps", Map.of("FLEETMESH_MESH_MAX_CONNECTIONS", "3",
                "FLEETMESH_MESH_MAX_CONNECTIONS_PER_ADDRESS", "2"));
        timed = MeshnodeProcess.start("mesh-timeouts", Map.of("FLEETMESH_MESH_HANDSHAKE_TIMEOUT", "2s",
                "FLEETMESH_MESH_IDLE_TIMEOUT", "2s"));
        vertx = Vertx.vertx();
        ourDir = Files.createTempDirectory("mesh-bounds");
        NodeSecrets secrets = NodeSecrets.loadOrCreate(ourDir, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE);
        us = MeshSigner.forNode(secrets, NodeEndpoints.of("ws://127.0.0.1:1/", "ws://127.0.0.1:1/mesh",
                "http://127.0.0.1:1/didcomm"));
        NodeSecrets secondKeys = NodeSecrets.loadOrCreate(Files.createDirectories(ourDir.resolve("second")),
                NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE);
        second = MeshSigner.forNode(secondKeys, NodeEndpoints.of("ws://127.0.0.1:2/", "ws://127.0.0.1:2/mesh",
                "http://127.0.0.1:2/didcomm"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        for (MeshnodeProcess node : new MeshnodeProcess[] { capped, timed }) {
            if (node != null) {
                node.close();
            }
        }
        MeshnodeProcess.deleteDataDir(ourDir);
    }

    /** A raw WebSocket to a node's /mesh that records what arrives and how it closed. */
    static final class Peer {
        final BlockingQueue<String> received = new LinkedBlockingQueue<>();
        final AtomicInteger count = new AtomicInteger();
        final CompletableFuture<String> closed = new CompletableFuture<>();
        final WebSocketClient client;
        WebSocket ws;
        MeshLink link;

        Peer(WebSocketClientOptions options) {
            client = vertx.createWebSocketClient(options);
        }

        /** Connects; with {@code authenticate}, runs our initiator handshake over the socket first. */
        static Peer connect(MeshnodeProcess node, WebSocketClientOptions options, boolean authenticate) throws Exception {
            return connect(node, options, authenticate, us);
        }

        static Peer connect(MeshnodeProcess node, WebSocketClientOptions options, boolean authenticate, MeshSigner as)
                throws Exception {
            return connect(node, "127.0.0.1", options, authenticate, as);
        }

        static Peer connect(MeshnodeProcess node, String host, WebSocketClientOptions options, boolean authenticate,
                MeshSigner as) throws Exception {
            Peer p = new Peer(options);
            var ws = p.client.webSocket();
            if (authenticate) {
                p.link = new MeshLink(MeshHandshake.initiator(as, HandshakeSettings.DEFAULTS, new SeenProofs(),
                        Optional.empty()), new MeshLink.Socket() {
                            @Override
                            public void send(String text) {
                                ws.writeTextMessage(text);
                            }

                            @Override
                            public void close(int code, String reason) {
                                ws.close((short) code, reason);
                            }
                        });
                p.link.open();
            }
            // handlers before connecting, and Dialer.open: the node sends its first message as soon as the socket opens
            ws.textMessageHandler(m -> {
                p.count.incrementAndGet();
                p.received.add(m);
                if (p.link != null) {
                    p.link.receive(m);
                }
            });
            ws.closeHandler(v -> p.closed.complete(ws.closeStatusCode() + " " + ws.closeReason()));
            p.ws = ws;
            Dialer.open(vertx, ws, new WebSocketConnectOptions().setHost(host).setPort(node.port()).setURI("/mesh"))
                    .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            if (authenticate) {
                PeerIdentity peer = p.link.authenticated().toCompletableFuture().get(20, TimeUnit.SECONDS);
                assertTrue(peer.did().startsWith("did:peer:4"), peer.did());
            }
            return p;
        }

        String next() throws InterruptedException {
            String m = received.poll(20, TimeUnit.SECONDS);
            if (m == null) {
                throw new AssertionError("nothing arrived within 20 s");
            }
            return m;
        }

        String awaitClose() throws Exception {
            return closed.get(30, TimeUnit.SECONDS);
        }

        void close() throws Exception {
            if (!closed.isDone()) {
                ws.close();
                awaitClose();
            }
            client.close();
        }
    }

    static WebSocketClientOptions from(String localAddress) {
        return new WebSocketClientOptions().setLocalAddress(localAddress);
    }

    @Test
    void connectionsPastTheCapsAreRefusedBusyWithTheReason() throws Exception {
        List<Peer> open = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                Peer p = Peer.connect(capped, from("127.0.0.1"), false);
                assertTrue(p.next().startsWith("[\"MESH-HELLO\""));
                open.add(p);
            }
            Peer third = Peer.connect(capped, from("127.0.0.1"), false);
            open.add(third);
            assertEquals("[\"MESH-ERR\",\"busy: this node holds 2 /mesh connections from your address, its limit per"
                    + " address\"]", third.next());
            assertEquals("1013 busy: this node holds 2 /mesh connections from your address, its limit per address",
                    third.awaitClose());

            Peer other = Peer.connect(capped, from("127.0.0.2"), false);
            open.add(other);
            assertTrue(other.next().startsWith("[\"MESH-HELLO\""), "another address still gets in");
            Peer fourth = Peer.connect(capped, from("127.0.0.3"), false);
            open.add(fourth);
            assertEquals("[\"MESH-ERR\",\"busy: this node holds 3 /mesh connections, its limit; try again later\"]",
                    fourth.next());
            assertEquals("1013 busy: this node holds 3 /mesh connections, its limit; try again later", fourth.awaitClose());

            // a closed connection gives its place back
            open.get(0).close();
            Peer again = Peer.connect(capped, from("127.0.0.3"), false);
            open.add(again);
            String first = again.next();
            for (int i = 0; i < 50 && first.startsWith("[\"MESH-ERR\",\"busy:"); i++) {
                again.close(); // the node may not have seen the close yet
                Thread.sleep(100);
                again = Peer.connect(capped, from("127.0.0.3"), false);
                open.add(again);
                first = again.next();
            }
            assertTrue(first.startsWith("[\"MESH-HELLO\""), first);
        } finally {
            for (Peer p : open) {
                p.close();
            }
        }
    }

    /** A fresh identity of a test peer (its own three keys). */
    static MeshSigner freshSigner(String name) throws Exception {
        NodeSecrets keys = NodeSecrets.loadOrCreate(Files.createDirectories(ourDir.resolve(name)),
                NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE);
        return MeshSigner.forNode(keys, NodeEndpoints.of("ws://127.0.0.1:3/", "ws://127.0.0.1:3/mesh",
                "http://127.0.0.1:3/didcomm"));
    }

    /**
     * New identities from one address (not loopback) are held to fleetmesh.mesh.new-peers-per-hour: each would cost the
     * node a stored grant, a link record and an account; past the bound the link is refused busy after its handshake,
     * while an identity the node already knows links again.
     */
    @Test
    void newIdentitiesFromOneAddressAreHeldToTheirHourlyBound() throws Exception {
        java.util.Optional<java.net.InetAddress> own = MeshnodeProcess.nonLoopbackAddress();
        org.junit.jupiter.api.Assumptions.assumeTrue(own.isPresent(), "this host has no address but loopback");
        String host = own.get().getHostAddress();
        try (MeshnodeProcess node = MeshnodeProcess.start("mesh-newcomers", Map.of("QUARKUS_HTTP_HOST", "0.0.0.0",
                "FLEETMESH_MESH_NEW_PEERS_PER_HOUR", "2", "FLEETMESH_GRANTS_WINDOW", "1s"))) {
            MeshSigner first = freshSigner("newcomer-1");
            List<Peer> open = new ArrayList<>();
            try {
                open.add(Peer.connect(node, host, new WebSocketClientOptions(), true, first));
                open.add(Peer.connect(node, host, new WebSocketClientOptions(), true, freshSigner("newcomer-2")));
                Peer third = Peer.connect(node, host, new WebSocketClientOptions(), true, freshSigner("newcomer-3"));
                assertEquals("1013 busy: this address has linked 2 new identities this hour, the most this node takes;"
                        + " try again later", third.awaitClose());
                assertTrue(open.get(1).ws.isClosed() == false, "the ones taken stay linked");
                // the first is known now (its link record is written within a tier window): it links again
                open.remove(0).ws.close();
                String again = null;
                for (int i = 0; i < 40; i++) {
                    MeshnodeProcess.sleep(500);
                    Peer p = Peer.connect(node, host, new WebSocketClientOptions(), true, first);
                    String closed = p.closed.getNow(null);
                    MeshnodeProcess.sleep(500);
                    closed = p.closed.getNow(null);
                    if (closed == null) {
                        open.add(p);
                        again = "linked";
                        break;
                    }
                    again = closed;
                }
                assertEquals("linked", again, "a known identity is not a newcomer");
            } finally {
                for (Peer p : open) {
                    p.ws.close();
                }
            }
        }
    }

    /**
     * Of fleetmesh.mesh.max-connections, fleetmesh.mesh.reserved-connections are kept for peers the node declared or
     * trusts: new identities hold the others at most, past them a new one is refused busy after its handshake, while a
     * declared peer still links; a stranger's closed link gives its place back.
     */
    @Test
    void strangersCannotHoldThePlacesKeptForDeclaredPeers() throws Exception {
        try (MeshnodeProcess node = MeshnodeProcess.start("mesh-reserved", Map.of("FLEETMESH_MESH_MAX_CONNECTIONS", "4",
                "FLEETMESH_MESH_RESERVED_CONNECTIONS", "2",
                // declared at an address where nothing listens: the node's own dials fail, our link comes in
                "FLEETMESH_PEERS", us.did() + "@ws://127.0.0.1:1/mesh"))) {
            List<Peer> open = new ArrayList<>();
            try {
                open.add(Peer.connect(node, from("127.0.0.1"), true, freshSigner("reserved-1")));
                open.add(Peer.connect(node, from("127.0.0.1"), true, freshSigner("reserved-2")));
                Peer third = Peer.connect(node, from("127.0.0.1"), true, freshSigner("reserved-3"));
                assertEquals("1013 busy: this node keeps 2 of its 4 /mesh places for peers it declared or trusts; new"
                        + " peers hold the rest; try again later", third.awaitClose());
                Peer declared = Peer.connect(node, from("127.0.0.1"), true, us);
                open.add(declared);
                MeshnodeProcess.sleep(1000);
                assertEquals(null, declared.closed.getNow(null), "the declared peer stays linked");
                for (Peer p : open.subList(0, 2)) {
                    assertEquals(null, p.closed.getNow(null), "the strangers taken stay linked");
                }
                open.remove(0).close();
                String fourth = null;
                for (int i = 0; i < 40; i++) {
                    Peer p = Peer.connect(node, from("127.0.0.1"), true, freshSigner("reserved-4-" + i));
                    MeshnodeProcess.sleep(500);
                    fourth = p.closed.getNow(null);
                    if (fourth == null) {
                        open.add(p);
                        break;
                    }
                }
                assertEquals(null, fourth, "the closed stranger's place is taken by another");
            } finally {
                for (Peer p : open) {
                    p.ws.close();
                }
            }
        }
    }

    @Test
    void aConnectionThatNeverCompletesTheHandshakeIsClosedAfterTheTimeout() throws Exception {
        Peer silent = Peer.connect(timed, new WebSocketClientOptions(), false);
        try {
            assertTrue(silent.next().startsWith("[\"MESH-HELLO\""));
            assertEquals("[\"MESH-ERR\",\"timeout: the handshake did not complete within 2 s\"]", silent.next());
            assertEquals("1008 timeout: the handshake did not complete within 2 s", silent.awaitClose());
        } finally {
            silent.close();
        }
    }

    @Test
    void aSilentAuthenticatedLinkIsClosedIdleWhileATalkingOneStays() throws Exception {
        Peer silent = Peer.connect(timed, new WebSocketClientOptions(), true);
        Peer talking = Peer.connect(timed, new WebSocketClientOptions(), true, second);
        try {
            long talked = vertx.setPeriodic(500, id -> talking.ws.writeTextMessage("[\"PING\"]"));
            String idle = "idle: nothing received for 2 s; closing the link";
            assertEquals("1000 " + idle, silent.awaitClose());
            assertTrue(silent.received.contains("[\"MESH-ERR\",\"" + idle + "\"]"), silent.received.toString());
            // the talking link is still answered after the silent one was closed
            int before = talking.count.get();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (talking.count.get() < before + 3 && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            vertx.cancelTimer(talked);
            assertTrue(talking.count.get() >= before + 3, "the talking link went quiet: " + talking.received);
            assertTrue(!talking.closed.isDone(), "the talking link was closed: " + talking.closed.getNow(""));
        } finally {
            silent.close();
            talking.close();
        }
    }

    /**
     * A peer that stops reading after making the node queue more than its send budget for it (Negentropy opens of a
     * declared shard, each answered with every id) is closed {@code slow}, and the TCP connection is dropped within
     * the close grace (5 s) though the close frame cannot reach it. Before, the close frame waited behind the unread
     * bytes, Vert.x's closing timeout never started, and the link stayed up, holding its place, until the peer left.
     */
    @Test
    void aPeerThatStopsReadingIsDroppedSoonAfterItsSlowClose() throws Exception {
        try (MeshnodeProcess node = MeshnodeProcess.start("mesh-slow", Map.of("FLEETMESH_SHARDS",
                "[{\"id\":\"s1\",\"filter\":{\"kinds\":[1]},\"mode\":\"replicated\"}]", "FLEETMESH_CLIENT_LIMITS",
                "off", "FLEETMESH_MESH_SEND_BUDGET", "65536"))) {
            FederationIT.publish(node, Keys.fresh(), 1000);
            Peer p = Peer.connect(node, new WebSocketClientOptions(), true);
            String did = PeerIdentity.shortForm(us.did());
            try {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (p.received.stream().noneMatch(m -> m.startsWith("[\"MESH-CUSTODY\"")) && System.nanoTime() < until) {
                    Thread.sleep(50);
                }
                p.ws.writeTextMessage("[\"MESH-CUSTODY-HEAD\",{\"size\":0,\"head\":null,\"seq\":null,\"more\":false}]");
                Thread.sleep(500); // the node takes the head
                long linked = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (links(node, did) != 1 && System.nanoTime() < linked) {
                    Thread.sleep(100);
                }
                assertEquals(1, links(node, did), "linked");
                p.ws.pause(); // reads nothing more: what the node sends piles up in the kernel's buffers, then its queue
                // the first message of an initiator holding nothing: the whole range as an empty id list
                String open = "[\"MESH-NEG-OPEN\",\"s1\",{\"kinds\":[1]},\"6100000200\"]";
                for (int i = 0; i < 400; i++) {
                    p.ws.writeTextMessage(open);
                }
                long sent = System.nanoTime();
                until = sent + TimeUnit.SECONDS.toNanos(30);
                while (links(node, did) > 0 && System.nanoTime() < until) {
                    Thread.sleep(200);
                }
                assertEquals(0, links(node, did), "the link of a peer that does not read is gone");
                assertTrue(node.logText().contains("slow: more than 65536 bytes queued for this peer"), "closed slow");
            } finally {
                p.ws.resume();
                p.client.close();
            }
        }
    }

    /** The node's open links with {@code did} (0 when it lists none). */
    static int links(MeshnodeProcess node, String did) {
        return Delivered.peer(node, did).map(e -> e.path("links").asInt()).orElse(0);
    }
}
