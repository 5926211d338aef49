package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.fleetmesh.delivery.log.CustodyReset;
import org.fleetmesh.peering.PeerIdentity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A node restored from its keys alone (docs/OPERATING.md, "Keys backup and restore"; custody.md §8): three nodes
 * replicate two shards; one is killed with SIGKILL, its data dir wiped but for the keys put back with
 * {@code keys export} / {@code keys import}, and started again. It comes back with the same DID, its peers accept its
 * signed custody reset (S1 evidence a third party can recheck, the old chain kept aside, no halt), it rebuilds both
 * shards from its peers through replication with the progress in {@code /mesh/status}, ends with the claims its peers
 * have (count, fingerprint, root), and live forwarding to it goes on with receipts on a new chain.
 */
class RebuildIT {
    static final String NOTES = "notes";
    static final String REACTIONS = "reactions";
    static final String KIND1 = "[{\"kinds\":[1]}]";

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS) // three nodes, a restart and CLI runs on a shared machine
    void aWipedNodeRestoredFromItsKeysRebuildsItsShardsAndForwardingGoesOn() throws Exception {
        Keys author = Keys.fresh();
        String shards = Sharded.shards(Sharded.shard(NOTES, "{\"kinds\":[1]}", "asserted"),
                Sharded.shard(REACTIONS, "{\"kinds\":[7]}", "replicated"));
        Map<String, Predicate<JsonNode>> covers = new LinkedHashMap<>();
        covers.put(NOTES, e -> e.get("kind").asInt() == 1);
        covers.put(REACTIONS, e -> e.get("kind").asInt() == 7);

        try (MeshnodeProcess a = MeshnodeProcess.start("rebuild-a", Sharded.env(KIND1, shards))) {
            String aDid = PeeringIT.did(a);
            try (MeshnodeProcess b = MeshnodeProcess.start("rebuild-b", Sharded.env(KIND1, shards, "FLEETMESH_PEERS",
                    Delivered.peerSetting(aDid, a.port())))) {
                String bDid = PeeringIT.did(b);
                try (MeshnodeProcess c = MeshnodeProcess.start("rebuild-c", Sharded.env(KIND1, shards,
                        "FLEETMESH_PEERS", Delivered.peerSetting(aDid, a.port()) + "," + Delivered.peerSetting(bDid,
                                b.port())))) {
                    String cDid = PeeringIT.did(c);
                    PeeringIT.awaitLinked(a, aDid, b, bDid);
                    PeeringIT.awaitLinked(a, aDid, c, cDid);
                    PeeringIT.awaitLinked(b, bDid, c, cDid);
                    List<MeshnodeProcess> nodes = List.of(a, b, c);

                    List<JsonNode> all = new ArrayList<>();
                    all.addAll(ShardsIT.publish(a, author, 1, 60));
                    all.addAll(ShardsIT.publish(a, author, 7, 20));
                    all.addAll(ShardsIT.publish(b, author, 1, 40));
                    all.addAll(ShardsIT.publish(b, author, 7, 20));
                    all.addAll(ShardsIT.publish(c, author, 1, 30));
                    settle(nodes, ShardsIT.expected(all, covers));
                    // b holds receipts from a and c for what they forwarded it: its loss is theirs to notice
                    Delivered.awaitPeer(a, bDid, p -> Delivered.size(p, "sent") > 0 && p.path("queue").asLong(-1) == 0,
                            "a's receipted forwarding to b");

                    // the backup: keys only, 0600, the DID printed
                    Path backup = MeshnodeProcess.newDataDir("rebuild-backup").resolve("b-keys.json");
                    Launcher.Run exported = Launcher.run(b.dataDir(), null, "keys", "export", backup.toString());
                    assertEquals(0, exported.exit(), exported.stderr());
                    assertEquals(bDid, PeerIdentity.shortForm(exported.stdout().strip()));
                    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(backup)));
                    String backupText = Files.readString(backup);
                    for (String f : List.of("nostr.key", "agreement.key", "transport.key")) {
                        String hex = Files.readString(b.dataDir().resolve("keys").resolve(f)).strip();
                        assertTrue(backupText.contains(hex), f + " is in the backup");
                        assertFalse(exported.stdout().contains(hex) || exported.stderr().contains(hex),
                                "key material printed");
                    }

                    // kill -9, wipe everything, restore the keys
                    b.kill();
                    MeshnodeProcess.stopLeftoverPostmasters(b.dataDir());
                    wipe(b.dataDir());
                    Launcher.Run imported = Launcher.run(b.dataDir(), null, "keys", "import", backup.toString());
                    assertEquals(0, imported.exit(), imported.stderr());
                    assertEquals(bDid, PeerIdentity.shortForm(imported.stdout().strip()));
                    try (Stream<Path> left = Files.list(b.dataDir())) {
                        assertEquals(List.of("keys"), left.map(p -> p.getFileName().toString()).toList(),
                                "nothing but the keys in the restored data dir");
                    }
                    // the mesh goes on meanwhile
                    all.addAll(ShardsIT.publish(a, author, 1, 10));
                    Map<String, Sharded.Figures> want = ShardsIT.expected(all, covers);
                    long rebuilt = all.stream().filter(covers.get(NOTES)).count();

                    long t0 = System.nanoTime();
                    b.startAgainOnSamePort();
                    assertEquals(bDid, PeeringIT.did(b), "the same keys, the same DID");
                    PeeringIT.awaitLinked(a, aDid, b, bDid);
                    PeeringIT.awaitLinked(b, bDid, c, cDid);
                    settle(nodes, want);
                    long millis = (System.nanoTime() - t0) / 1_000_000;
                    System.out.printf("MEASURE rebuild of a wiped node: %d events over 2 shards from 2 peers in %d ms"
                            + " (start to equal claims)%n", want.get(NOTES).count() + want.get(REACTIONS).count(), millis);

                    // the progress it reported: replication passes per peer and shard, what they pulled, synced
                    long pulled = 0;
                    for (String peer : List.of(aDid, cDid)) {
                        JsonNode r = Sharded.awaitReplication(b, peer, NOTES,
                                x -> "synced".equals(x.path("state").asText()), "a synced notes shard");
                        assertTrue(r.path("passes").asLong() >= 1, r.toString());
                        pulled += r.path("pulled").asLong();
                    }
                    // what a and c forwarded it live since the restart came by forwarding, not by pulls
                    assertTrue(pulled >= rebuilt - 10, "b pulled its notes shard back: " + pulled + " of " + rebuilt);
                    assertTrue(b.logText().contains("replication of shard " + NOTES), "the log reports the passes");

                    // its peers took the reset: S1 evidence that verifies, no breach, no halt
                    for (MeshnodeProcess peer : List.of(a, c)) {
                        JsonNode evidence = evidence(peer, bDid);
                        JsonNode reset = null;
                        for (JsonNode e : evidence.path("evidence")) {
                            assertFalse(e.path("reason").asText().startsWith("custody:"), peer + " holds a breach: " + e);
                            if (e.path("reason").asText().startsWith("custody-reset")) {
                                reset = e;
                            }
                        }
                        assertTrue(reset != null, peer + " recorded the reset: " + evidence);
                        assertEquals("S1", reset.path("severity").asText());
                        CustodyReset.Verdict v = CustodyReset.verify(NostrClient.JSON.writeValueAsString(
                                reset.path("detail")));
                        assertTrue(v.holds(), v.why());
                        assertTrue(Delivered.peer(peer, bDid).orElseThrow().path("custody").path("halted").isNull());
                    }
                    // the old chain is kept and still verifies
                    List<String> old = Delivered.verifiedChain(a, bDid + "#reset-1", "sent");
                    assertTrue(Delivered.lastEvents(old) > 0, "a's archived mirror of b's old tree");

                    // live forwarding to b goes on, receipted on the new chain
                    long sentBefore = Delivered.size(Delivered.peer(a, bDid).orElseThrow(), "sent");
                    List<JsonNode> later = ShardsIT.publish(a, author, 1, 5);
                    all.addAll(later);
                    Delivered.awaitPeer(a, bDid, p -> Delivered.size(p, "sent") >= sentBefore + 5
                            && p.path("custody").path("halted").isNull(), "the later events receipted by b");
                    Delivered.verifiedChain(a, bDid, "sent");
                    settle(nodes, ShardsIT.expected(all, covers));
                }
            }
        }
    }

    /**
     * The custody reset alone, without shards: a receiver restored from its keys is taken back by its sender (S1
     * evidence, the old chain archived), what the sender queued while it was gone is forwarded and receipted on a
     * new chain, and the restored node's own empty mirror catches up with the sender's chain of what it once sent.
     */
    @Test
    @Timeout(value = 480, unit = TimeUnit.SECONDS)
    void aReceiverRestoredFromItsKeysIsTakenBackWithACustodyResetAndForwardingGoesOn() throws Exception {
        Keys author = Keys.fresh();
        try (MeshnodeProcess a = MeshnodeProcess.start("reset-a", Delivered.env(KIND1))) {
            String aDid = PeeringIT.did(a);
            try (MeshnodeProcess b = MeshnodeProcess.start("reset-b", Delivered.env(KIND1, "FLEETMESH_PEERS",
                    Delivered.peerSetting(aDid, a.port())))) {
                String bDid = PeeringIT.did(b);
                PeeringIT.awaitLinked(a, aDid, b, bDid);
                java.util.Set<String> before = FederationIT.publish(a, author, 20);
                java.util.Set<String> fromB = FederationIT.publish(b, author, 10);
                Delivered.awaitPeer(a, bDid, p -> Delivered.drained(p, 20), "a's 20 receipted by b");
                Delivered.awaitPeer(a, bDid, p -> Delivered.size(p, "received") == 10, "a's tree of b's 10");
                String oldHead = Delivered.peer(a, bDid).orElseThrow().path("custody").path("sent").path("head").asText();

                Path backup = MeshnodeProcess.newDataDir("reset-backup").resolve("b-keys.json");
                Launcher.Run exported = Launcher.run(b.dataDir(), null, "keys", "export", backup.toString());
                assertEquals(0, exported.exit(), exported.stderr());
                b.kill();
                MeshnodeProcess.stopLeftoverPostmasters(b.dataDir());
                wipe(b.dataDir());
                Launcher.Run imported = Launcher.run(b.dataDir(), null, "keys", "import", backup.toString());
                assertEquals(0, imported.exit(), imported.stderr());
                java.util.Set<String> whileDown = FederationIT.publish(a, author, 5);

                b.startAgainOnSamePort();
                assertEquals(bDid, PeeringIT.did(b));
                PeeringIT.awaitLinked(a, aDid, b, bDid);
                // what a queued while b was gone is forwarded and receipted on a new chain, not halted
                JsonNode atA = Delivered.awaitPeer(a, bDid, p -> Delivered.drained(p, 5), "the 5 receipted anew");
                assertTrue(atA.path("custody").path("halted").isNull(), atA.toString());
                java.util.Set<String> atB = Delivered.ids(b, author.pubkey());
                assertTrue(atB.containsAll(whileDown), "b got what was published while it was down");
                assertTrue(java.util.Collections.disjoint(atB, before),
                        "forwarding does not resend what b held before the reset (replication's job)");
                List<String> fresh = Delivered.verifiedChain(a, bDid, "sent");
                assertEquals(5, Delivered.lastEvents(fresh));
                assertFalse(fresh.get(0).contains("\"prev\""), "the new chain starts with no prev");
                List<String> old = Delivered.verifiedChain(a, bDid + "#reset-1", "sent");
                assertEquals(20, Delivered.lastEvents(old), "the old chain is kept whole");
                assertTrue(old.get(old.size() - 1).contains(oldHead));
                // the archived tree still proves custody of what b once took
                String one = before.iterator().next();
                Launcher.Run prove = Launcher.run(a.dataDir(), null, "receipts", "prove", one, "--peer",
                        bDid + "#reset-1", "--side", "sent");
                assertEquals(0, prove.exit(), prove.stderr());

                JsonNode evidence = evidence(a, bDid);
                assertEquals(1, evidence.path("evidence").size(), evidence.toString());
                JsonNode reset = evidence.path("evidence").get(0);
                assertEquals("S1", reset.path("severity").asText());
                assertTrue(reset.path("reason").asText().startsWith("custody-reset"), reset.toString());
                assertEquals(oldHead, reset.path("detail").path("previous").path("id").asText());
                CustodyReset.Verdict v = CustodyReset.verify(NostrClient.JSON.writeValueAsString(reset.path("detail")));
                assertTrue(v.holds(), v.why());
                assertTrue(a.logText().contains("custody reset by " + bDid), "a logs the reset");

                // the other direction: b's empty mirror of a's tree catches up with a's whole chain of b's 10
                Delivered.awaitPeer(b, aDid, p -> Delivered.size(p, "sent") == 10
                        && p.path("custody").path("halted").isNull(), "b's mirror caught up");
                assertTrue(evidence(b, aDid).path("evidence").isEmpty(), "b holds nothing against a");
                assertEquals(10, fromB.size());
            }
        }
    }

    static void settle(List<MeshnodeProcess> nodes, Map<String, Sharded.Figures> want) {
        for (MeshnodeProcess n : nodes) {
            for (Map.Entry<String, Sharded.Figures> w : want.entrySet()) {
                Sharded.awaitClaim(n, w.getKey(), w.getValue());
            }
        }
    }

    static JsonNode evidence(MeshnodeProcess n, String did) throws Exception {
        HttpResponse<String> r = PeeringIT.send(HttpRequest.newBuilder(n.httpUri().resolve("/mesh/peers/" + did
                + "/evidence")).header("Authorization", "Bearer " + PeeringIT.token(n, "admin:read")).GET());
        assertEquals(200, r.statusCode(), r.body());
        return NostrClient.tree(r.body());
    }

    /** Removes everything in a data dir, leaving it empty (a lost disk). */
    static void wipe(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!f.equals(dir)) {
                    Files.delete(f);
                }
            }
        }
    }
}
