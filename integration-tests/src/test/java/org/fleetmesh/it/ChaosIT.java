package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.fleetmesh.delivery.log.ChainFile;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.link.EventFrame;
import org.fleetmesh.settlement.lightning.sim.SimulatedLightningNetwork;
import org.fleetmesh.settlement.lightning.sim.SimulatedLnd;
import org.fleetmesh.shards.Shard;
import org.fleetmesh.shards.Withholding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;

import io.vertx.core.Vertx;

/**
 * The chaos suite (issue 18): five real meshnodes in a full mesh with shards and live federation, under steady
 * client writes to random nodes, while a seeded schedule kills nodes with {@code kill -9} and restarts them on their
 * data dirs (every third kill is of a node's embedded PostgreSQL instead, which the node must start again itself), and
 * cuts and heals links; beside them a flooding peer (a test peer over the real link protocol that
 * exceeds its grant), a withholding peer ({@link RoguePeer}: a real relay asserting a shard it serves 80% of), and a
 * cheating compute worker (the fifth node, with the {@code test-cheat-rate} switch at 1, whose buyer re-executes every
 * job). Afterwards, once every link is healed and every node is back (a bounded, polled settle): every event a node
 * answered {@code OK true} is on every node whose filters want it, no node stores anything twice, every receipt chain
 * between the nodes verifies (both copies, with the code of {@code ./meshnode receipts verify}), the flooder is
 * quarantined, the withholder and the cheater have verified S2 findings against them, and no honest node has any.
 *
 * <p>Partitions: every node announces a "front door" ({@code FLEETMESH_RELAY_URL}), a {@link TcpProxy} in this JVM;
 * node j declares (and so dials) every node i &lt; j at its door. Cutting door i drops every link dialled to i (node
 * 0's cut isolates it from the mesh); clients keep writing to the node directly meanwhile.
 *
 * <p>{@code -Dchaos.seconds=N} (default 60) is the length of the fault phase; {@code -Dchaos.seed=S} replays a
 * schedule (the seed is printed); {@code -Dchaos.settle=N} (default 240) bounds the settle. docs/OPERATING.md, "Soak".
 */
class ChaosIT {
    static final int NODES = 5;
    /** Samples the withholder (declares it as a peer). */
    static final int SAMPLER = 0;
    /** The node the flooder links to. */
    static final int FLOOD_TARGET = 1;
    /** How long past the fault phase the flooder goes on if the target has not quarantined it yet. */
    static final int FLOOD_AFTER_SECONDS = 120;
    /** Buys compute from the cheater and re-executes every job. */
    static final int BUYER = 3;
    /** The cheating compute worker; a full mesh node otherwise. */
    static final int CHEATER = 4;
    /** The nodes that declare the reactions shard (kind 7); every node declares notes (kind 1). */
    static final Set<Integer> REACTIONS = Set.of(0, 2);
    static final int GRANT_EVENTS = 3000;
    static final int GRANT_WINDOW_SECONDS = 10;
    static final int WITHHELD_SHARD_SIZE = 200;
    static final int WITHHELD_COUNT = 40;
    static final long GRACE = 300; // the sampling default

    final int seconds = Integer.getInteger("chaos.seconds", 60);
    final int settleSeconds = Integer.getInteger("chaos.settle", 240);
    final long seed = Long.getLong("chaos.seed", System.nanoTime());

