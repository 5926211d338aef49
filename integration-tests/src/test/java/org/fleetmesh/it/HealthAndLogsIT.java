package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Predicate;

import org.fleetmesh.it.NostrClient.Ok;
import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Issue 18, "Operate": structured logs on request, and every adapter in {@code /q/health/ready} (store, writer, each
 * settlement rail, a peer links summary), with real nodes, a real peer link and a real database stopped under a node.
 */
class HealthAndLogsIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    record Health(int code, JsonNode body) {
        JsonNode check(String name) {
            for (JsonNode c : body.path("checks")) {
                if (c.path("name").asText().equals(name)) {
                    return c;
                }
            }
            throw new AssertionError("no check '" + name + "' in " + body);
        }
    }

    static Health ready(MeshnodeProcess n) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(n.httpUri().resolve("/q/health/ready"))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
        return new Health(r.statusCode(), NostrClient.tree(r.body()));
    }

    static Health awaitReady(MeshnodeProcess n, Predicate<Health> p, String what) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        Health h = ready(n);
        while (!p.test(h)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; last /q/health/ready: " + h.code() + " " + h.body());
            }
            Thread.sleep(200);
            h = ready(n);
        }
        return h;
    }

    @Test
    void jsonLogsOnRequestEveryLineAnObjectWithTheExpectedFields() throws Exception {
        List<String> lines;
        try (MeshnodeProcess n = MeshnodeProcess.start("json-logs", Map.of("FLEETMESH_LOG_JSON", "true"))) {
            try (NostrClient c = NostrClient.connect(n)) {
                c.publishAndWait(Keys.fresh().note(Keys.now(), "logged")).assertAccepted();
                // a client still subscribed when the node stops is told it is going away (RFC 6455 §7.4.1)
                c.send("[\"REQ\",\"held\",{\"kinds\":[1]}]");
                c.collectUntilEose("held");
                n.stop(); // graceful (SIGTERM): the shutdown is logged too
                assertTrue(c.awaitClosed(Duration.ofSeconds(10)), c.state());
                assertEquals("1001 the relay is shutting down", c.closeReason());
            }
            lines = Files.readAllLines(n.log());
        }
        List<String> nonEmpty = lines.stream().filter(l -> !l.isBlank()).toList();
        assertTrue(nonEmpty.size() >= 5, "the node logs its start and stop: " + lines);
        boolean listening = false;
        boolean stopped = false;
        for (String line : nonEmpty) {
            JsonNode j;
            try {
                j = NostrClient.tree(line);
            } catch (RuntimeException e) {
                throw new AssertionError("not a JSON log line: " + line, e);
            }
            assertTrue(j.isObject(), line);
            for (String field : List.of("timestamp", "level", "loggerName", "message", "threadName", "hostName", "processId")) {
                assertTrue(j.hasNonNull(field), "no '" + field + "' in " + line);
            }
            assertTrue(List.of("TRACE", "DEBUG", "INFO", "WARN", "WARNING", "ERROR", "FATAL").contains(j.path("level").asText()), line);
            listening |= j.path("message").asText().contains("Listening on: http://");
            stopped |= j.path("message").asText().contains("stopped in");
        }
        assertTrue(listening, "the start line is among the JSON lines");
        assertTrue(stopped, "the stop line is among the JSON lines");
    }

    @Test
    void readinessNamesEveryAdapterSummarisesPeersAndGoesDownWithTheDatabase() throws Exception {
        try (MeshnodeProcess a = MeshnodeProcess.start("ready-a", Delivered.env("[]"))) {
            String aDid = PeeringIT.did(a);
            Map<String, String> env = new HashMap<>(Delivered.env("[]", "FLEETMESH_PEERS", Delivered.peerSetting(aDid, a.port()),
                    "FLEETMESH_HEALTH_EMBEDDED_POSTGRES_GRACE", "3s"));
            try (MeshnodeProcess b = MeshnodeProcess.start("ready-b", env)) {
                // the default log is plain text, not JSON
                String startLine = b.logText().lines().filter(l -> l.contains("Listening on: http://")).findFirst().orElseThrow();
                assertFalse(startLine.startsWith("{"), startLine);

                Health h = awaitReady(b, x -> x.check("peers").path("data").path("up").asInt() == 1, "b's link to a up");
                assertEquals(200, h.code());
                assertEquals("UP", h.body().path("status").asText(), h.body().toString());
                List<String> names = new ArrayList<>();
                h.body().path("checks").forEach(c -> names.add(c.path("name").asText()));
                assertTrue(names.containsAll(List.of("relay", "store", "writer", "lightning", "cashu", "peers")), names.toString());

                JsonNode store = h.check("store");
                assertEquals("UP", store.path("status").asText());
                assertEquals("PostgresStorage", store.path("data").path("adapter").asText(), store.toString());
                JsonNode writer = h.check("writer");
                assertEquals("UP", writer.path("status").asText());
                assertEquals("running", writer.path("data").path("thread").asText(), writer.toString());
                assertEquals(50000, writer.path("data").path("queue_capacity").asInt(), writer.toString());
                assertEquals("disabled", h.check("lightning").path("data").path("lnd").asText());
                assertEquals("disabled", h.check("cashu").path("data").path("cashu").asText());
                JsonNode peers = h.check("peers").path("data");
                assertEquals(1, peers.path("declared").asInt(), peers.toString());
                assertEquals(0, peers.path("down").asInt() + peers.path("connecting").asInt() + peers.path("quarantined").asInt(),
                        peers.toString());
                // a (which did not declare b) sees b's link as an undeclared one
                Health atA = awaitReady(a, x -> x.check("peers").path("data").path("undeclared_up").asInt() == 1,
                        "a sees b's link");
                assertEquals(0, atA.check("peers").path("data").path("declared").asInt());

                long before = h.check("writer").path("data").path("committed_events").asLong();
                Event counted = Keys.fresh().note(Keys.now(), "counted");
                try (NostrClient c = NostrClient.connect(b)) {
                    c.publishAndWait(counted).assertAccepted();
                }
                Health afterWrite = ready(b);
                assertTrue(afterWrite.check("writer").path("data").path("committed_events").asLong() > before,
                        afterWrite.check("writer").toString());

                // a peer going away is reported, but b can still serve: still ready
                a.stop();
                Health peerGone = awaitReady(b, x -> x.check("peers").path("data").path("up").asInt() == 0, "b sees a gone");
                assertEquals(200, peerGone.code(), peerGone.body().toString());
                assertEquals("UP", peerGone.check("peers").path("status").asText());
                assertEquals(1, peerGone.check("peers").path("data").path("declared").asInt());

                // the database asked to stop (SIGTERM: a smart shutdown, which waits for b's pooled connections for
                // good): b still serves on them, but cannot open another; liveness says so after the grace
                OptionalLong postmaster = b.livePostmasterFromPidFile();
                assertTrue(postmaster.isPresent(), "b runs its embedded PostgreSQL");
                Process term = new ProcessBuilder("kill", "-TERM", Long.toString(postmaster.getAsLong())).inheritIO().start();
                assertEquals(0, term.waitFor());
                long stoppingBy = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                HttpResponse<String> stoppingLive = live(b);
                while (stoppingLive.statusCode() == 200 && System.nanoTime() < stoppingBy) {
                    Thread.sleep(200);
                    stoppingLive = live(b);
                }
                assertEquals(503, stoppingLive.statusCode(), stoppingLive.body());
                assertTrue(checkOf(NostrClient.tree(stoppingLive.body()), "embedded-postgres").path("data").path("reason")
                        .asText().contains("shutting down"), stoppingLive.body());
                assertTrue(b.livePostmasterFromPidFile().isPresent(), "the postmaster still waits for b's connections");

                // the database stopped under the node (fast shutdown: every connection closed): the node starts it
                // again itself, on the same port, and is ready without a restart, with what it had committed
                Process kill = new ProcessBuilder("kill", "-INT", Long.toString(postmaster.getAsLong())).inheritIO().start();
                assertEquals(0, kill.waitFor());
                long againBy = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                OptionalLong again = b.livePostmasterFromPidFile();
                while ((again.isEmpty() || again.getAsLong() == postmaster.getAsLong() || ready(b).code() != 200)
                        && System.nanoTime() < againBy) {
                    Thread.sleep(200);
                    again = b.livePostmasterFromPidFile();
                }
                assertTrue(again.isPresent() && again.getAsLong() != postmaster.getAsLong(), "a new postmaster: " + again);
                Health back = ready(b);
                assertEquals(200, back.code(), back.body().toString());
                HttpResponse<String> liveAgain = live(b);
                assertEquals(200, liveAgain.statusCode(), liveAgain.body());
                assertEquals(1, checkOf(NostrClient.tree(liveAgain.body()), "embedded-postgres").path("data")
                        .path("restarts").asInt(), liveAgain.body());
                assertTrue(b.logText().contains("started again (restart 1)"), "the restart is logged");
                try (NostrClient c = NostrClient.connect(b)) {
                    assertEquals(1, c.query("kept", FilterSpec.of().ids(counted)).size(), "committed before the stop");
                    Event later = Keys.fresh().note(Keys.now(), "after the restart");
                    Ok ok = c.publishAndWait(later);
                    for (int i = 0; i < 16 && !ok.accepted(); i++) { // a pooled connection of the old server fails once
                        assertTrue(ok.message().startsWith("error:"), ok.message());
                        ok = c.publishAndWait(later);
                    }
                    ok.assertAccepted();
                    assertEquals(1, c.query("later", FilterSpec.of().ids(later)).size());
                }

                // a postmaster that cannot start again (here its configuration is gone): not ready, and liveness
                // says so after the grace (3 s here), the orchestrator's cue to restart the node
                Path conf = b.dataDir().resolve("pg/postgresql.conf");
                Path aside = b.dataDir().resolve("postgresql.conf.aside");
                Files.move(conf, aside);
                Process kill9 = new ProcessBuilder("kill", "-KILL", Long.toString(again.getAsLong())).inheritIO().start();
                assertEquals(0, kill9.waitFor());
                Health down = awaitReady(b, x -> x.code() == 503, "b not ready without its database");
                assertEquals("DOWN", down.body().path("status").asText(), down.body().toString());
                assertEquals("DOWN", down.check("store").path("status").asText(), down.body().toString());
                assertEquals("UP", down.check("peers").path("status").asText(), "peers do not decide readiness");
                assertTrue(b.isAlive(), "the node keeps running (it is the orchestrator's call to restart it)");
                HttpResponse<String> live = live(b);
                JsonNode embedded = checkOf(NostrClient.tree(live.body()), "embedded-postgres");
                if (live.statusCode() == 200) {
                    assertTrue(embedded.path("data").path("gone_ms").asLong() < 3000, live.body());
                }
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (live.statusCode() == 200 && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                    live = live(b);
                }
                assertEquals(503, live.statusCode(), live.body());
                embedded = checkOf(NostrClient.tree(live.body()), "embedded-postgres");
                assertEquals("DOWN", embedded.path("status").asText(), live.body());
                assertTrue(embedded.path("data").path("gone_ms").asLong() >= 3000, live.body());
                assertTrue(embedded.path("data").path("reason").asText().contains("attempt(s) to start it again failed"),
                        live.body());

                // and the orchestrator's restart brings the node back, its cluster recovered
                Files.move(aside, conf);
                b.stop();
                b.startAgain();
                assertEquals(200, live(b).statusCode());
                assertEquals(200, ready(b).code());
            }
        }
    }

    static HttpResponse<String> live(MeshnodeProcess n) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(n.httpUri().resolve("/q/health/live")).timeout(Duration.ofSeconds(10))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode checkOf(JsonNode health, String name) {
        for (JsonNode c : health.path("checks")) {
            if (c.path("name").asText().equals(name)) {
                return c;
            }
        }
        throw new AssertionError("no check " + name + " in " + health);
    }

    @Test
    void aWriterHeldInACommitIsNotReadyAndRecovers() throws Exception {
        try (MeshnodeProcess n = MeshnodeProcess.start("ready-writer", Map.of("FLEETMESH_HEALTH_WRITER_STUCK_AFTER", "2s"));
                java.sql.Connection db = MeshPeer.database(n); NostrClient c = NostrClient.connect(n)) {
            assertEquals("UP", ready(n).check("writer").path("status").asText());
            db.setAutoCommit(false);
            try (java.sql.Statement s = db.createStatement()) {
                s.execute("lock table event in access exclusive mode"); // the writer's insert waits behind it
            }
            var e = Keys.fresh().note(Keys.now(), "held");
            c.publish(e);
            Health stuck = awaitReady(n, x -> x.code() == 503, "the held writer reported");
            JsonNode writer = stuck.check("writer");
            assertEquals("DOWN", writer.path("status").asText(), stuck.body().toString());
            assertTrue(writer.path("data").path("commit_in_progress_ms").asLong() > 2000, writer.toString());
            assertTrue(writer.path("data").path("stuck").asText().contains("more than 2 s"), writer.toString());
            assertEquals("running", writer.path("data").path("thread").asText());
            db.rollback(); // the lock goes, the commit goes through
            c.expectOk(e.id().hex(), Duration.ofSeconds(30)).assertAccepted();
            Health back = awaitReady(n, x -> x.code() == 200, "ready again");
            assertEquals("UP", back.check("writer").path("status").asText(), back.body().toString());
        }
    }
}
