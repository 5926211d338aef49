package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.identity.EndpointAnnouncement;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.peering.HandshakeSettings;
import org.fleetmesh.peering.MeshClient;
import org.fleetmesh.peering.MeshSigner;
import org.fleetmesh.peering.PeerIdentity;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.vertx.core.Vertx;

/**
 * The node's DID depends on its keys only (docs/spec/identity.md): the same data dir gives the same DID under any
 * address, and a node restarted on a new port keeps its DID while its served document and its signed endpoint
 * announcement (kind 30802) move to the new address.
 */
class StableIdentityIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private static String meshService(JsonNode didDocument) {
        for (JsonNode s : didDocument.path("service")) {
            if (s.path("id").asText().equals("#mesh")) {
                return s.path("serviceEndpoint").asText();
            }
        }
        throw new AssertionError("no #mesh service in " + didDocument);
    }

    @Test
    void didShowPrintsTheSameDidWhateverTheAddressSettingsSay() throws Exception {
        Path data = MeshnodeProcess.newDataDir("stable-did");
        try {
            String dir = data.toString();
            Launcher.Run plain = Launcher.runIn(data, Map.of("FLEETMESH_DATA_DIR", dir), null, "did", "show");
            Launcher.Run relayUrl = Launcher.runIn(data, Map.of("FLEETMESH_DATA_DIR", dir,
                    "FLEETMESH_RELAY_URL", "wss://relay.example.org/"), null, "did", "show");
            Launcher.Run port = Launcher.runIn(data, Map.of("FLEETMESH_DATA_DIR", dir, "QUARKUS_HTTP_PORT", "7799"),
                    null, "did", "show");
            for (Launcher.Run r : List.of(plain, relayUrl, port)) {
                assertEquals(0, r.exit(), r.stderr());
            }
            JsonNode a = NostrClient.tree(plain.stdout());
            JsonNode b = NostrClient.tree(relayUrl.stdout());
            JsonNode c = NostrClient.tree(port.stdout());
            assertTrue(a.path("did").asText().startsWith("did:peer:4"), plain.stdout());
            assertEquals(a.path("did"), b.path("did"), "FLEETMESH_RELAY_URL changed the DID");
            assertEquals(a.path("did"), c.path("did"), "QUARKUS_HTTP_PORT changed the DID");
            assertEquals(a.path("shortForm"), b.path("shortForm"));
            assertEquals(a.path("alsoKnownAs"), c.path("alsoKnownAs"));
            assertEquals(a.path("did"), a.path("didDocument").path("id"));
            assertEquals(a.path("did"), b.path("didDocument").path("id"));
            assertEquals(a.path("did"), c.path("didDocument").path("id"));
            // the settings still say where the node is: in the document's services, not in its DID
            assertEquals("ws://localhost:7777/mesh", meshService(a.path("didDocument")));
            assertEquals("wss://relay.example.org/mesh", meshService(b.path("didDocument")));
            assertEquals("ws://localhost:7799/mesh", meshService(c.path("didDocument")));
        } finally {
            MeshnodeProcess.deleteDataDir(data);
        }
    }

    @Test
    void aNodeRestartedOnANewPortKeepsItsDidAndAnnouncesTheNewEndpoint() throws Exception {
        MeshnodeProcess node = MeshnodeProcess.start("stable-did-node");
        Vertx vertx = Vertx.vertx();
        Path ourDir = Files.createTempDirectory("stable-did-peer");
        try {
            NodeSecrets secrets = NodeSecrets.loadOrCreate(ourDir, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                    NodeSecrets.Supplied.NONE);
            MeshSigner us = MeshSigner.forNode(secrets, NodeEndpoints.of("ws://127.0.0.1:1/", "ws://127.0.0.1:1/mesh",
                    "http://127.0.0.1:1/didcomm"));

            int firstPort = node.port();
            JsonNode before = didJson(node);
            String did = before.path("id").asText();
            assertEquals("ws://localhost:" + firstPort + "/mesh", meshService(before));
            EndpointAnnouncement first = announcement(node, did, "ws://localhost:" + firstPort + "/mesh");
            assertEquals(proven(vertx, us, node), did, "the /mesh handshake proves the served DID");

            node.stop();
            node.startAgain();
            if (node.port() == firstPort) { // the OS may hand out the same free port again: move once more
                node.stop();
                node.startAgain();
            }
            assertNotEquals(firstPort, node.port(), "the restart did not move the node");

            JsonNode after = didJson(node);
            assertEquals(did, after.path("id").asText(), "a move changed the DID");
            assertEquals(before.path("verificationMethod"), after.path("verificationMethod"));
            assertEquals("ws://localhost:" + node.port() + "/mesh", meshService(after));
            EndpointAnnouncement second = announcement(node, did, "ws://localhost:" + node.port() + "/mesh");
            assertTrue(second.createdAt() > first.createdAt() || !second.event().id().equals(first.event().id()));
            assertEquals(proven(vertx, us, node), did, "the /mesh handshake proves the same DID after the move");

            Launcher.Run show = Launcher.run(node.dataDir(), null, "did", "show");
            assertEquals(0, show.exit(), show.stderr());
            assertEquals(did, NostrClient.tree(show.stdout()).path("did").asText());
        } finally {
            node.close();
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            MeshnodeProcess.deleteDataDir(ourDir);
        }
    }

    private static JsonNode didJson(MeshnodeProcess node) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(node.httpUri().resolve("/.well-known/did.json"))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("application/did+json", r.headers().firstValue("content-type").orElse(""));
        return NostrClient.tree(r.body());
    }

    /**
     * The node's one stored kind 30802, once it names {@code mesh}: the node stores it after its port is bound, so
     * it may trail readiness by a moment.
     */
    private static EndpointAnnouncement announcement(MeshnodeProcess node, String did, String mesh) throws Exception {
        String shortForm = did.substring(0, did.indexOf(':', "did:peer:4".length()));
        JsonNode filter = NostrClient.tree("{\"kinds\":[" + EndpointAnnouncement.KIND + "],\"#d\":[\"" + shortForm + "\"]}");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<JsonNode> found = List.of();
        try (NostrClient client = NostrClient.connect(node)) {
            for (int i = 0; System.nanoTime() < deadline; i++) {
                found = client.query("ann" + i, filter);
                if (found.size() == 1 && mesh.equals(EndpointAnnouncement.verify(new MessageParser(
                        MessageParser.Limits.DEFAULT).parseEvent(found.get(0).toString())).endpoints().mesh().toString())) {
                    EndpointAnnouncement a = EndpointAnnouncement.verify(new MessageParser(MessageParser.Limits.DEFAULT)
                            .parseEvent(found.get(0).toString()));
                    assertEquals(did, a.did());
                    return a;
                }
                assertTrue(found.size() <= 1, "one announcement replaces the other: " + found);
                Thread.sleep(200);
            }
        }
        throw new AssertionError("no endpoint announcement naming " + mesh + " was stored; found " + found + "\n"
                + node.logTail(40));
    }

    /**
     * One data dir is one node: a second relay started on a running node's data dir stops at start with the reason
     * and the first one's pid (two processes under one DID would fork its receipt chain), the first keeps serving,
     * and {@code keys rotate} is refused while it runs.
     */
    @Test
    void aSecondRelayOnARunningNodesDataDirStopsAtStart() throws Exception {
        try (MeshnodeProcess node = MeshnodeProcess.start("one-per-dir")) {
            List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                    "-jar", MeshnodeProcess.appDir().resolve("quarkus-run.jar").toAbsolutePath().toString());
            Path log = MeshnodeProcess.outputFile("second-relay", ".log");
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
            pb.environment().put("QUARKUS_HTTP_PORT", "0");
            pb.environment().put("QUARKUS_HTTP_HOST", "127.0.0.1");
            pb.environment().put("FLEETMESH_DATA_DIR", node.dataDir().toString());
            pb.environment().put("FLEETMESH_MONITOR_ENABLED", "false");
            Process second = pb.start();
            try {
                assertTrue(second.waitFor(120, TimeUnit.SECONDS), "the second relay is still running");
            } finally {
                second.destroyForcibly();
            }
            String out = Files.readString(log);
            assertNotEquals(0, second.exitValue(), out);
            assertTrue(out.contains("another meshnode relay is running on " + node.dataDir().toAbsolutePath()
                    + " (pid " + node.pid() + ")"), out);
            assertTrue(!out.contains("Listening on:"), out);

            // the first node still serves, with its database (the second one's exit did not stop the shared cluster)
            try (NostrClient client = NostrClient.connect(node)) {
                Keys k = Keys.fresh();
                client.publishAndWait(k.note(System.currentTimeMillis() / 1000, "still here")).assertAccepted();
                assertEquals(1, client.query("q", FilterSpec.of().authors(k)).size());
            }
            Launcher.Run rotate = Launcher.run(node.dataDir(), null, "keys", "rotate");
            assertEquals(1, rotate.exit(), rotate.stderr());
            assertTrue(rotate.stderr().contains("a meshnode relay is running on " + node.dataDir() + " (pid " + node.pid()
                    + "): stop the node first"), rotate.stderr());
        }
    }

    private static String proven(Vertx vertx, MeshSigner us, MeshnodeProcess node) throws Exception {
        try (MeshClient client = new MeshClient(vertx, us, HandshakeSettings.DEFAULTS)) {
            PeerIdentity peer = client.authenticate(URI.create("ws://127.0.0.1:" + node.port() + "/mesh"))
                    .toCompletableFuture().get(20, TimeUnit.SECONDS);
            return peer.did();
        }
    }
}
