package org.fleetmesh.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.negentropy.Accumulator;
import org.fleetmesh.negentropy.Id;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Hex;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the shard ITs share (docs/spec/shards.md, replication.md): nodes declaring shards, their claims (kind 30803,
 * read with REQ like any client would), the figures a set of events must have, computed here from the events alone
 * (count; Negentropy v1 fingerprint; RFC 9162 root over the ids in Negentropy order), and the status per shard.
 */
final class Sharded {
    static final Duration SETTLE = Duration.ofSeconds(120);

    private Sharded() {
    }

    /** A shard declaration, as {@code FLEETMESH_SHARDS} takes it. */
    static String shard(String id, String filter, String mode) {
        return "{\"id\":\"" + id + "\",\"filter\":" + filter + ",\"mode\":\"" + mode + "\"}";
    }

    static String shards(String... declarations) {
        return "[" + String.join(",", declarations) + "]";
    }

    /**
     * A node's environment: Delivered's (room to forward, quick redials), {@code federate} as the filters it asks for
     * live, its shards, and claims and replication passes quick enough for a test.
     */
    static Map<String, String> env(String federate, String shards, String... more) {
        Map<String, String> env = new HashMap<>(Delivered.env(federate, more));
        env.put("FLEETMESH_SHARDS", shards);
        env.put("FLEETMESH_SHARDS_CLAIM_INTERVAL", "1s");
        env.putIfAbsent("FLEETMESH_REPLICATION_INTERVAL", "2s");
        return env;
    }

    /** count, fingerprint (32 hex), root (64 hex): what a claim states and what a set of events has. */
    record Figures(long count, String fingerprint, String root) {
    }

    /** The figures of a set of events (JSON objects with "id" and "created_at"), computed from the events alone. */
    static Figures of(Collection<JsonNode> events) {
        List<JsonNode> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.<JsonNode>comparingLong(e -> e.get("created_at").asLong())
                .thenComparing(e -> e.get("id").asText()));
        Accumulator sum = new Accumulator();
        List<byte[]> leaves = new ArrayList<>(sorted.size());
        for (JsonNode e : sorted) {
            String id = e.get("id").asText();
            sum.add(Id.ofHex(id));
            leaves.add(Merkle.leafHash(EventId.ofHex(id)));
        }
        return new Figures(sorted.size(), sum.fingerprint(sorted.size()).toHex(), Hex.encode(Merkle.root(leaves)));
    }

    /** The node's Nostr pubkey, from /mesh/status. */
    static String pubkey(MeshnodeProcess n) {
        return PeeringIT.status(n).path("pubkey").asText();
    }

    /** The node's own claims (REQ kinds [30803] by its pubkey), the newest per shard id. */
    static Map<String, JsonNode> claims(MeshnodeProcess n) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        try (NostrClient c = NostrClient.connect(n)) {
            for (JsonNode e : c.query("claims", FilterSpec.of().kinds(30803).authors(pubkey(n)))) {
                String d = tag(e, "d");
                JsonNode before = out.get(d);
                if (before == null || before.get("created_at").asLong() < e.get("created_at").asLong()) {
                    out.put(d, e);
                }
            }
        }
        return out;
    }

    /** The figures a claim states. */
    static Figures figures(JsonNode claim) {
        return new Figures(Long.parseLong(tag(claim, "count")), tag(claim, "fingerprint"), tag(claim, "root"));
    }

    static String tag(JsonNode event, String name) {
        for (JsonNode t : event.get("tags")) {
            if (t.get(0).asText().equals(name)) {
                return t.get(1).asText();
            }
        }
        throw new AssertionError("no " + name + " tag in " + event);
    }

    /** Waits until the node's claim of {@code shard} states {@code want}; returns the claim. */
    static JsonNode awaitClaim(MeshnodeProcess n, String shard, Figures want) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = claims(n).get(shard);
            if (last != null && figures(last).equals(want)) {
                return last;
            }
            MeshnodeProcess.sleep(200);
        }
        throw new AssertionError(n + ": its claim of " + shard + " does not state " + want + " within " + SETTLE
                + "; last: " + last + "\nstatus shards: " + PeeringIT.status(n).path("shards") + "\n" + n.logTail(40));
    }

    /** The events matching {@code filter} the node serves (at most 5000). */
    static List<JsonNode> events(MeshnodeProcess n, FilterSpec filter) {
        try (NostrClient c = NostrClient.connect(n)) {
            return c.query("set", filter.limit(5000));
        }
    }

    /** The node's top-level "shards" of /mesh/status, by id. */
    static Map<String, JsonNode> statusShards(MeshnodeProcess n) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode s : PeeringIT.status(n).path("shards")) {
            out.put(s.path("id").asText(), s);
        }
        return out;
    }

    /** The replication entry of {@code shard} in the node's status for {@code peer} ({@code shards.<id>}), or missing. */
    static JsonNode replication(MeshnodeProcess n, String peer, String shard) {
        return Delivered.peer(n, peer).map(p -> p.path("shards").path(shard)).orElse(NostrClient.JSON.missingNode());
    }

    /** Waits until the replication entry satisfies {@code p}. */
    static JsonNode awaitReplication(MeshnodeProcess n, String peer, String shard, Predicate<JsonNode> p, String what) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = replication(n, peer, shard);
            if (p.test(last)) {
                return last;
            }
            MeshnodeProcess.sleep(100);
        }
        throw new AssertionError(n + ": no " + what + " for shard " + shard + " with " + peer + " within " + SETTLE
                + "; last: " + last + "\n" + n.logTail(40));
    }
}
