package org.fleetmesh.it;

import static org.fleetmesh.it.Keys.now;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code kill -9} during a pipelined write burst: every event the node answered {@code OK true}
 * for must be there after a restart on the same data dir, and the restart must cope with the
 * embedded postmaster the killed node left running.
 */
class CrashIT {
    private static final int CONNECTIONS = 3;
    private static final int EVENTS_PER_CONNECTION = 1500;
    private static final int TOTAL = CONNECTIONS * EVENTS_PER_CONNECTION;
    /** Kill once this many OKs have come back: well inside the burst. */
    private static final int KILL_AFTER_ACKS = TOTAL / 4;

    static MeshnodeProcess node;

    @BeforeAll
    static void startNode() {
        node = MeshnodeProcess.start("crash");
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void everyAcknowledgedEventSurvivesKillDashNine() throws Exception {
        // sign everything first so that the burst is limited by the relay, not by us
        List<List<Event>> batches = new ArrayList<>();
        long t = now() - 3600;
        for (int c = 0; c < CONNECTIONS; c++) {
            Keys k = Keys.fresh();
            List<Event> events = new ArrayList<>(EVENTS_PER_CONNECTION);
            for (int i = 0; i < EVENTS_PER_CONNECTION; i++) {
                events.add(k.note(t + i, "burst " + c + "/" + i, Keys.tag("t", "crash")));
            }
            batches.add(events);
        }
        Event beforeBurst = Keys.fresh().note(now() - 10, "committed well before the crash");
        try (NostrClient c = NostrClient.connect(node)) {
            c.publishAndWait(beforeBurst).assertAccepted();
        }

        String selfBefore = NostrClient.tree(node.relayInfo()).path("self").asText();
        List<ProcessHandle> postmastersBefore = node.livePostmasters();
        assertEquals(1, postmastersBefore.size(), "expected one embedded postmaster for the data dir, found "
                + postmastersBefore.stream().map(h -> h.info().commandLine().orElse("?")).toList());

        Set<String> acked = ConcurrentHashMap.newKeySet();
        AtomicInteger refused = new AtomicInteger();
        AtomicReference<String> firstRefusal = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        List<NostrClient> clients = new ArrayList<>();
        for (List<Event> events : batches) {
            NostrClient c = NostrClient.connect(node);
            clients.add(c);
            threads.add(thread("crash-send", () -> {
                try {
                    for (Event e : events) {
                        c.publish(e);
                    }
                } catch (RuntimeException dead) {
                    // the node was killed mid-send
                }
            }));
            threads.add(thread("crash-read", () -> {
                try {
                    for (int i = 0; i < events.size(); i++) {
                        JsonNode ok = c.take(m -> NostrClient.isVerb(m, "OK"), Duration.ofSeconds(60), "OK");
                        if (ok.get(2).asBoolean()) {
                            acked.add(ok.get(1).asText());
                        } else {
                            refused.incrementAndGet();
                            firstRefusal.compareAndSet(null, ok.toString());
                        }
                    }
                } catch (AssertionError closed) {
                    // the connection ended with the node
                }
            }));
        }
        threads.forEach(Thread::start);

        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (acked.size() < KILL_AFTER_ACKS && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(acked.size() >= KILL_AFTER_ACKS, "the burst stalled at " + acked.size() + " OKs; refused "
                + refused.get() + " (first: " + firstRefusal.get() + ")");
        node.kill();
        int ackedAtKill = acked.size();
        for (Thread th : threads) {
            th.join(Duration.ofSeconds(60).toMillis());
        }
        clients.forEach(NostrClient::close);
        assertEquals(0, refused.get(), "events in the burst were refused: " + firstRefusal.get());
        assertTrue(acked.size() < TOTAL, "the burst ended before the kill; it proves nothing (acked " + acked.size() + ")");

        List<Long> leftover = postmastersBefore.stream().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).toList();
        System.out.printf("CrashIT: killed the node after %d of %d OKs (%d OKs in all); leftover postmaster: %s%n",
                ackedAtKill, TOTAL, acked.size(), leftover);

        // restart on the same data dir: it must come up despite the leftover postmaster
        long restart = System.nanoTime();
        try {
            node.startAgain();
        } catch (IllegalStateException e) {
            throw new AssertionError("the node did not restart after kill -9 (leftover postmaster " + leftover + ")", e);
        }
        System.out.printf("CrashIT: restarted in %d ms%n", (System.nanoTime() - restart) / 1_000_000);
        List<ProcessHandle> postmastersAfter = node.livePostmasters();
        assertEquals(1, postmastersAfter.size(), "after the restart there must be exactly one postmaster on the data dir: "
                + postmastersAfter.stream().map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList());

        assertEquals(postmastersAfter.get(0).pid(), node.livePostmasterFromPidFile().orElse(-1),
                "postmaster.pid must name the one running postmaster");
        assertEquals(selfBefore, NostrClient.tree(node.relayInfo()).path("self").asText(),
                "the node's own key (NIP-11 self) must survive the crash: it lives in the data dir");

        Set<String> found = new HashSet<>();
        List<String> ids = new ArrayList<>(acked);
        ids.add(beforeBurst.id().hex());
        try (NostrClient c = NostrClient.connect(node)) {
            for (int from = 0; from < ids.size(); from += 500) {
                List<String> chunk = ids.subList(from, Math.min(ids.size(), from + 500));
                List<JsonNode> got = c.query("chunk" + from,
                        FilterSpec.of().ids(chunk.toArray(String[]::new)).limit(chunk.size()));
                got.forEach(e -> found.add(e.get("id").asText()));
            }
            Set<String> missing = new HashSet<>(ids);
            missing.removeAll(found);
            assertTrue(missing.isEmpty(), missing.size() + " of " + ids.size()
                    + " acknowledged events are gone after kill -9 and restart, e.g. " + missing.stream().limit(5).toList());

            // and the restarted node takes writes again
            c.publishAndWait(Keys.fresh().note(now(), "after the restart")).assertAccepted();
        }
        assertFalse(node.logText().contains("could not create lock file"), "the restart tripped over the old cluster");
    }

    private static List<String> readLines(Path p) {
        try {
            return Files.readAllLines(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Thread thread(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * OK true promises a durable commit; a cluster running with fsync or synchronous_commit off
     * would break that promise on a power cut even though it survives kill -9.
     */
    @Test
    void embeddedPostgresRunsWithDurableCommits() {
        List<ProcessHandle> postmasters = node.livePostmasters();
        assertEquals(1, postmasters.size());
        String cmd = postmasters.get(0).info().commandLine().orElse("");
        // command-line options win over the configuration files, and a later option over an earlier one
        Map<String, String> settings = new HashMap<>();
        for (Path conf : node.clusterConfigFiles()) {
            if (conf.getFileName().toString().equals("postgresql.conf")) {
                readSettings(conf, settings);
            }
        }
        for (Path conf : node.clusterConfigFiles()) {
            if (conf.getFileName().toString().equals("postgresql.auto.conf")) {
                readSettings(conf, settings);
            }
        }
        String[] args = cmd.split("\\s+");
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("-F")) {
                settings.put("fsync", "off");
            } else if (args[i].equals("-c") && i + 1 < args.length && args[i + 1].contains("=")) {
                String[] kv = args[++i].split("=", 2);
                settings.put(kv[0].toLowerCase(), kv[1].replace("'", "").toLowerCase());
            }
        }
        assertFalse("off".equals(settings.get("fsync")), "the cluster runs with fsync off: " + cmd);
        assertFalse("off".equals(settings.get("synchronous_commit")), "the cluster runs with synchronous_commit off: " + cmd);
    }

    private static void readSettings(Path conf, Map<String, String> settings) {
        for (String line : readLines(conf)) {
            String l = line.replaceAll("#.*", "").trim();
            int eq = l.indexOf('=');
            if (eq > 0) {
                settings.put(l.substring(0, eq).trim().toLowerCase(),
                        l.substring(eq + 1).trim().replace("'", "").toLowerCase());
            }
        }
    }
}
