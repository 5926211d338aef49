package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.peering.HandshakeSettings;
import org.fleetmesh.peering.MeshClient;
import org.fleetmesh.peering.MeshHandshake;
import org.fleetmesh.peering.MeshLink;
import org.fleetmesh.peering.MeshRefusedException;
import org.fleetmesh.peering.MeshSigner;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.Refusal;
import org.fleetmesh.peering.SeenProofs;
import org.fleetmesh.relay.client.Dialer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketConnectOptions;

/** The /mesh link of a packaged node: mutual DID authentication against a real process. */
class MeshLinkIT {
    static MeshnodeProcess node;
    static Vertx vertx;
    static Path ourDir;
    static MeshSigner us;
    /** The node's DID once a MESH-HELLO named it. */
    private final CompletableFuture<String> hello = new CompletableFuture<>();

    @BeforeAll
    static void start() throws Exception {
        node = MeshnodeProcess.start("mesh-link");
        vertx = Vertx.vertx();
        ourDir = Files.createTempDirectory("mesh-initiator");
        NodeSecrets secrets = NodeSecrets.loadOrCreate(ourDir, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE);
        us = MeshSigner.forNode(secrets, NodeEndpoints.of("ws://127.0.0.1:1/", "ws://127.0.0.1:1/mesh",
                "http://127.0.0.1:1/didcomm"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        if (node != null) {
            node.close();
        }
        MeshnodeProcess.deleteDataDir(ourDir);
    }

    URI meshUri() {
        return URI.create("ws://127.0.0.1:" + node.port() + "/mesh");
    }

    @Test
    void aPeerLearnsTheNodesDidAndNostrKeyBoundTogether() throws Exception {
        try (MeshClient client = new MeshClient(vertx, us, HandshakeSettings.DEFAULTS)) {
            PeerIdentity peer = client.authenticate(meshUri()).toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertTrue(peer.did().startsWith("did:peer:4"), peer.did());
            JsonNode info = NostrClient.JSON.readTree(node.relayInfo());
            assertEquals(info.path("self").asText(), peer.nostr().orElseThrow().hex(),
                    "the /mesh identity and the NIP-11 self key are the same node");
            // and it is the DID the operator sees with `./meshnode did show` for this data dir and port
            ProcessBuilder pb = new ProcessBuilder(MeshnodeProcess.projectRoot().resolve("meshnode").toString(), "did", "show");
            pb.environment().put("FLEETMESH_DATA_DIR", node.dataDir().toString());
            pb.environment().put("QUARKUS_HTTP_PORT", Integer.toString(node.port()));
            pb.redirectError(ProcessBuilder.Redirect.DISCARD);
            Process show = pb.start();
            String out = new String(show.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, show.waitFor());
            assertEquals(NostrClient.JSON.readTree(out).path("did").asText(), peer.did());
        }
    }

    @Test
    void aMalformedOpeningIsRefusedWithMeshErrAndAClose() throws Exception {
        CompletableFuture<String> firstAfterHello = new CompletableFuture<>();
        CompletableFuture<Short> closed = new CompletableFuture<>();
        // handlers before connecting: the node sends MESH-HELLO as soon as the socket opens
        var ws = vertx.createWebSocketClient().webSocket();
        ws.textMessageHandler(m -> {
            if (m.startsWith("[\"MESH-HELLO\"")) {
                ws.writeTextMessage("[\"MESH-AUTH\",{\"not\":\"a proof\"}]");
            } else {
                firstAfterHello.complete(m);
            }
        });
        ws.closeHandler(v -> closed.complete(ws.closeStatusCode()));
        Dialer.open(vertx, ws, new WebSocketConnectOptions().setHost("127.0.0.1").setPort(node.port()).setURI("/mesh"))
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        String err = firstAfterHello.get(10, TimeUnit.SECONDS);
        assertTrue(err.startsWith("[\"MESH-ERR\",\"malformed:"), err);
        assertEquals((short) 1008, closed.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aResponderThatIsNotTheDialledDidIsRefusedBeforeWeSign() throws Exception {
        // expecting a different DID than the node presents: the initiator itself must refuse, naming both
        try (MeshClient client = new MeshClient(vertx, us, HandshakeSettings.DEFAULTS)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> client.connect(meshUri(), Optional.of(us.did())).toCompletableFuture().get(20, TimeUnit.SECONDS));
            Refusal refusal = assertInstanceOf(MeshRefusedException.class, e.getCause()).refusal();
            assertEquals(Refusal.Kind.INVALID, refusal.kind());
            String nodeShort = PeerIdentity.shortForm(nodeDid());
            assertTrue(refusal.reason().startsWith("invalid: this node dialled did:peer:4"), refusal.reason());
            assertTrue(refusal.reason().endsWith(", the responder is " + nodeShort), refusal.reason());
        }
    }

    @Test
    void aProofBoundToAnotherNodeIsRefusedByTheNodeWithItsReason() throws Exception {
        CompletableFuture<String> err = new CompletableFuture<>();
        CompletableFuture<String> closed = new CompletableFuture<>();
        var ws = vertx.createWebSocketClient().webSocket();
        // our real proof, but naming our own DID as the peer it is bound to
        MeshLink link = new MeshLink(MeshHandshake.initiator(us, HandshakeSettings.DEFAULTS, new SeenProofs(), Optional.empty()),
                new MeshLink.Socket() {
                    @Override
                    public void send(String text) {
                        ws.writeTextMessage(text.replace("\"peer\":\"" + nodeDid() + "\"", "\"peer\":\"" + us.did() + "\""));
                    }

                    @Override
                    public void close(int code, String reason) {
                        // the node refuses and closes; closing first would hide its close frame
                    }
                });
        link.open();
        ws.textMessageHandler(m -> {
            if (m.startsWith("[\"MESH-HELLO\"")) {
                try {
                    hello.complete(NostrClient.JSON.readTree(m).get(1).get("did").asText());
                } catch (Exception ex) {
                    hello.completeExceptionally(ex);
                }
            } else if (m.startsWith("[\"MESH-ERR\"")) {
                err.complete(m);
            }
            link.receive(m);
        });
        ws.closeHandler(v -> closed.complete(ws.closeStatusCode() + " " + ws.closeReason()));
        Dialer.open(vertx, ws, new WebSocketConnectOptions().setHost("127.0.0.1").setPort(node.port()).setURI("/mesh"))
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        String reason = "invalid: the proof is bound to " + PeerIdentity.shortForm(us.did()) + ", not to this node's DID";
        assertEquals("[\"MESH-ERR\",\"" + reason + "\"]", err.get(20, TimeUnit.SECONDS));
        assertEquals("1008 " + reason, closed.get(20, TimeUnit.SECONDS));
    }

    /** The node's DID as its MESH-HELLO names it. */
    private String nodeDid() {
        if (!hello.isDone()) {
            try (MeshClient client = new MeshClient(vertx, us, HandshakeSettings.DEFAULTS)) {
                hello.complete(client.authenticate(meshUri()).toCompletableFuture().get(20, TimeUnit.SECONDS).did());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        return hello.join();
    }
}
