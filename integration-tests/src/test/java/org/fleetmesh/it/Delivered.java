package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;

/** What the delivery ITs share: nodes with room to forward, their status per peer, counts, and the receipts CLI. */
final class Delivered {
    static final Duration SETTLE = Duration.ofSeconds(90);

    private Delivered() {
    }

    /**
     * A node's environment: grants far above the test's load (tier 0 is 60 events a minute by default), quick
     * redials, and the filters it asks its peers for.
     */
    static Map<String, String> env(String federate, String... more) {
        Map<String, String> env = new HashMap<>();
        env.put("FLEETMESH_GRANTS_TIER_BYTES", "1073741824,1073741824");
        env.put("FLEETMESH_GRANTS_TIER_EVENTS", "10000000,10000000");
        env.put("FLEETMESH_MESH_REDIAL_BASE", "200ms");
        env.put("FLEETMESH_MESH_REDIAL_CAP", "2s");
        env.put("FLEETMESH_FEDERATE", federate);
        for (int i = 0; i + 1 < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    /** {@code did@ws-url} of a node's /mesh. */
    static String peerSetting(String did, int port) {
        return did + "@ws://127.0.0.1:" + port + "/mesh";
    }

    /** The node's /mesh/status entry for {@code peer}, if listed. */
    static Optional<JsonNode> peer(MeshnodeProcess n, String peer) {
        return PeeringIT.peer(PeeringIT.status(n), peer);
    }

    /** Waits until the node's entry for {@code peer} satisfies {@code p}; returns it. */
    static JsonNode awaitPeer(MeshnodeProcess n, String peer, Predicate<JsonNode> p, String what) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            Optional<JsonNode> e = peer(n, peer);
            if (e.isPresent()) {
                last = e.get();
                if (p.test(last)) {
                    return last;
                }
            }
            MeshnodeProcess.sleep(50);
        }
        throw new AssertionError(n + ": no " + what + " for " + peer + " within " + SETTLE + "; last: " + last + "\n"
                + n.logTail(40));
    }

    /** The size of a side's custody tree ({@code sent} or {@code received}) in a status entry, 0 when none. */
    static long size(JsonNode entry, String side) {
        JsonNode c = entry.path("custody").path(side);
        return c.isObject() ? c.path("size").asLong() : 0;
    }

    static boolean drained(JsonNode entry, long sent) {
        return entry.path("queue").asLong(-1) == 0 && size(entry, "sent") == sent;
    }

    /** The ids of the kind 1 events by {@code author} the node stores. */
    static Set<String> ids(MeshnodeProcess n, String author) {
        try (NostrClient c = NostrClient.connect(n)) {
            Set<String> out = new HashSet<>();
            for (JsonNode e : c.query("ids", FilterSpec.of().kinds(1).authors(author).limit(5000))) {
                if (!out.add(e.get("id").asText())) {
                    throw new AssertionError(n + " served " + e.get("id").asText() + " twice");
                }
            }
            return out;
        }
    }

    /** Waits until the node stores exactly {@code want} kind 1 events by {@code author}. */
    static void awaitIds(MeshnodeProcess n, String author, Set<String> want) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        Set<String> have = Set.of();
        while (System.nanoTime() < deadline) {
            have = ids(n, author);
            if (have.containsAll(want)) {
                assertEquals(want.size(), have.size(), n + " holds events it should not: " + diff(have, want));
                return;
            }
            MeshnodeProcess.sleep(100);
        }
        throw new AssertionError(n + " holds " + have.size() + " of " + want.size() + " events within " + SETTLE
                + "\n" + n.logTail(40));
    }

    private static Set<String> diff(Set<String> a, Set<String> b) {
        Set<String> d = new HashSet<>(a);
        d.removeAll(b);
        return d;
    }

    /** {@code ./meshnode receipts export --peer <did> --side <side>} into a file, checked to exit 0. */
    static Path export(MeshnodeProcess n, String peer, String side) throws Exception {
        Launcher.Run r = Launcher.run(n.dataDir(), null, "receipts", "export", "--peer", peer, "--side", side);
        assertEquals(0, r.exit(), "receipts export failed: " + r.stderr());
        Path f = MeshnodeProcess.outputFile("chain-" + side + "-", ".jsonl");
        Files.writeString(f, r.stdout());
        return f;
    }

    /** {@code ./meshnode receipts verify <file>}. */
    static Launcher.Run verify(MeshnodeProcess n, Path chain) throws Exception {
        return Launcher.run(n.dataDir(), null, "receipts", "verify", chain.toString());
    }

    /** Exports a chain and checks that it verifies and has {@code receipts} lines at least. */
    static List<String> verifiedChain(MeshnodeProcess n, String peer, String side) throws Exception {
        Path f = export(n, peer, side);
        Launcher.Run v = verify(n, f);
        assertEquals(0, v.exit(), "the " + side + " chain of " + n + " for " + peer + " does not verify: " + v.stdout()
                + v.stderr());
        return Files.readAllLines(f).stream().filter(l -> !l.isBlank()).toList();
    }

    /** The tree size the last receipt of an exported chain names (its {@code events} tag). */
    static long lastEvents(List<String> chain) {
        if (chain.isEmpty()) {
            return 0;
        }
        JsonNode receipt = NostrClient.tree(chain.get(chain.size() - 1)).get("receipt");
        for (JsonNode tag : receipt.get("tags")) {
            if (tag.get(0).asText().equals("events")) {
                return Long.parseLong(tag.get(1).asText());
            }
        }
        throw new AssertionError("no events tag in " + receipt);
    }
}
