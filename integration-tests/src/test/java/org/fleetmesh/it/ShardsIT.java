package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Shards over three real nodes (docs/spec/shards.md, replication.md): overlapping shards declared through
 * {@code FLEETMESH_SHARDS}, events published at different nodes, no live federation (only replication moves events).
 * Once replication settles, every node's claim of a shard (kind 30803, read with REQ) states the count, fingerprint
 * and root this test computes from the shard's events alone, so the claims of one shard agree across nodes; an event
 * reaches every node with a shard covering it (also over two hops, through a node whose other shard covers it), and
 * a node holds nothing no shard of its own covers.
 */
class ShardsIT {
    static final String NOTES = "notes";
    static final String FEED = "feed";
    static final String BY_X = "by-x";

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS) // three nodes on a shared machine
    void claimsAgreeOnceReplicationSettlesAndEventsReachEveryNodeWhoseShardCoversThem() throws Exception {
        Keys x = Keys.fresh();
        Keys y = Keys.fresh();
        String notes = Sharded.shard(NOTES, "{\"kinds\":[1]}", "asserted");
        String feed = Sharded.shard(FEED, "{\"kinds\":[7,1]}", "replicated"); // not canonical: the node canonicalises
        String byX = Sharded.shard(BY_X, "{\"authors\":[\"" + x.pubkey() + "\"]}", "replicated");
        Map<String, Predicate<JsonNode>> covers = new LinkedHashMap<>();
        covers.put(NOTES, e -> e.get("kind").asInt() == 1);
        covers.put(FEED, e -> e.get("kind").asInt() == 1 || e.get("kind").asInt() == 7);
        covers.put(BY_X, e -> e.get("pubkey").asText().equals(x.pubkey()));

        try (MeshnodeProcess a = MeshnodeProcess.start("shards-a", Sharded.env("[]", Sharded.shards(notes, feed, byX)))) {
            String aDid = PeeringIT.did(a);
            try (MeshnodeProcess b = MeshnodeProcess.start("shards-b", Sharded.env("[]", Sharded.shards(notes, byX),
                    "FLEETMESH_PEERS", Delivered.peerSetting(aDid, a.port())))) {
                String bDid = PeeringIT.did(b);
                try (MeshnodeProcess c = MeshnodeProcess.start("shards-c", Sharded.env("[]", Sharded.shards(feed, byX),
                        "FLEETMESH_PEERS", Delivered.peerSetting(aDid, a.port()) + "," + Delivered.peerSetting(bDid,
                                b.port())))) {
                    String cDid = PeeringIT.did(c);
                    PeeringIT.awaitLinked(a, aDid, b, bDid);
                    PeeringIT.awaitLinked(a, aDid, c, cDid);
                    PeeringIT.awaitLinked(b, bDid, c, cDid);
                    Map<MeshnodeProcess, List<String>> declares = new LinkedHashMap<>();
                    declares.put(a, List.of(NOTES, FEED, BY_X));
                    declares.put(b, List.of(NOTES, BY_X));
                    declares.put(c, List.of(FEED, BY_X));

                    List<JsonNode> all = new ArrayList<>();
                    all.addAll(publish(a, x, 1, 20)); // every shard
                    all.addAll(publish(b, y, 1, 20)); // notes; c gets them through a's feed (two hops)
                    all.addAll(publish(b, x, 7, 5)); // by-x (and feed at a, c)
                    List<JsonNode> yReactions = publish(c, y, 7, 10); // feed only: never at b
                    all.addAll(yReactions);

                    Map<String, Sharded.Figures> want = expected(all, covers);
                    settle(declares, want);

                    // each node holds what its shards cover (and what was published there), nothing else
                    Set<String> atB = ids(Sharded.events(b, FilterSpec.of().authors(x.pubkey(), y.pubkey())));
                    for (JsonNode e : all) {
                        boolean covered = covers.get(NOTES).test(e) || covers.get(BY_X).test(e);
                        assertEquals(covered, atB.contains(e.get("id").asText()), "b holds " + e);
                    }
                    for (JsonNode e : yReactions) {
                        assertFalse(atB.contains(e.get("id").asText()), "no shard of b covers y's reactions");
                    }
                    assertEquals(all.size(), Sharded.events(c, FilterSpec.of().authors(x.pubkey(), y.pubkey())).size(),
                            "c's feed and by-x cover every event");

                    // the status tells the same as the claims, and says the pairs are synced
                    for (Map.Entry<MeshnodeProcess, List<String>> n : declares.entrySet()) {
                        Map<String, JsonNode> status = Sharded.statusShards(n.getKey());
                        Map<String, JsonNode> claims = Sharded.claims(n.getKey());
                        assertEquals(Set.copyOf(n.getValue()), status.keySet(), n.getKey() + " status shards");
                        for (String id : n.getValue()) {
                            JsonNode s = status.get(id);
                            assertEquals(want.get(id), new Sharded.Figures(s.path("count").asLong(),
                                    s.path("fingerprint").asText(), s.path("root").asText()), n.getKey() + " " + id);
                            assertEquals(claims.get(id).get("id").asText(), s.path("claim").asText(), "the claim named");
                        }
                    }
                    assertEquals("{\"kinds\":[1,7]}", Sharded.tag(Sharded.claims(a).get(FEED), "filter"),
                            "the claim carries the canonical filter");
                    assertEquals("asserted", Sharded.tag(Sharded.claims(b).get(NOTES), "mode"));
                    Sharded.awaitReplication(b, aDid, NOTES, r -> "synced".equals(r.path("state").asText()),
                            "a synced pair");
                    Sharded.awaitReplication(c, aDid, FEED, r -> "synced".equals(r.path("state").asText()),
                            "a synced pair");
                    // later events keep flowing: one published at c reaches a (feed, by-x) and b (by-x)
                    all.addAll(publish(c, x, 1, 1));
                    settle(declares, expected(all, covers));
                }
            }
        }
    }

    /** Waits until every node's claim of each shard it declares states {@code want}. */
    static void settle(Map<MeshnodeProcess, List<String>> declares, Map<String, Sharded.Figures> want) {
        for (Map.Entry<MeshnodeProcess, List<String>> n : declares.entrySet()) {
            for (String id : n.getValue()) {
                Sharded.awaitClaim(n.getKey(), id, want.get(id));
            }
        }
    }

    static Map<String, Sharded.Figures> expected(List<JsonNode> all, Map<String, Predicate<JsonNode>> covers) {
        Map<String, Sharded.Figures> want = new LinkedHashMap<>();
        covers.forEach((id, p) -> want.put(id, Sharded.of(all.stream().filter(p).toList())));
        return want;
    }

    static Set<String> ids(List<JsonNode> events) {
        Set<String> out = new HashSet<>();
        events.forEach(e -> out.add(e.get("id").asText()));
        return out;
    }

    /** Publishes {@code n} events of {@code kind} by {@code author} at a node, each acknowledged; their JSON. */
    static List<JsonNode> publish(MeshnodeProcess node, Keys author, int kind, int n) {
        List<JsonNode> out = new ArrayList<>();
        try (NostrClient c = NostrClient.connect(node)) {
            for (int i = 0; i < n; i++) {
                Event e = kind == 1 ? author.note(Keys.now() - i, "note " + i + " at " + node.port() + " " + System.nanoTime())
                        : author.sign(kind, Keys.now() - i, "+", Keys.tag("e", String.format("%064x", System.nanoTime())));
                c.publishAndWait(e).assertAccepted();
                out.add(NostrClient.tree(e.json()));
            }
        }
        return out;
    }
}
