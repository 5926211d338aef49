package org.fleetmesh.it;

import static org.fleetmesh.it.PeeringIT.addPeer;
import static org.fleetmesh.it.PeeringIT.awaitLinked;
import static org.fleetmesh.it.PeeringIT.did;
import static org.fleetmesh.it.PeeringIT.mesh;
import static org.fleetmesh.it.PeeringIT.peer;
import static org.fleetmesh.it.PeeringIT.status;
import static org.fleetmesh.it.PeeringIT.storedPeers;
import static org.fleetmesh.it.PeeringIT.token;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A node rotates its keys with {@code ./meshnode keys rotate} and keeps its peers (docs/spec/mesh-link.md, "Key
 * hand-over"): B declared A in its configuration and A declared B through the admin API; after A's rotation and
 * restart both links come back under A's new DID without an operator touching B, B's store moved its declaration
 * and remembers the rotation across a restart that still configures the old DID, and a node started with A's retired
 * keys is refused by B.
 */
class KeyRotationIT {

    @Test
    void aRotatedNodeIsFollowedByItsPeersAndItsOldKeysAreRetired() throws Exception {
        // A asks B for kind 1: B forwards, A signs custody receipts (a chain under A's key, which the rotation changes)
        try (MeshnodeProcess a = MeshnodeProcess.start("rotate-a", Map.of("FLEETMESH_FEDERATE", "[{\"kinds\":[1]}]"))) {
            String oldDid = did(a);
            try (MeshnodeProcess b = MeshnodeProcess.start("rotate-b", Map.of("FLEETMESH_PEERS", oldDid + "@" + mesh(a)))) {
                String bDid = did(b);
                assertEquals(201, addPeer(a, token(a, "admin:write"), bDid, mesh(b)).statusCode());
                awaitLinked(a, oldDid, b, bDid);
                try (NostrClient c = NostrClient.connect(b)) {
                    c.publishAndWait(Keys.fresh().note(Keys.now(), "before the rotation")).assertAccepted();
                }
                Delivered.awaitPeer(b, oldDid, e -> Delivered.size(e, "sent") >= 1, "a receipt from A's old key");

                // rotate A while it is stopped; the old keys move aside, the hand-over is written
                a.stop();
                Launcher.Run rotated = Launcher.run(a.dataDir(), null, "keys", "rotate");
                assertEquals(0, rotated.exit(), rotated.stderr());
                Path keys = a.dataDir().resolve("keys");
                assertTrue(Files.isRegularFile(keys.resolve("handover.jwt")), rotated.stderr());
                List<Path> retired;
                try (var s = Files.list(keys.resolve("retired"))) {
                    retired = s.toList();
                }
                assertEquals(1, retired.size(), retired.toString());
                assertTrue(Files.isRegularFile(retired.get(0).resolve("transport.key")));
                a.startAgainOnSamePort();
                String newDid = did(a);
                assertNotEquals(oldDid, newDid);
                assertTrue(rotated.stdout().strip().startsWith("did:peer:4"), rotated.stdout());
                assertTrue(a.logText().contains("presents its hand-over from " + oldDid), a.logTail(40));
                assertEquals(oldDid, status(a).path("handed_over_from").asText());

                // B follows: one link to the new DID, declared, and no entry for the old one
                awaitLinked(a, newDid, b, bDid);
                // and forwards to it under a custody chain A starts afresh with its new key (before: A answered with
                // its old chain, and B halted forwarding to it, "custody: signature")
                Event after = Keys.fresh().note(Keys.now(), "after the rotation");
                try (NostrClient c = NostrClient.connect(b)) {
                    c.publishAndWait(after).assertAccepted();
                }
                JsonNode forwarding = Delivered.awaitPeer(b, newDid, e -> Delivered.size(e, "sent") >= 2,
                        "receipts from A's new key for what B forwards");
                assertTrue(forwarding.path("custody").path("halted").asText("").isEmpty(), forwarding.toString());
                try (NostrClient c = NostrClient.connect(a)) {
                    assertEquals(1, c.query("after", FilterSpec.of().ids(after.id().hex())).size());
                }
                assertTrue(a.logText().contains("signed with this node's previous Nostr key"), a.logTail(40));
                JsonNode atB = status(b);
                assertTrue(peer(atB, newDid).orElseThrow().path("declared").asBoolean(), atB.toString());
                assertTrue(peer(atB, oldDid).isEmpty(), atB.toString());
                assertTrue(b.logText().contains("peer " + oldDid + " handed its keys over to " + newDid), b.logTail(40));
                String bToken = token(b, "admin:read");
                JsonNode stored = awaitStored(b, bToken, newDid);
                // the declaration moved whole: the configured URL and the source stay
                JsonNode moved = declared(stored, newDid).orElseThrow();
                assertEquals(mesh(a).toString(), moved.path("configured_url").asText(), moved.toString());
                assertEquals("config", moved.path("source").asText(), moved.toString());
                assertTrue(declared(stored, oldDid).isEmpty(), stored.toString());
                JsonNode rotation = stored.path("rotations").get(0);
                assertEquals(oldDid, rotation.path("old").asText(), stored.toString());
                assertEquals(newDid, rotation.path("new").asText(), stored.toString());
                // A's admin-declared B is still B, and links under A's new DID
                assertTrue(peer(status(a), bDid).orElseThrow().path("declared").asBoolean());

                // B restarts with its configuration still naming the old DID: the stored rotation maps it
                b.stop();
                b.startAgainOnSamePort();
                awaitLinked(a, newDid, b, bDid);
                assertTrue(b.logText().contains("handed its keys over to " + newDid), b.logTail(40));
                assertTrue(peer(status(b), oldDid).isEmpty(), status(b).toString());

                // someone holding A's retired keys cannot link to B as the old DID
                Path thief = MeshnodeProcess.newDataDir("rotate-thief");
                Files.createDirectories(thief.resolve("keys"));
                for (String role : List.of("nostr", "agreement", "transport")) {
                    Files.copy(retired.get(0).resolve(role + ".key"), thief.resolve("keys/" + role + ".key"));
                }
                try (MeshnodeProcess c = MeshnodeProcess.startOn("rotate-thief", thief,
                        Map.of("FLEETMESH_PEERS", bDid + "@" + mesh(b)), 0)) {
                    assertEquals(oldDid, did(c));
                    assertTrue(status(c).path("handed_over_from").isNull(), "the thief has no hand-over");
                    String reason = awaitLastError(c, bDid);
                    assertTrue(reason.startsWith("ended by the peer: invalid: " + oldDid + " handed its keys over to "
                            + newDid), reason);
                    assertFalse(peer(status(b), oldDid).map(p -> p.path("state").asText().equals("up")).orElse(false),
                            status(b).toString());
                    assertTrue(b.logText().contains("from " + oldDid + ": invalid: " + oldDid + " handed its keys over to "
                            + newDid), b.logTail(20));
                }
            }
        }
    }

    private static Optional<JsonNode> declared(JsonNode stored, String did) {
        for (JsonNode p : stored.path("peers")) {
            if (p.path("did").asText().equals(did)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** The store is written off the link's thread: waits for the moved declaration. */
    private static JsonNode awaitStored(MeshnodeProcess n, String token, String did) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        JsonNode stored = storedPeers(n, token);
        while (System.nanoTime() < deadline && (declared(stored, did).isEmpty() || stored.path("rotations").isEmpty())) {
            MeshnodeProcess.sleep(100);
            stored = storedPeers(n, token);
        }
        return stored;
    }

    private static String awaitLastError(MeshnodeProcess n, String peerDid) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            Optional<JsonNode> p = peer(status(n), peerDid);
            if (p.isPresent() && p.get().path("last_error").isTextual()
                    && p.get().path("last_error").asText().contains("handed")) {
                return p.get().path("last_error").asText();
            }
            MeshnodeProcess.sleep(100);
        }
        throw new AssertionError("no refusal seen at " + n + ": " + status(n) + "\n" + n.logTail(30));
    }
}