    final TcpProxy[] doors = new TcpProxy[NODES];
    final MeshnodeProcess[] nodes = new MeshnodeProcess[NODES];
    final String[] dids = new String[NODES];
    final String[] longDids = new String[NODES];
    final String[] pubkeys = new String[NODES];
    final String[] tokens = new String[NODES];
    final Object[] nodeLocks = new Object[NODES];
    final List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());
    final long t0 = System.nanoTime();

    /** Every event a client sent: id → the node it was sent to; {@link #ok}: those answered OK true. */
    final Map<String, Integer> sentTo = new ConcurrentHashMap<>();
    final Map<String, Integer> kindOf = new ConcurrentHashMap<>();
    final Set<String> ok = ConcurrentHashMap.newKeySet();
    final AtomicLong okFalse = new AtomicLong();
    final AtomicLong unanswered = new AtomicLong();
    final Map<String, AtomicInteger> faults = new ConcurrentHashMap<>();
    /** What went wrong during the fault phase itself (a postmaster its node did not start again). */
    final List<String> faultFailures = java.util.Collections.synchronizedList(new ArrayList<>());

    void fault(String type) {
        faults.computeIfAbsent(type, k -> new AtomicInteger()).incrementAndGet();
    }

    void note(String what) {
        String line = String.format(Locale.ROOT, "[chaos %7.1fs] %s", (System.nanoTime() - t0) / 1e9, what);
        log.add(line);
        System.out.println(line);
    }

    static Map<String, String> nodeEnv(int i, int door) {
        String notes = Sharded.shard("notes", "{\"kinds\":[1]}", "asserted");
        String reactions = Sharded.shard("reactions", "{\"kinds\":[7]}", "asserted");
        // live: notes everywhere, reactions where the reactions shard is declared
        Map<String, String> env = Sharded.env(REACTIONS.contains(i) ? "[{\"kinds\":[1]},{\"kinds\":[7]}]"
                : "[{\"kinds\":[1]}]",
                REACTIONS.contains(i) ? Sharded.shards(notes, reactions) : Sharded.shards(notes),
                "FLEETMESH_SHARDS_CLAIM_INTERVAL", "2s",
                "FLEETMESH_REPLICATION_INTERVAL", "2s",
                "FLEETMESH_RELAY_URL", "ws://127.0.0.1:" + door + "/",
                "FLEETMESH_SAMPLING_INTERVAL", "5s",
                // a grant far above what the honest load needs, far below what the flooder offers
                "FLEETMESH_GRANTS_WINDOW", GRANT_WINDOW_SECONDS + "s",
                "FLEETMESH_GRANTS_TIER_BYTES", "67108864,268435456",
                "FLEETMESH_GRANTS_TIER_EVENTS", GRANT_EVENTS + "," + (10 * GRANT_EVENTS),
                "FLEETMESH_GRANTS_VIOLATION_THRESHOLD", "3",
                "FLEETMESH_GRANTS_VIOLATION_TOLERANCE", "2",
                "FLEETMESH_GRANTS_QUARANTINE", "3600s");
        return env;
    }

    @Test
    @Timeout(value = 3600, unit = TimeUnit.SECONDS)
    void fiveNodesSurviveKillsPartitionsAFlooderAWithholderAndACheater() throws Exception {
        note("seed " + seed + " (replay with -Dchaos.seed=" + seed + "), fault phase " + seconds + " s, settle bound "
                + settleSeconds + " s");
        Random schedule = new Random(seed);
        Arrays.setAll(nodeLocks, i -> new Object());
        Vertx vertx = Vertx.vertx();
        SimulatedLightningNetwork net = new SimulatedLightningNetwork(MeshnodeProcess.newDataDir("chaos-lnd"));
        ExecutorService pool = Executors.newCachedThreadPool();
        RoguePeer rogue = null;
        try {
            // ---- the mesh: five doors, five nodes started at once, node j declaring every i < j at its door
            Map<Integer, Map<String, String>> envs = new HashMap<>();
            for (int i = 0; i < NODES; i++) {
                doors[i] = new TcpProxy();
                envs.put(i, nodeEnv(i, doors[i].port()));
            }
            for (int i : new int[] { BUYER, CHEATER }) {
                SimulatedLnd lnd = net.startNode("chaos-" + i);
                ComputeNodes.sellingOverLnd(envs.get(i), lnd);
            }
            envs.get(CHEATER).put("FLEETMESH_COMPUTE_MARKET_TEST_CHEAT_RATE", "1.0");
            envs.get(BUYER).put("FLEETMESH_COMPUTE_MARKET_SELL", "false");
            envs.get(BUYER).put("FLEETMESH_COMPUTE_MARKET_SAMPLE_RATE", "1.0");
            // each node's keys made here in its data dir, as the node makes them on a first start: the DIDs are known
            // before any node runs, so node j declares every i < j (at i's door) in FLEETMESH_PEERS
            java.nio.file.Path[] dataDirs = new java.nio.file.Path[NODES];
            for (int i = 0; i < NODES; i++) {
                dataDirs[i] = MeshnodeProcess.newDataDir("chaos-" + i);
                NodeSecrets keys = NodeSecrets.loadOrCreate(dataDirs[i], NodeSecrets.Supplied.NONE,
                        NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE);
                longDids[i] = NodeDidDocument.of(keys.publicKeys(), NodeEndpoints.of("ws://127.0.0.1:" + doors[i].port()
                        + "/", "ws://127.0.0.1:" + doors[i].port() + "/mesh", "http://127.0.0.1:" + doors[i].port()
                        + "/didcomm")).did();
                dids[i] = PeerIdentity.shortForm(longDids[i]);
                pubkeys[i] = keys.publicKeys().nostr().hex();
            }
            // the withholder: a relay asserting a shard of old notes (older than the sampling grace) it serves 80% of,
            // declared by node SAMPLER
            Keys old = Keys.fresh();
            List<Event> oldNotes = new ArrayList<>();
            long now = Keys.now();
            for (int k = 0; k < WITHHELD_SHARD_SIZE; k++) {
                oldNotes.add(old.note(now - 7200 + k, "an old note " + k));
            }
            rogue = new RoguePeer(vertx, "chaos-withholder");
            rogue.serve(oldNotes);
            Set<EventId> withheld = new HashSet<>();
            Random w = new Random(seed);
            while (withheld.size() < WITHHELD_COUNT) {
                withheld.add(oldNotes.get(w.nextInt(oldNotes.size())).id());
            }
            rogue.withhold(withheld);
            Shard rogueShard = new Shard("chaos-old", new Filter(null, Set.of(PubKey.ofHex(old.pubkey())), Set.of(1),
                    Map.of(), null, null, null), Shard.Mode.ASSERTED);
            Event rogueClaim = rogue.claim(rogueShard, Keys.now());
            for (int j = 0; j < NODES; j++) {
                List<String> peers = new ArrayList<>();
                for (int i = 0; i < j; i++) {
                    peers.add(longDids[i] + "@ws://127.0.0.1:" + doors[i].port() + "/mesh");
                }
                if (j == SAMPLER) {
                    peers.add(rogue.peerSetting());
                }
                if (!peers.isEmpty()) {
                    envs.get(j).put("FLEETMESH_PEERS", String.join(",", peers));
                }
            }
            long startAt = System.nanoTime();
            List<Future<?>> starting = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                int n = i;
                starting.add(pool.submit(() -> {
                    nodes[n] = startOn(n, dataDirs[n], envs.get(n));
                    doors[n].target(nodes[n].port());
                    assertEquals(dids[n], patiently(() -> PeeringIT.did(nodes[n])), "the node runs on the keys made for it");
                    return null;
                }));
            }
            for (Future<?> f : starting) {
                f.get(300, TimeUnit.SECONDS);
            }
            note(String.format(Locale.ROOT, "five nodes ready (started in parallel) in %.1f s",
                    (System.nanoTime() - startAt) / 1e9));
            for (int j = 1; j < NODES; j++) {
                for (int i = 0; i < j; i++) {
                    int a = i;
                    int b = j;
                    long linkDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
                    while (!patiently(() -> PeeringIT.upOnce(nodes[a], dids[b]) && PeeringIT.upOnce(nodes[b], dids[a]))) {
                        assertTrue(System.nanoTime() < linkDeadline, "no link between nodes " + a + " and " + b);
                        MeshnodeProcess.sleep(200);
                    }
                }
            }
            note(String.format(Locale.ROOT, "ten links up %.1f s after the start", (System.nanoTime() - startAt) / 1e9));

            // ---- the withholder's shard: the old notes on every node first (an honest node lacking them would be
            // sampled missing them: lag, not withholding; docs/spec/sampling.md)
            try (NostrClient c = NostrClient.connect(nodes[SAMPLER])) {
                for (Event e : oldNotes) {
                    c.publish(e);
                }
                for (Event e : oldNotes) {
                    assertTrue(c.expectOk(e.id().hex()).accepted());
                    sentTo.put(e.id().hex(), SAMPLER);
                    kindOf.put(e.id().hex(), 1);
                    ok.add(e.id().hex());
                }
            }
            Set<String> oldIds = new HashSet<>();
            oldNotes.forEach(e -> oldIds.add(e.id().hex()));
            for (int i = 0; i < NODES; i++) {
                awaitHolds(i, oldIds, Duration.ofSeconds(120));
            }
            faults.computeIfAbsent("withholding peer (events withheld)", k -> new AtomicInteger()).set(WITHHELD_COUNT);
            note("old notes on every node; the withholder (declared at node " + SAMPLER + ") asserts "
                    + WITHHELD_SHARD_SIZE + " of them, serves " + (WITHHELD_SHARD_SIZE - WITHHELD_COUNT));

            // ---- the fault phase
            String computeToken = computeToken(nodes[BUYER]);
            awaitOffer(BUYER, computeToken, dids[CHEATER]);
            AtomicBoolean writing = new AtomicBoolean(true);
            Keys[] authors = { Keys.fresh(), Keys.fresh(), Keys.fresh() };
            long chaosStart = System.nanoTime();
            long chaosEnd = chaosStart + TimeUnit.SECONDS.toNanos(seconds);
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                long writerSeed = seed * 31 + t;
                work.add(pool.submit(() -> writer(new Random(writerSeed), authors, writing)));
            }
            List<long[]> kills = new ArrayList<>(); // {at ms, node, down ms}
            List<long[]> cuts = new ArrayList<>(); // {at ms, door bitmask, cut ms}
            long ms = seconds * 1000L;
            for (long at = ms / 8; at < ms * 8 / 10; at += ms / 5 + schedule.nextInt((int) (ms / 10) + 1)) {
                kills.add(new long[] { at, schedule.nextInt(NODES), 2000 + schedule.nextInt(6000) });
            }
            for (long at = ms / 12; at < ms * 85 / 100; at += 6000 + schedule.nextInt(8000)) {
                int mask = 1 << schedule.nextInt(NODES);
                if (schedule.nextInt(3) == 0) {
                    mask |= 1 << schedule.nextInt(NODES); // sometimes two doors at once
                }
                cuts.add(new long[] { at, mask, 4000 + schedule.nextInt(11000) });
            }
            note("schedule: " + kills.size() + " kill -9 (" + describe(kills) + "), " + cuts.size() + " cuts ("
                    + describe(cuts) + ")");
            work.add(pool.submit(() -> runKills(kills, chaosStart)));
            work.add(pool.submit(() -> runCuts(cuts, chaosStart)));
            Future<MeshPeer> flood = pool.submit(() -> flood(vertx, chaosEnd));
            Future<int[]> compute = pool.submit(() -> buyJobs(computeToken, chaosEnd));

            while (System.nanoTime() < chaosEnd) {
                Thread.sleep(500);
            }
            writing.set(false);
            for (Future<?> f : work) {
                f.get(180, TimeUnit.SECONDS);
            }
            // healed: every door open, every node up
            for (int i = 0; i < NODES; i++) {
                doors[i].restore();
                synchronized (nodeLocks[i]) {
                    if (!nodes[i].isAlive()) {
                        restart(i);
                    }
                }
            }
            MeshPeer flooder = flood.get(FLOOD_AFTER_SECONDS + 60, TimeUnit.SECONDS);
            int[] jobs = compute.get(300, TimeUnit.SECONDS);
            long chaosSeconds = (System.nanoTime() - chaosStart) / 1_000_000_000L;
            note("fault phase over: " + ok.size() + " events answered OK true, " + okFalse.get() + " OK false, "
                    + unanswered.get() + " unanswered; compute jobs " + jobs[0] + " submitted, " + jobs[1] + " done");

            // ---- settle: poll until every node holds every OK true event its filters want, or the bound
            long settleStart = System.nanoTime();
            Map<Integer, Set<String>> want = wanted();
            Map<Integer, Set<String>> missing = new TreeMap<>();
            long settleDeadline = settleStart + TimeUnit.SECONDS.toNanos(settleSeconds);
            while (true) {
                missing.clear();
                for (int i = 0; i < NODES; i++) {
                    Set<String> m = new HashSet<>(want.get(i));
                    m.removeAll(holds(i, want.get(i)));
                    if (!m.isEmpty()) {
                        missing.put(i, m);
                    }
                }
                if (missing.isEmpty() || System.nanoTime() > settleDeadline) {
                    break;
                }
                Thread.sleep(2000);
            }
            // what is still missing at the bound is asked once more, id by id list, before it counts as lost
            for (Map.Entry<Integer, Set<String>> m : new ArrayList<>(missing.entrySet())) {
                m.getValue().removeAll(patiently(() -> holds(m.getKey(), m.getValue())));
                if (m.getValue().isEmpty()) {
                    missing.remove(m.getKey());
                }
            }
            double settled = (System.nanoTime() - settleStart) / 1e9;
            long lost = missing.values().stream().mapToLong(Set::size).sum();
            note(String.format(Locale.ROOT, "settle: %s after %.1f s", lost == 0 ? "converged" : lost + " missing",
                    settled));

            // ---- the checks
            List<String> failures = new ArrayList<>(faultFailures);
            missing.forEach((i, m) -> {
                Map<String, Integer> by = new TreeMap<>();
                m.forEach(id -> by.merge("kind " + kindOf.get(id) + " sent to node " + sentTo.get(id), 1, Integer::sum));
                failures.add("node " + i + " lacks " + m.size() + " OK true events it wants (" + by + "), e.g. "
                        + m.iterator().next());
            });
            long duplicates = 0;
            long unwanted = 0;
            for (int i = 0; i < NODES; i++) {
                long[] d = storedTwice(i, authors, old);
                duplicates += d[0] - d[1];
                if (d[0] != d[1]) {
                    failures.add("node " + i + " stores " + d[0] + " rows for " + d[1] + " distinct ids");
                }
                if (!REACTIONS.contains(i)) {
                    for (String id : ids(i, FilterSpec.of().kinds(7).authors(pubkeysOf(authors)).limit(5000))) {
                        if (!Integer.valueOf(i).equals(sentTo.get(id))) {
                            unwanted++;
                            failures.add("node " + i + " holds reaction " + id + " no filter of its own wants");
                        }
                    }
                }
            }
            int[] chains = verifyChains(failures);
            // the flooder: quarantined, with the S3 evidence, and refused when it links again
            boolean quarantined = quarantined(flooder, failures);
            // the withholder: S2 withholding evidence at the sampler that verifies, a finding signed for it
            int withholderFindings = withholderFound(rogue, rogueClaim, withheld, failures);
            // the cheater: S2 re-execution findings at the buyer
            int cheaterFindings = cheaterFound(jobs, failures);
            // honest nodes: no finding anywhere, no evidence
            int falseFindings = honestClean(failures);

            long total = (System.nanoTime() - t0) / 1_000_000_000L;
            StringBuilder table = new StringBuilder();
            table.append(String.format(Locale.ROOT, "%n==== chaos summary (seed %d) ====%n", seed));
            row(table, "nodes", NODES + " (4 honest, 1 cheating compute worker) + flooder + withholder");
            row(table, "fault phase", chaosSeconds + " s");
            row(table, "events written (sent)", Integer.toString(sentTo.size()));
            row(table, "events OK true", Integer.toString(ok.size()));
            row(table, "events OK false / unanswered", okFalse.get() + " / " + unanswered.get());
            faults.entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .forEach(e -> row(table, "fault: " + e.getKey(), e.getValue().toString()));
            row(table, "events lost (must be 0)", Long.toString(lost));
            row(table, "events stored twice (must be 0)", Long.toString(duplicates));
            row(table, "reactions at nodes that do not want them", Long.toString(unwanted));
            row(table, "receipt chains verified / failed", chains[0] + " / " + chains[1]);
            row(table, "flooder quarantined", Boolean.toString(quarantined));
            row(table, "withholder findings (verified)", Integer.toString(withholderFindings));
            row(table, "cheater findings (verified)", cheaterFindings + " (jobs " + jobs[0] + " submitted, " + jobs[1]
                    + " done)");
            row(table, "compute jobs not ended within 90 s (must be 0)", Integer.toString(jobs[2]));
            row(table, "findings correct / incorrect", (withholderFindings + cheaterFindings + (quarantined ? 1 : 0))
                    + " / " + falseFindings);
            row(table, "settle (converged after)", String.format(Locale.ROOT, "%.1f s", settled));
            row(table, "whole run", total + " s");
            table.append(failures.isEmpty() ? "all checks passed\n" : failures.size() + " check(s) failed\n");
            System.out.print(table);
            Files.writeString(MeshnodeProcess.targetDir().resolve("chaos-summary-" + seed + ".txt"),
                    String.join("\n", log) + "\n" + table + String.join("\n", failures) + "\n",
                    StandardCharsets.UTF_8);
            assertTrue(failures.isEmpty(), "chaos (seed " + seed + "):\n" + String.join("\n", failures) + table);
            if (flooder != null) {
                flooder.close();
            }
        } finally {
            for (MeshnodeProcess n : nodes) {
                if (n != null) {
                    n.close();
                }
            }
            for (TcpProxy d : doors) {
                if (d != null) {
                    d.close();
                }
            }
            if (rogue != null) {
                rogue.close();
            }
            pool.shutdownNow();
            net.close();
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    static void row(StringBuilder sb, String what, String value) {
        sb.append(String.format(Locale.ROOT, "%-44s %s%n", what, value));
    }

    static String describe(List<long[]> faults) {
        StringBuilder sb = new StringBuilder();
        for (long[] f : faults) {
            sb.append(sb.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "@%.1fs %s for %.1fs",
                    f[0] / 1000.0, f[1], f[2] / 1000.0));
        }
        return sb.toString();
    }

    /** The did:peer:4 long form of the node (from its DID document), so that it can be declared and sampled. */
    static String longDid(MeshnodeProcess n) {
        HttpResponse<String> r = PeeringIT.send(HttpRequest.newBuilder(n.httpUri().resolve("/.well-known/did.json"))
                .GET());
        assertEquals(200, r.statusCode(), r.body());
        String id = NostrClient.tree(r.body()).path("id").asText();
        assertTrue(id.startsWith("did:peer:4"), r.body());
        return id;
    }

    // ---------------------------------------------------------------- load

    /** Publishes signed notes (3 in 4) and reactions to random live nodes, recording every answer. */
    void writer(Random r, Keys[] authors, AtomicBoolean writing) {
        Map<Integer, NostrClient> clients = new HashMap<>();
        long k = 0;
        try {
            while (writing.get()) {
                int n = r.nextInt(NODES);
                Keys a = authors[r.nextInt(authors.length)];
                boolean reaction = r.nextInt(4) == 0;
                Event e = reaction
                        ? a.sign(7, Keys.now(), "+", Keys.tag("e", String.format("%064x", r.nextLong() & Long.MAX_VALUE)))
                        : a.note(Keys.now(), "chaos " + seed + " " + (k++) + " " + r.nextLong());
                String id = e.id().hex();
                NostrClient c = clients.get(n);
                try {
                    if (c == null || !c.isOpen()) {
                        if (!nodes[n].isAlive()) {
                            MeshnodeProcess.sleep(50);
                            continue;
                        }
                        c = NostrClient.connect(nodes[n]);
                        clients.put(n, c);
                    }
                    sentTo.put(id, n);
                    kindOf.put(id, e.kind());
                    c.publish(e);
                    NostrClient.Ok answer = c.expectOk(id, Duration.ofSeconds(10));
                    if (answer.accepted()) {
                        ok.add(id);
                    } else {
                        okFalse.incrementAndGet();
                        note("OK false from node " + n + ": " + answer.message());
                    }
                } catch (RuntimeException | AssertionError failed) {
                    // the node died or the connection dropped: no OK true, nothing promised
                    if (sentTo.containsKey(id)) {
                        unanswered.incrementAndGet();
                    }
                    if (c != null) {
                        c.close();
                    }
                    clients.remove(n);
                }
                MeshnodeProcess.sleep(150 + r.nextInt(200));
            }
        } finally {
            clients.values().forEach(NostrClient::close);
        }
    }

    /** Which OK true events each node must hold: notes everywhere, reactions where declared and where sent. */
    Map<Integer, Set<String>> wanted() {
        Map<Integer, Set<String>> want = new HashMap<>();
        for (int i = 0; i < NODES; i++) {
            want.put(i, new HashSet<>());
        }
        for (String id : ok) {
            for (int i = 0; i < NODES; i++) {
                if (kindOf.get(id) == 1 || REACTIONS.contains(i) || sentTo.get(id) == i) {
                    want.get(i).add(id);
                }
            }
        }
        return want;
    }

    /** Of {@code ids}, those node i serves to REQ by ids (asked in chunks); fails on an id served twice. */
    Set<String> holds(int i, Set<String> ids) {
        Set<String> out = new HashSet<>();
        List<String> all = new ArrayList<>(ids);
        try (NostrClient c = NostrClient.connect(nodes[i])) {
            for (int from = 0; from < all.size(); from += 200) {
                List<String> chunk = all.subList(from, Math.min(all.size(), from + 200));
                for (JsonNode e : c.query("h" + from, FilterSpec.of().ids(chunk.toArray(String[]::new)))) {
                    if (!out.add(e.get("id").asText())) {
                        throw new AssertionError("node " + i + " served " + e.get("id").asText() + " twice");
                    }
                }
            }
        } catch (IllegalStateException | AssertionError slow) {
            return out; // still starting, or a query left unanswered on a loaded machine: asked again
        }
        return out;
    }

    void awaitHolds(int i, Set<String> ids, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!holds(i, ids).containsAll(ids)) {
            assertTrue(System.nanoTime() < deadline, "node " + i + " does not hold the old notes within " + bound
                    + "\n" + nodes[i].logTail(30));
            MeshnodeProcess.sleep(500);
        }
    }

    Set<String> ids(int i, FilterSpec f) {
        try (NostrClient c = NostrClient.connect(nodes[i])) {
            Set<String> out = new HashSet<>();
            c.query("ids", f).forEach(e -> out.add(e.get("id").asText()));
            return out;
        }
    }

    static String[] pubkeysOf(Keys[] keys) {
        return Arrays.stream(keys).map(Keys::pubkey).toArray(String[]::new);
    }

    // ---------------------------------------------------------------- faults

    void runKills(List<long[]> kills, long start) {
        for (int i = 0; i < kills.size(); i++) {
            long[] k = kills.get(i);
            sleepUntil(start + TimeUnit.MILLISECONDS.toNanos(k[0]));
            int n = (int) k[1];
            if (i % 3 == 1) { // every third kill is of the node's embedded PostgreSQL: the node starts it again itself
                killPostmaster(n);
                continue;
            }
            synchronized (nodeLocks[n]) {
                if (!nodes[n].isAlive()) {
                    continue;
                }
                note("kill -9 node " + n + " (pid " + nodes[n].pid() + ")");
                nodes[n].kill();
                fault("kill -9");
            }
            MeshnodeProcess.sleep(k[2]);
            synchronized (nodeLocks[n]) {
                long t = System.nanoTime();
                restart(n);
                fault("restart");
                note(String.format(Locale.ROOT, "node %d back on its data dir in %.1f s", n, (System.nanoTime() - t) / 1e9));
            }
        }
    }

    /**
     * {@code kill -9} of node n's postmaster (as the OOM killer would): the node, left running, must start it again on
     * its own and be ready within a minute, without a restart from here.
     */
    void killPostmaster(int n) {
        synchronized (nodeLocks[n]) {
            if (!nodes[n].isAlive()) {
                return;
            }
            java.util.OptionalLong pm = nodes[n].livePostmasterFromPidFile();
            if (pm.isEmpty()) {
                return;
            }
            note("kill -9 node " + n + "'s postmaster (pid " + pm.getAsLong() + ")");
            try {
                new ProcessBuilder("kill", "-KILL", Long.toString(pm.getAsLong())).inheritIO().start().waitFor();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            fault("kill -9 postmaster");
            long t = System.nanoTime();
            long deadline = t + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                java.util.OptionalLong now = nodes[n].livePostmasterFromPidFile();
                if (now.isPresent() && now.getAsLong() != pm.getAsLong() && readyNow(n)) {
                    note(String.format(Locale.ROOT, "node %d started its postmaster again and is ready in %.1f s", n,
                            (System.nanoTime() - t) / 1e9));
                    fault("postmaster started again by its node");
                    return;
                }
                MeshnodeProcess.sleep(100);
            }
            faultFailures.add("node " + n + " did not start its killed postmaster again and become ready within 60 s");
        }
    }

    boolean readyNow(int n) {
        try {
            return PeeringIT.send(HttpRequest.newBuilder(nodes[n].httpUri().resolve("/q/health/ready"))
                    .GET()).statusCode() == 200;
        } catch (Exception | AssertionError e) { // not answered: not ready
            return false;
        }
    }

    void runCuts(List<long[]> cuts, long start) {
        for (long[] c : cuts) {
            sleepUntil(start + TimeUnit.MILLISECONDS.toNanos(c[0]));
            List<Integer> cut = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                if ((c[1] & (1L << i)) != 0) {
                    doors[i].cut();
                    cut.add(i);
                    fault("link cut (door)");
                }
            }
            note("cut the doors of " + cut + " for " + c[2] + " ms");
            MeshnodeProcess.sleep(c[2]);
            cut.forEach(i -> doors[i].restore());
            note("healed the doors of " + cut);
        }
    }

    /**
     * An HTTP read of a node that a machine loaded by other builds can leave unanswered within its 20 s: tried up to
     * three times.
     */
    static <T> T patiently(java.util.function.Supplier<T> read) {
        for (int attempt = 1;; attempt++) {
            try {
                return read.get();
            } catch (AssertionError | RuntimeException e) {
                if (attempt == 3) {
                    throw e;
                }
                MeshnodeProcess.sleep(1000);
            }
        }
    }

    /**
     * Starts node n on its data dir; a start that is not ready within MeshnodeProcess's bound (a machine shared with
     * other builds can take that long) is stopped and tried again, twice at most: a second start skips initdb and the
     * migrations.
     */
    MeshnodeProcess startOn(int n, java.nio.file.Path dir, Map<String, String> env) {
        for (int attempt = 1;; attempt++) {
            try {
                return MeshnodeProcess.startOn("chaos-" + n, dir, env, 0);
            } catch (IllegalStateException slow) {
                if (attempt == 3 || !slow.getMessage().contains("was not ready within")) {
                    throw slow;
                }
                note("node " + n + " was not ready in time (start " + attempt + "), starting it again");
            }
        }
    }

    /** Starts node n again on its port, as {@link #startOn} tries again a start that is not ready in time. */
    void restart(int n) {
        for (int attempt = 1;; attempt++) {
            try {
                nodes[n].startAgainOnSamePort();
                doors[n].target(nodes[n].port()); // a retried start may have had to take another port
                return;
            } catch (IllegalStateException slow) {
                if (attempt == 3 || !slow.getMessage().contains("was not ready within")) {
                    throw slow;
                }
                note("node " + n + " was not ready in time (restart " + attempt + "), starting it again");
            }
        }
    }

    static void sleepUntil(long nanoTime) {
        long wait = nanoTime - System.nanoTime();
        if (wait > 0) {
            MeshnodeProcess.sleep(TimeUnit.NANOSECONDS.toMillis(wait) + 1);
        }
    }

    /**
     * A peer with fresh keys links to the flood target (the real handshake and custody exchange) and sends frames of
     * 100 events as fast as the node answers, far past its grant, until the node ends the link quarantined. A kill of
     * the node meanwhile: it links again and goes on, past the end of the fault phase if need be.
     */
    MeshPeer flood(Vertx vertx, long until) throws Exception {
        AtomicLong accepted = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicBoolean quarantinedSeen = new AtomicBoolean();
        java.util.concurrent.BlockingQueue<String> answers = new java.util.concurrent.LinkedBlockingQueue<>();
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        long seq = 0;
        int batch = 0;
        int identities = 0;
        long t = Keys.now() - 60;
        // a flooder does not stop when the faults do: a target killed late in the phase (or twice in a row, each
        // restart slowed by the others' load) may give it its first full window only after the phase ends
        long deadline = until + TimeUnit.SECONDS.toNanos(FLOOD_AFTER_SECONDS);
        MeshPeer peer = null;
        while (!quarantinedSeen.get() && System.nanoTime() < deadline) {
            try {
                synchronized (nodeLocks[FLOOD_TARGET]) {
                    if (!nodes[FLOOD_TARGET].isAlive()) {
                        throw new IllegalStateException("down");
                    }
                }
                // a link lost to a kill of the target: the flooder comes back under fresh keys (the custody exchange
                // of a peer that sent before would have to resume its tree; a flooder has no reason to)
                if (peer != null) {
                    peer.close();
                }
                peer = new MeshPeer(vertx, "chaos-flooder");
                identities++;
                answers.clear();
                peer.link(nodes[FLOOD_TARGET]);
                peer.exchange();
                peer.listener = m -> {
                    int end = m.indexOf('"', 2);
                    seen.merge(end > 2 ? m.substring(2, end) : "?", 1, Integer::sum);
                    if (m.startsWith("[\"MESH-ERR\"") && m.contains("quarantined")) {
                        quarantinedSeen.set(true);
                        answers.add(m);
                    } else if (m.startsWith("[\"MESH-RECEIPT\"")) {
                        // with receipts on (as in the mesh), a frame's events are answered by its receipt
                        JsonNode r = MeshPeer.json(m);
                        if (!r.get(1).path("catch_up").asBoolean(false)) {
                            accepted.addAndGet(r.get(4).size());
                            answers.add(m);
                        }
                    } else if (m.startsWith("[\"" + EventFrame.EVENTS_OK + "\"")) {
                        for (JsonNode row : MeshPeer.json(m).get(2)) {
                            if (row.get(1).asBoolean()) {
                                accepted.incrementAndGet();
                            }
                        }
                        answers.add(m);
                    } else if (m.startsWith("[\"" + EventFrame.REFUSED + "\"")) {
                        refused.incrementAndGet();
                        answers.add(m);
                    }
                };
                // what queued before the listener
                for (String m; (m = peer.received.poll()) != null;) {
                    peer.listener.accept(m);
                }
                note("flooder linked to node " + FLOOD_TARGET + " (" + peer.shortDid() + ")");
                long frame = 0;
                while (!quarantinedSeen.get() && !peer.closed.isDone() && System.nanoTime() < deadline) {
                    List<String> events = new ArrayList<>(100);
                    for (int i = 0; i < 100; i++) {
                        // kind 9999: no filter of the mesh wants them, so what is admitted stays at the target
                        events.add(Events.sign(peer.secrets.nostr().bytes(), t, 9999, List.of(), "flood " + batch + " "
                                + i).json());
                    }
                    batch++;
                    seq++;
                    peer.send(peer.frame(++frame, events));
                    fault("flood frames sent");
                    // frames go back to back, answered or not: 40 frames are 4,000 events against a grant of 3,000
                    // per window; then the answers are awaited before the next burst
                    if (frame % 40 == 0) {
                        long quiet = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        while (answers.size() < 40 && !quarantinedSeen.get() && System.nanoTime() < quiet) {
                            MeshnodeProcess.sleep(20);
                        }
                        if (answers.size() < 40 && !quarantinedSeen.get()) {
                            break; // the link is gone or stuck: link again
                        }
                        answers.clear();
                    }
                }
            } catch (Exception | AssertionError e) {
                MeshnodeProcess.sleep(500); // the node is down or restarting: link again
            }
        }
        faults.computeIfAbsent("flood frames refused", k -> new AtomicInteger()).set((int) refused.get());
        note("flooder: " + seq + " frames of 100 events sent (" + (seq * 100) + " events; the grant is " + GRANT_EVENTS
                + " per " + GRANT_WINDOW_SECONDS + " s), " + accepted.get() + " events admitted, " + refused.get()
                + " frames refused, quarantined: " + quarantinedSeen.get() + ", identities " + identities
                + "; messages from the node: " + seen);
        return peer;
    }

    /**
     * Buys jobs from the cheater until the fault phase ends (at least one, after it if need be); {submitted, done, not
     * ended within 90 s}.
     */
    int[] buyJobs(String token, long until) throws Exception {
        int submitted = 0;
        int done = 0;
        int stuck = 0;
        byte[] module = ComputeNodes.module("upper.wasm");
        long deadline = until + TimeUnit.SECONDS.toNanos(150);
        while ((System.nanoTime() < until || done == 0) && System.nanoTime() < deadline) {
            try {
                String mod = putBlob(token, module);
                String in = putBlob(token, ("chaos job " + submitted).getBytes(StandardCharsets.UTF_8));
                String body = "{\"worker\":\"" + dids[CHEATER] + "\",\"module\":\"" + mod + "\",\"input\":\"" + in
                        + "\",\"fuel_limit\":100000000,\"memory_pages\":32,\"max_price_msat\":1000000,"
                        + "\"rail\":\"ln\",\"auto_pay\":true}";
                HttpResponse<String> r = compute(BUYER, token, "POST", "/mesh/compute/jobs", body);
                if (r.statusCode() != 201) {
                    note("compute job refused: " + r.statusCode() + " " + r.body());
                    MeshnodeProcess.sleep(2000);
                    continue;
                }
                submitted++;
                fault("cheating worker jobs");
                String id = NostrClient.tree(r.body()).path("id").asText();
                // every job ends: a message a cut or a kill lost is sent again when the link opens again
                // (docs/spec/compute.md, "Lost messages"), so none waits for its expiry
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                String state = "?";
                while (System.nanoTime() < end) {
                    try {
                        HttpResponse<String> v = compute(BUYER, token, "GET", "/mesh/compute/jobs/" + id, null);
                        state = v.statusCode() == 200 ? NostrClient.tree(v.body()).path("state").asText() : "?";
                    } catch (RuntimeException | AssertionError e) {
                        state = "? (the buyer is down)";
                    }
                    if (ComputeNodes.FINAL.contains(state)) {
                        note("compute job " + id + " ended " + state);
                        done += state.equals("done") ? 1 : 0;
                        break;
                    }
                    MeshnodeProcess.sleep(300);
                }
                if (!ComputeNodes.FINAL.contains(state)) {
                    stuck++;
                    note("compute job " + id + " still " + state + " after 90 s");
                }
            } catch (RuntimeException | AssertionError e) {
                MeshnodeProcess.sleep(1000); // the buyer is down or restarting
            }
        }
        return new int[] { submitted, done, stuck };
    }

    HttpResponse<String> compute(int n, String token, String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(nodes[n].httpUri().resolve(path))
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        return PeeringIT.send(b);
    }

    String putBlob(String token, byte[] bytes) {
        HttpResponse<String> r = PeeringIT.send(HttpRequest.newBuilder(nodes[BUYER].httpUri()
                .resolve("/mesh/compute/blobs")).header("Authorization", "Bearer " + token)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes)));
        assertEquals(200, r.statusCode(), r.body());
        return NostrClient.tree(r.body()).path("sha256").asText();
    }

    static String computeToken(MeshnodeProcess n) throws Exception {
        Launcher.Run r = Launcher.run(n.dataDir(), null, "token", "issue", "--right", "compute:run", "--fuel-limit",
                "10000000000");
        assertEquals(0, r.exit(), r.stderr());
        return r.stdout().strip();
    }

    void awaitOffer(int buyer, String token, String worker) {
        ComputeNodes.await(() -> {
            HttpResponse<String> r = compute(buyer, token, "GET", "/mesh/compute/offers", null);
            return r.statusCode() == 200 && NostrClient.tree(r.body()).findValues("worker").stream()
                    .anyMatch(x -> x.asText().equals(worker));
        }, "the cheater's offer at the buyer");
    }

    // ---------------------------------------------------------------- checks

    /** {rows, distinct ids} of the test's events in node i's event table. */
    long[] storedTwice(int i, Keys[] authors, Keys old) throws Exception {
        try (Connection db = MeshPeer.database(nodes[i]); PreparedStatement ps = db.prepareStatement(
                "select count(*), count(distinct id) from event where encode(pubkey, 'hex') = any(?)")) {
            List<String> keys = new ArrayList<>(Arrays.asList(pubkeysOf(authors)));
            keys.add(old.pubkey());
            ps.setArray(1, db.createArrayOf("text", keys.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new long[] { rs.getLong(1), rs.getLong(2) };
            }
        }
    }

    /**
     * Every custody chain each node keeps with another node (both sides), rebuilt from its ledger as {@code receipts
     * export} writes it and checked by {@link ChainFile#verify} (the code of {@code receipts verify}); a chain's two
     * copies (the receiver's received, the sender's sent) name the same head. One chain also through the CLI.
     * {verified, failed}.
     */
    int[] verifyChains(List<String> failures) throws Exception {
        int verified = 0;
        int failed = 0;
        Map<String, String> heads = new HashMap<>();
        Set<String> honestDids = new HashSet<>(Arrays.asList(dids));
        for (int i = 0; i < NODES; i++) {
            try (Connection db = MeshPeer.database(nodes[i])) {
                Map<Integer, String[]> trees = new LinkedHashMap<>();
                try (PreparedStatement ps = db.prepareStatement("select id, side, peer from custody_tree");
                        ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        trees.put(rs.getInt(1), new String[] { rs.getString(2), rs.getString(3) });
                    }
                }
                for (Map.Entry<Integer, String[]> t : trees.entrySet()) {
                    if (!honestDids.contains(t.getValue()[1])) {
                        continue; // the flooder's: it never signs receipts
                    }
                    StringBuilder lines = new StringBuilder();
                    String last = null;
                    try (PreparedStatement ps = db.prepareStatement("select json, consistency from custody_receipt"
                            + " where tree = ? order by position")) {
                        ps.setInt(1, t.getKey());
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                byte[] c = rs.getBytes(2);
                                List<byte[]> proof = new ArrayList<>();
                                for (int o = 0; o < c.length; o += 32) {
                                    proof.add(Arrays.copyOfRange(c, o, o + 32));
                                }
                                lines.append(ChainFile.line(rs.getString(1), proof)).append('\n');
                                last = NostrClient.tree(rs.getString(1)).path("id").asText();
                            }
                        }
                    }
                    ChainFile.Result r = ChainFile.verify(new BufferedReader(new StringReader(lines.toString())));
                    String which = "node " + i + " " + t.getValue()[0] + " chain with " + t.getValue()[1];
                    if (r.ok()) {
                        verified++;
                    } else {
                        failed++;
                        failures.add(which + " does not verify: line " + r.badLine() + ": " + r.why());
                    }
                    // the receiver's copy and the sender's agree on the last receipt
                    String key = t.getValue()[0].equals("received") ? dids[i] + "<" + t.getValue()[1]
                            : t.getValue()[1] + "<" + dids[i];
                    String other = heads.putIfAbsent(key, String.valueOf(last));
                    if (other != null && !other.equals(String.valueOf(last))) {
                        // the sender's copy may trail by the receipts in flight at the end: status says halted or not
                        note(which + ": last receipt " + last + ", the other copy's " + other);
                    }
                }
            }
            for (int j = 0; j < NODES; j++) {
                if (j == i) {
                    continue;
                }
                JsonNode p = Delivered.peer(nodes[i], dids[j]).orElse(null);
                if (p != null && !p.path("custody").path("halted").isNull() && !p.path("custody").path("halted")
                        .isMissingNode()) {
                    failures.add("node " + i + " halted forwarding to node " + j + ": " + p.path("custody"));
                }
            }
        }
        // one chain through the operator's commands too
        Launcher.Run export = Launcher.run(nodes[1].dataDir(), null, "receipts", "export", "--peer", dids[0],
                "--side", "received");
        if (export.exit() == 0) {
            java.nio.file.Path f = MeshnodeProcess.outputFile("chaos-chain-", ".jsonl");
            Files.writeString(f, export.stdout());
            Launcher.Run v = Launcher.run(nodes[1].dataDir(), null, "receipts", "verify", f.toString());
            if (v.exit() != 0) {
                failures.add("./meshnode receipts verify of node 1's chain from node 0: " + v.stdout() + v.stderr());
            } else {
                note("./meshnode receipts verify (node 1, received from node 0): " + v.stdout().strip());
            }
        } else {
            failures.add("./meshnode receipts export at node 1 for node 0: " + export.stderr());
        }
        return new int[] { verified, failed };
    }

    boolean quarantined(MeshPeer flooder, List<String> failures) throws Exception {
        if (flooder == null) {
            failures.add("the flooder never linked to node " + FLOOD_TARGET);
            return false;
        }
        boolean persisted = false;
        try (Connection db = MeshPeer.database(nodes[FLOOD_TARGET]); PreparedStatement ps = db.prepareStatement(
                "select p.quarantined_until, (select count(*) from link_evidence e where e.peer = p.peer and"
                        + " e.severity = 'S3') from link_peer p where p.peer = ?")) {
            ps.setString(1, flooder.shortDid());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && rs.getLong(1) > System.currentTimeMillis() && rs.getLong(2) >= 1) {
                    persisted = true;
                }
            }
        }
        if (!persisted) {
            failures.add("the flooder is not quarantined at node " + FLOOD_TARGET + " (no S3 evidence and quarantine)");
            return false;
        }
        // and it is refused when it links again
        try {
            flooder.listener = null;
            flooder.link(nodes[FLOOD_TARGET]);
            String err = flooder.take(m -> m.startsWith("[\"MESH-ERR\""), "the quarantine on relink");
            if (!err.contains("quarantined")) {
                failures.add("the flooder's relink was ended with " + err);
                return false;
            }
        } catch (Exception | AssertionError e) {
            // a handshake refused outright is a refusal too
            note("flooder relink: " + e);
        }
        return true;
    }

    int withholderFound(RoguePeer rogue, Event claim, Set<EventId> withheld, List<String> failures) throws Exception {
        String subject = PeerIdentity.shortForm(rogue.did());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        List<JsonNode> found = List.of();
        while (System.nanoTime() < deadline) {
            found = evidence(SAMPLER, subject, "withholding");
            if (!found.isEmpty()) {
                break;
            }
            MeshnodeProcess.sleep(1000);
        }
        if (found.isEmpty()) {
            failures.add("no withholding evidence against the withholder at node " + SAMPLER + ": "
                    + Delivered.peer(nodes[SAMPLER], subject).map(JsonNode::toString).orElse("not listed"));
            return 0;
        }
        int good = 0;
        for (JsonNode record : found) {
            try {
                Withholding w = Withholding.verify(record.path("detail").toString(), GRACE);
                if (!withheld.contains(w.event().id()) || !w.claim().event().id().equals(claim.id())
                        || !"S2".equals(record.path("severity").asText())) {
                    failures.add("withholding evidence names an event that was served: " + record);
                } else {
                    good++;
                }
            } catch (Exception e) {
                failures.add("withholding evidence does not verify: " + e + " " + record);
            }
        }
        // the node signs a finding (kind 1804) for its own evidence and counts it in its standing
        String rogueKey = rogue.secrets.publicKeys().nostr().hex();
        if (findings(SAMPLER, rogueKey).isEmpty()) {
            failures.add("node " + SAMPLER + " signed no finding against the withholder");
        }
        return good;
    }

    int cheaterFound(int[] jobs, List<String> failures) {
        if (jobs[2] > 0) {
            failures.add(jobs[2] + " compute job(s) of the cheater did not end within 90 s (see the log)");
        }
        if (jobs[1] == 0) {
            failures.add("no compute job of the cheater ended done (" + jobs[0] + " submitted)");
            return 0;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        List<JsonNode> found = List.of();
        while (System.nanoTime() < deadline) {
            found = Standings.subject(Standings.standing(nodes[BUYER]), dids[CHEATER])
                    .map(s -> Standings.details(s, d -> d.path("rule").asText().equals("reexecution")
                            && d.path("severity").asText().equals("S2")))
                    .orElse(List.of());
            if (!found.isEmpty()) {
                break;
            }
            MeshnodeProcess.sleep(1000);
        }
        if (found.isEmpty()) {
            failures.add("no re-execution finding against the cheater at the buyer: "
                    + Standings.subject(Standings.standing(nodes[BUYER]), dids[CHEATER]).map(JsonNode::toString)
                            .orElse("no subject"));
        }
        return found.size();
    }

    /** No kind 1804 finding against an honest node on any node, and no evidence record about one. */
    int honestClean(List<String> failures) {
        int bad = 0;
        List<String> honestKeys = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            if (i != CHEATER) {
                honestKeys.add(pubkeys[i]);
            }
        }
        for (int i = 0; i < NODES; i++) {
            for (JsonNode f : findings(i, honestKeys.toArray(String[]::new))) {
                bad++;
                failures.add("node " + i + " holds a finding against an honest node: " + f);
            }
            for (int j = 0; j < NODES; j++) {
                if (j == i || j == CHEATER) {
                    continue;
                }
                for (JsonNode e : evidence(i, dids[j], null)) {
                    bad++;
                    failures.add("node " + i + " keeps evidence against honest node " + j + ": " + e);
                }
            }
            JsonNode standing = Standings.standing(nodes[i]);
            for (int j = 0; j < NODES; j++) {
                if (j == CHEATER) {
                    continue;
                }
                JsonNode s = Standings.subject(standing, dids[j]).orElse(null);
                if (s != null && (s.path("findings").path("counted").asInt() > 0
                        || s.path("findings").path("ignored").asInt() > 0)) {
                    bad++;
                    failures.add("node " + i + "'s standing of honest node " + j + " holds findings: " + s);
                }
            }
        }
        return bad;
    }

    List<JsonNode> findings(int i, String... subjects) {
        try (NostrClient c = NostrClient.connect(nodes[i])) {
            return c.query("f", FilterSpec.of().kinds(1804).tag('p', subjects).limit(1000));
        }
    }

    /** The evidence records node i keeps about {@code subject}, of {@code type} (any when null). */
    List<JsonNode> evidence(int i, String subject, String type) {
        HttpRequest.Builder b = HttpRequest.newBuilder(nodes[i].httpUri().resolve("/mesh/peers/" + subject
                + "/evidence")).GET();
        if (tokens[i] != null) {
            b.header("Authorization", "Bearer " + tokens[i]);
        }
        HttpResponse<String> r = PeeringIT.send(b);
        if ((r.statusCode() == 401 || r.statusCode() == 403) && tokens[i] == null) {
            try {
                tokens[i] = PeeringIT.token(nodes[i], "admin:read");
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            return evidence(i, subject, type);
        }
        if (r.statusCode() == 404) {
            return List.of();
        }
        assertEquals(200, r.statusCode(), r.body());
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : NostrClient.tree(r.body()).path("evidence")) {
            if (type == null || type.equals(e.path("detail").path("type").asText())) {
                out.add(e);
            }
        }
        return out;
    }
}
