package org.fleetmesh.it;

import static org.fleetmesh.it.Keys.now;
import static org.fleetmesh.it.Keys.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;


import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;

/**
 * {@code ./meshnode sync <url>}: NIP-77 reconciliation of a local data dir (not running) with a
 * running node, then moving only the difference, both ways; idempotent on a second run; an
 * honest error (exit 3) against an endpoint that does not speak NIP-77.
 */
class SyncIT {
    static MeshnodeProcess relay;
    static final List<Path> dirs = new ArrayList<>();
    static final Keys alice = Keys.fresh();
    static final Keys bob = Keys.fresh();


    @BeforeAll
    static void startRelay() {
        relay = MeshnodeProcess.start("sync-b");
    }

    @AfterAll
    static void cleanUp() {
        if (relay != null) {
            relay.close();
        }
        for (Path d : dirs) {
            MeshnodeProcess.stopLeftoverPostmasters(d);
            MeshnodeProcess.deleteDataDir(d);
        }
    }

    static Path freshDir(String name) {
        Path d = MeshnodeProcess.newDataDir(name);
        dirs.add(d);
        return d;
    }

    static void importInto(Path dir, List<Event> events) throws Exception {
        Path file = dir.resolveSibling(dir.getFileName() + "-" + System.nanoTime() + ".jsonl");
        Files.write(file, events.stream().map(Event::json).toList(), StandardCharsets.UTF_8);
        try {
            Launcher.Run r = Launcher.run(dir, file, "import");
            assertEquals(0, r.exit(), "import failed:\n" + r.stderr());
            assertTrue(r.stderr().contains("accepted " + events.size() + ","), "import must accept all:\n" + r.stderr());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    static Set<String> exportedIds(Path dir, String filter) throws Exception {
        Launcher.Run r = Launcher.run(dir, null, "export", "--filter", filter);
        assertEquals(0, r.exit(), r.stderr());
        Set<String> ids = new TreeSet<>();
        for (String line : r.stdout().split("\n")) {
            if (!line.isBlank()) {
                ids.add(NostrClient.tree(line).path("id").asText());
            }
        }
        return ids;
    }

    static Set<String> ids(List<Event> events) {
        Set<String> s = new TreeSet<>();
        events.forEach(e -> s.add(e.id().hex()));
        return s;
    }

    @Test
    void bothWaysMovesOnlyTheDifferenceAndASecondRunMovesNothing() throws Exception {
        long t = now() - 5000;
        String topic = "sync-both";
        List<Event> common = new ArrayList<>();
        List<Event> onlyB = new ArrayList<>();
        List<Event> onlyA = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            common.add(alice.note(t + i, "common " + i, tag("t", topic)));
        }
        for (int i = 0; i < 4; i++) {
            onlyB.add(bob.note(t + 100 + i, "only on B " + i, tag("t", topic)));
        }
        for (int i = 0; i < 3; i++) {
            onlyA.add(alice.note(t + 200 + i, "only on A " + i, tag("t", topic)));
        }
        try (NostrClient c = NostrClient.connect(relay)) {
            for (Event e : common) {
                c.publishAndWait(e).assertAccepted();
            }
            for (Event e : onlyB) {
                c.publishAndWait(e).assertAccepted();
            }
        }
        Path a = freshDir("sync-a");
        List<Event> inA = new ArrayList<>(common);
        inA.addAll(onlyA);
        importInto(a, inA);

        String filter = "{\"#t\":[\"" + topic + "\"]}";
        Launcher.Run first = Launcher.run(a, null, "sync", relay.wsUri().toString(), "--filter", filter, "--dir", "both");
        assertEquals(0, first.exit(), "sync failed:\n" + first.stderr() + first.stdout());
        first.assertCounts(3, 4, 4, 3, 0);

        Set<String> all = ids(common);
        all.addAll(ids(onlyA));
        all.addAll(ids(onlyB));
        assertEquals(all, exportedIds(a, filter), "A after sync");
        assertEquals(all, exportedIds(relay.dataDir(), filter), "B after sync");

        Launcher.Run second = Launcher.run(a, null, "sync", relay.wsUri().toString(), "--filter", filter);
        assertEquals(0, second.exit(), "second sync failed:\n" + second.stderr());
        second.assertCounts(0, 0, 0, 0, 0);
    }

    /** More than one REQ chunk (500 ids), more than 100 EVENTs in flight, several rounds at the smallest frame size. */
    @Test
    void manyEventsUpThenDownWithSmallFrames() throws Exception {
        long t = now() - 20000;
        String topic = "sync-many";
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 1200; i++) {
            events.add((i % 2 == 0 ? alice : bob).note(t + i, "many " + i, tag("t", topic)));
        }
        String filter = "{\"#t\":[\"" + topic + "\"]}";
        Path c = freshDir("sync-c");
        importInto(c, events);
        Launcher.Run up = Launcher.run(c, null, "sync", relay.wsUri().toString(), "--filter", filter, "--dir", "up",
                "--frame-size", "4096");
        assertEquals(0, up.exit(), "sync up failed:\n" + up.stderr());
        up.assertCounts(1200, 0, 0, 1200, 0);
        assertEquals(ids(events), exportedIds(relay.dataDir(), filter), "B after sync up");

        Path d = freshDir("sync-d");
        Launcher.Run down = Launcher.run(d, null, "sync", relay.wsUri().toString(), "--filter", filter, "--dir", "down",
                "--frame-size", "4096");
        assertEquals(0, down.exit(), "sync down failed:\n" + down.stderr());
        down.assertCounts(0, 1200, 1200, 0, 0);
        assertEquals(ids(events), exportedIds(d, filter), "D after sync down");

        Launcher.Run again = Launcher.run(d, null, "sync", relay.wsUri().toString(), "--filter", filter, "--dir", "down");
        assertEquals(0, again.exit(), again.stderr());
        again.assertCounts(0, 0, 0, 0, 0);

        // one new event on each side among 1200 shared ones: found in several rounds, moved both ways
        Event newOnD = alice.note(t + 600, "new on D", tag("t", topic));
        Event newOnB = bob.note(t + 601, "new on B", tag("t", topic));
        importInto(d, List.of(newOnD));
        try (NostrClient client = NostrClient.connect(relay)) {
            client.publishAndWait(newOnB).assertAccepted();
        }
        Launcher.Run both = Launcher.run(d, null, "sync", relay.wsUri().toString(), "--filter", filter, "--frame-size", "4096");
        assertEquals(0, both.exit(), both.stderr());
        both.assertCounts(1, 1, 1, 1, 0);
        assertTrue(both.syncSummary().path("rounds").asLong() >= 2, "several rounds: " + both.stdout() + both.stderr());
        Set<String> expected = ids(events);
        expected.add(newOnD.id().hex());
        expected.add(newOnB.id().hex());
        assertEquals(expected, exportedIds(d, filter), "D after sync both");
        assertEquals(expected, exportedIds(relay.dataDir(), filter), "B after sync both");
    }

