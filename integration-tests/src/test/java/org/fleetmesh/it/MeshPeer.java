package org.fleetmesh.it;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

import org.fleetmesh.delivery.SignedFrame;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.peering.HandshakeSettings;
import org.fleetmesh.peering.LinkSession;
import org.fleetmesh.peering.MeshClient;
import org.fleetmesh.peering.MeshLink;
import org.fleetmesh.peering.MeshSigner;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.SeenProofs;
import org.fleetmesh.peering.link.GrantMessages;

import com.fasterxml.jackson.databind.JsonNode;

import io.vertx.core.Vertx;

/**
 * A peer written in the test: fresh node keys, the real handshake through {@link MeshClient}, and a session that
 * answers the node's heartbeats and queues whatever else the node sends after MESH-OK (or hands it to a listener).
 * It speaks the link protocols by hand.
 */
final class MeshPeer implements AutoCloseable {
    final Path dir;
    final NodeSecrets secrets;
    final MeshSigner signer;
    final MeshClient client;
    final BlockingQueue<String> received = new LinkedBlockingQueue<>();
    volatile Consumer<String> listener;
    volatile CompletableFuture<Void> closed = new CompletableFuture<>();
    MeshLink link;
    GrantMessages grants;

    MeshPeer(Vertx vertx, String name) throws Exception {
        dir = Files.createTempDirectory(MeshnodeProcess.targetDir(), "peer-" + name + "-");
        secrets = NodeSecrets.loadOrCreate(dir, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE);
        signer = MeshSigner.forNode(secrets, NodeEndpoints.of("ws://127.0.0.1:1/", "ws://127.0.0.1:1/mesh",
                "http://127.0.0.1:1/didcomm"));
        client = new MeshClient(vertx, signer, HandshakeSettings.DEFAULTS, new SeenProofs(), l -> new LinkSession() {
            @Override
            public void receive(String text) {
                if (text.startsWith("[\"MESH-PING\"")) {
                    // the node's heartbeat: a peer that does not answer is ended "late" (mesh-link.md, Heartbeats)
                    JsonNode n = json(text).get(1).get("n");
                    l.send("[\"MESH-PONG\",{\"n\":" + n.asLong() + "}]");
                    return;
                }
                Consumer<String> c = listener;
                if (c != null) {
                    c.accept(text);
                } else {
                    received.add(text);
                }
            }

            @Override
            public void closed() {
                closed.complete(null);
            }
        });
    }

    String did() {
        return signer.did();
    }

    String shortDid() {
        return PeerIdentity.shortForm(signer.did());
    }

    /** Links to the node's /mesh; the node's first message (its grant offer) waits in {@link #received}. */
    MeshLink link(MeshnodeProcess node) throws Exception {
        received.clear();
        closed = new CompletableFuture<>();
        link = client.connect(URI.create("ws://127.0.0.1:" + node.port() + "/mesh")).toCompletableFuture()
                .get(20, TimeUnit.SECONDS);
        grants = new GrantMessages(signer.did(), link.peer().orElseThrow().did(), secrets.agreement().bytes());
        return link;
    }

    void send(String text) {
        link.send(text);
    }

    /**
     * The sender's custody exchange (docs/spec/delivery.md), as a peer that has sent the node nothing before:
     * {@code MESH-CUSTODY} from size 0, then the node's {@code MESH-CUSTODY-HEAD}; a node takes no frame before it.
     * What else the node sent meanwhile stays queued, in order.
     */
    void exchange() throws InterruptedException {
        send("[\"MESH-CUSTODY\",{\"size\":0,\"head\":null}]");
        List<String> kept = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            String m = received.poll(100, TimeUnit.MILLISECONDS);
            if (m != null && m.startsWith("[\"MESH-CUSTODY-HEAD\"")) {
                break;
            }
            if (m != null) {
                kept.add(m);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no MESH-CUSTODY-HEAD from the node within 20 s; queued: " + kept);
            }
        }
        List<String> rest = new java.util.ArrayList<>();
        received.drainTo(rest);
        received.addAll(kept);
        received.addAll(rest);
    }

    /** The next message the node sent that matches, within 20 s. */
    String take(Predicate<String> p, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            String m = received.poll(100, TimeUnit.MILLISECONDS);
            if (m != null && p.test(m)) {
                return m;
            }
        }
        throw new AssertionError("no " + what + " from the node within 20 s; queued: " + received);
    }

    String takeType(String type) throws InterruptedException {
        return take(m -> m.startsWith("[\"" + type + "\""), type);
    }

    /**
     * A signed {@code MESH-EVENTS} frame from this peer to the node it is linked to (docs/spec/delivery.md): the
     * events' {@code id} members as given, each with hops 0, signed by this peer's transport key now.
     */
    String frame(long seq, List<String> events) {
        List<String> ids = new java.util.ArrayList<>(events.size());
        List<Integer> hops = new java.util.ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            try {
                ids.add(SignedFrame.idOf(events.get(i), i));
            } catch (org.fleetmesh.delivery.FrameException e) {
                throw new IllegalArgumentException(e);
            }
            hops.add(0);
        }
        String to = PeerIdentity.shortForm(link.peer().orElseThrow().did());
        return SignedFrame.sign(secrets.transport(), shortDid(), to, seq, System.currentTimeMillis(), ids, hops)
                .encode(events);
    }

    /** Signed kind 1 notes by this peer's Nostr key, distinct by {@code from}. */
    List<String> notes(int n, int from) {
        List<String> out = new java.util.ArrayList<>(n);
        long t = System.currentTimeMillis() / 1000 - 60;
        for (int i = 0; i < n; i++) {
            out.add(Events.sign(secrets.nostr().bytes(), t, 1, List.of(), "note " + (from + i) + " by " + shortDid())
                    .json());
        }
        return out;
    }

    static JsonNode json(String s) {
        try {
            return NostrClient.JSON.readTree(s);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + s, e);
        }
    }

    @Override
    public void close() {
        if (link != null) {
            link.close();
        }
        client.close();
        MeshnodeProcess.deleteDataDir(dir);
    }

    /** A JDBC connection to a node's embedded PostgreSQL (its port from postmaster.pid, its password from postgres.key). */
    static Connection database(MeshnodeProcess node) throws Exception {
        Path pid;
        try (var files = Files.walk(node.dataDir(), 6)) {
            pid = files.filter(f -> f.getFileName().toString().equals("postmaster.pid")).findFirst().orElseThrow();
        }
        int port = Integer.parseInt(Files.readAllLines(pid).get(3).trim());
        String password = Files.readAllLines(node.dataDir().resolve("postgres.key")).get(0).trim();
        Properties props = new Properties();
        props.setProperty("user", "postgres");
        props.setProperty("password", password);
        return DriverManager.getConnection("jdbc:postgresql://localhost:" + port + "/postgres", props);
    }

    static Optional<String> textOf(JsonNode n, String member) {
        JsonNode v = n.get(member);
        return v == null || v.isNull() ? Optional.empty() : Optional.of(v.asText());
    }
}
