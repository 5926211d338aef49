package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Shard replication over /mesh (docs/spec/replication.md) between two real nodes that declare the same shard and
 * forward nothing to each other otherwise (federate {@code []}): each pulls what it lacks, through the delivery path,
 * so custody receipts cover exactly what moved; {@code /mesh/status} shows the shard synced on both sides.
 */
class ReplicationIT {

    static String shards(String author) {
        return "[{\"id\":\"notes\",\"filter\":{\"authors\":[\"" + author + "\"],\"kinds\":[1]},\"mode\":\"asserted\"}]";
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void twoNodesWithTheSameShardEndWithTheUnionAndReceiptsForWhatMoved() throws Exception {
        Keys author = Keys.fresh();
        String shards = shards(author.pubkey());
        try (MeshnodeProcess a = MeshnodeProcess.start("repl-a", Delivered.env("[]", "FLEETMESH_SHARDS", shards,
                "FLEETMESH_REPLICATION_INTERVAL", "2s"))) {
            String aDid = PeeringIT.did(a);
            Set<String> atA = FederationIT.publish(a, author, 30);
            try (MeshnodeProcess b = MeshnodeProcess.start("repl-b", Delivered.env("[]", "FLEETMESH_SHARDS", shards,
                    "FLEETMESH_REPLICATION_INTERVAL", "2s", "FLEETMESH_PEERS", Delivered.peerSetting(aDid, a.port())))) {
                String bDid = PeeringIT.did(b);
                Set<String> atB = FederationIT.publish(b, author, 20);
                PeeringIT.awaitLinked(a, aDid, b, bDid);
                Set<String> all = new HashSet<>(atA);
                all.addAll(atB);
                Delivered.awaitIds(a, author.pubkey(), all);
                Delivered.awaitIds(b, author.pubkey(), all);
                // events published while linked reach the other side at the next pass (no federate filter asks)
                Set<String> later = FederationIT.publish(a, author, 5);
                all.addAll(later);
                Delivered.awaitIds(b, author.pubkey(), all);

                JsonNode aOfB = Delivered.awaitPeer(a, bDid, p -> synced(p) && Delivered.size(p, "sent") == 35
                        && Delivered.size(p, "received") == 20, "the shard synced, receipts for what moved");
                JsonNode bOfA = Delivered.awaitPeer(b, aDid, p -> synced(p) && Delivered.size(p, "sent") == 20
                        && Delivered.size(p, "received") == 35, "the shard synced, receipts for what moved");
                assertEquals(20, aOfB.path("shards").path("notes").path("pulled").asLong(), aOfB.toString());
                assertEquals(35, bOfA.path("shards").path("notes").path("pulled").asLong(), bOfA.toString());
                assertTrue(aOfB.path("shards").path("notes").path("last_sync").isIntegralNumber(), aOfB.toString());
                assertEquals(0, aOfB.path("shards").path("notes").path("need").asLong(), aOfB.toString());
                assertTrue(aOfB.path("custody").path("halted").isNull(), aOfB.toString());
                // both trees agree: a's mirror of b's tree of what a sent is b's own
                assertEquals(aOfB.path("custody").path("sent").path("head").asText(),
                        bOfA.path("custody").path("received").path("head").asText());
                assertEquals(35, Delivered.lastEvents(Delivered.verifiedChain(b, aDid, "received")));
                assertEquals(20, Delivered.lastEvents(Delivered.verifiedChain(a, bDid, "received")));
                // a custody proof of one pulled event, from b's copy of a's receipts
                String one = atB.iterator().next();
                Launcher.Run prove = Launcher.run(b.dataDir(), null, "receipts", "prove", one, "--peer", aDid,
                        "--side", "sent");
                assertEquals(0, prove.exit(), prove.stderr());
            }
        }
    }

    static boolean synced(JsonNode peer) {
        return "synced".equals(peer.path("shards").path("notes").path("state").asText());
    }
}