    /** An endpoint that answers NEG-OPEN with a NOTICE (as a relay without NIP-77 does): exit 3. */
    @Test
    void anEndpointWithoutNip77IsReportedHonestly() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            HttpServer server = vertx.createHttpServer().webSocketHandler(ws -> {
                ws.writeTextMessage("[\"AUTH\",\"challenge-123\"]");
                ws.textMessageHandler(text -> ws.writeTextMessage(
                        "[\"NOTICE\",\"invalid: unknown message type \\\"" + (text.startsWith("[\"NEG-OPEN\"") ? "NEG-OPEN" : "?")
                                + "\\\"\"]"));
            });
            int port = server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS)
                    .actualPort();
            Path a = freshDir("sync-nonip77");
            Launcher.Run r = Launcher.run(a, null, "sync", "ws://127.0.0.1:" + port + "/");
            assertEquals(3, r.exit(), "exit code:\n" + r.stderr());
            assertTrue(r.stderr().contains("does not speak NIP-77") && r.stderr().contains("unknown message type"),
                    "a clear message with what the relay said:\n" + r.stderr());
            r.syncSummary();

            // a silent endpoint: the timeout says the same
            HttpServer silent = vertx.createHttpServer().webSocketHandler(ws -> ws.textMessageHandler(text -> {
            }));
            int silentPort = silent.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture()
                    .get(10, TimeUnit.SECONDS).actualPort();
            Launcher.Run quiet = Launcher.run(a, null, "sync", "ws://127.0.0.1:" + silentPort + "/", "--timeout", "2");
            assertEquals(3, quiet.exit(), "exit code:\n" + quiet.stderr());
            assertTrue(quiet.stderr().contains("does not speak NIP-77") && quiet.stderr().contains("within 2 s"),
                    quiet.stderr());
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** A node's /mesh endpoint speaks the peering protocol, not NIP-77: exit 3, not a hang. */
    @Test
    void theMeshEndpointIsNotANip77Relay() throws Exception {
        Path a = freshDir("sync-mesh");
        Launcher.Run r = Launcher.run(a, null, "sync", "ws://127.0.0.1:" + relay.port() + "/mesh", "--timeout", "10");
        assertEquals(3, r.exit(), "exit code:\n" + r.stderr());
        assertTrue(r.stderr().contains("does not speak NIP-77"), r.stderr());
    }

    /** An event the relay refuses (NIP-70 protected, no AUTH): counted as failed with the reason, exit 1. */
    @Test
    void aRefusedUploadIsCountedAndExitsOne() throws Exception {
        String topic = "sync-refused";
        Event fine = alice.note(now() - 100, "fine", tag("t", topic));
        Event protectedNote = alice.note(now() - 99, "protected", tag("t", topic), tag("-"));
        Path a = freshDir("sync-refused");
        importInto(a, List.of(fine, protectedNote));
        String filter = "{\"#t\":[\"" + topic + "\"]}";
        Launcher.Run r = Launcher.run(a, null, "sync", relay.wsUri().toString(), "--filter", filter, "--dir", "up");
        assertEquals(1, r.exit(), "exit code:\n" + r.stderr());
        r.assertCounts(2, 0, 0, 1, 1);
        assertTrue(r.stderr().contains("auth-required"), "the relay's reason:\n" + r.stderr());
        // state is the stores: a rerun tries only what is still missing
        Launcher.Run again = Launcher.run(a, null, "sync", relay.wsUri().toString(), "--filter", filter, "--dir", "up");
        assertEquals(1, again.exit(), again.stderr());
        again.assertCounts(1, 0, 0, 0, 1);
    }

    @Test
    void usageErrorsExitTwo() throws Exception {
        Path a = freshDir("sync-usage");
        assertEquals(2, Launcher.run(a, null, "sync").exit());
        assertEquals(2, Launcher.run(a, null, "sync", "http://127.0.0.1:1/").exit());
        assertEquals(2, Launcher.run(a, null, "sync", "ws://127.0.0.1:1/", "--dir", "sideways").exit());
        assertEquals(2, Launcher.run(a, null, "sync", "ws://127.0.0.1:1/", "--frame-size", "100").exit());
        assertEquals(2, Launcher.run(a, null, "sync", "ws://127.0.0.1:1/", "--filter", "[1]").exit());
    }
}
