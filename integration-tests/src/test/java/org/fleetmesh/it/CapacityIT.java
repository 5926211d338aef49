package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Locale;

import org.fleetmesh.negentropy.Negentropy;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Shedding by priority on a real node under real pressure: the test takes an EXCLUSIVE lock on the
 * node's event table in its own embedded PostgreSQL (reads still pass, every insert waits), so
 * the group commit stalls and the events clients publish pile up in the write queue (100
 * places; its fill is the signal here, commit latency's mark is set out of reach). At 60 queued
 * NEG-OPEN is refused while REQs are answered and ephemeral events reach their subscriber; once
 * the lock goes, every queued event is stored and answered, and NEG-OPEN is served again.
 */
class CapacityIT {
    static MeshnodeProcess node;
    static final Keys alice = Keys.fresh();

    @BeforeAll
    static void start() {
        node = MeshnodeProcess.start("capacity", Map.of(
                "FLEETMESH_RELAY_WRITE_QUEUE_EVENTS", "100",
                "FLEETMESH_CAPACITY_WRITE_QUEUE_HIGH", "1.0",
                "FLEETMESH_CAPACITY_COMMIT_LATENCY_HIGH", "1h",
                "FLEETMESH_CAPACITY_RESTORE_HOLD", "500ms",
                "FLEETMESH_CLIENT_LIMITS", "off")); // one key publishes a burst: client budgets are not under test
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    /** A superuser connection to the node's embedded PostgreSQL (port from postmaster.pid, password from postgres.key). */
    static Connection database() throws Exception {
        return database(node);
    }

    static Connection database(MeshnodeProcess node) throws Exception {
        Path pid = node.dataDir().resolve("pg").resolve("postmaster.pid");
        List<String> lines = Files.readAllLines(pid, StandardCharsets.US_ASCII);
        int port = Integer.parseInt(lines.get(3).trim());
        String password = Files.readString(node.dataDir().resolve("postgres.key"), StandardCharsets.US_ASCII).strip()
                .toLowerCase(Locale.ROOT);
        return DriverManager.getConnection("jdbc:postgresql://localhost:" + port + "/postgres", "postgres", password);
    }

    static String negOpen(String sub) {
        Negentropy neg = new Negentropy(SortedVector.builder().seal(), 0);
        return "[\"NEG-OPEN\",\"" + sub + "\",{},\"" + HexFormat.of().formatHex(neg.initiate()) + "\"]";
    }

    static JsonNode answerFor(NostrClient c, String sub) {
        return c.take(m -> m.size() >= 2 && m.get(1).asText().equals(sub), "an answer for " + sub);
    }

    static int waitingInserts(Connection watch) throws Exception {
        try (Statement s = watch.createStatement();
                ResultSet r = s.executeQuery("select count(*) from pg_stat_activity where wait_event_type = 'Lock'")) {
            r.next();
            return r.getInt(1);
        }
    }

    /**
     * Commit latency as the signal (its mark at 1 s, the write queue's out of reach): one event
     * held in a stalled commit makes the latency grow until every tier but live routing is shed;
     * then NEG-OPEN, REQ and EVENT are all refused while an ephemeral event still reaches its
     * subscriber, and everything is served again once the commit goes through.
     */
    @Test
    void aStalledCommitShedsEverythingButLiveRoutingUntilItEnds() throws Exception {
        try (MeshnodeProcess slow = MeshnodeProcess.start("capacity-latency", Map.of(
                "FLEETMESH_CAPACITY_COMMIT_LATENCY_HIGH", "1s",
                "FLEETMESH_CAPACITY_WRITE_QUEUE_HIGH", "1.0",
                "FLEETMESH_CAPACITY_RESTORE_HOLD", "500ms",
                "FLEETMESH_CLIENT_LIMITS", "off"));
                NostrClient writer = NostrClient.connect(slow); NostrClient reader = NostrClient.connect(slow);
                NostrClient listener = NostrClient.connect(slow); Connection lock = database(slow);
                Connection watch = database(slow)) {
            listener.req("live", NostrClient.filter("{\"kinds\":[20002],\"limit\":0}"));
            listener.collectUntilEose("live");
            lock.setAutoCommit(false);
            try (Statement s = lock.createStatement()) {
                s.execute("lock table event in exclusive mode");
            }
            Event held = alice.note(Keys.now(), "held by the lock");
            writer.publish(held);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (waitingInserts(watch) == 0) {
                assertTrue(System.nanoTime() < deadline, "the node's commit never waited for the lock");
                Thread.sleep(20);
            }
            Metrics m = Metrics.await(slow, Duration.ofSeconds(30), v -> v == 1, "fleetmesh_capacity_shedding",
                    "tier=\"client_event\"");
            assertEquals(1, m.value("fleetmesh_capacity_shedding", "tier=\"backfill\""));
            assertEquals(0, m.value("fleetmesh_capacity_shedding", "tier=\"live_routing\""));

            reader.send(negOpen("neg"));
            JsonNode negErr = answerFor(reader, "neg");
            assertEquals("NEG-ERR", negErr.get(0).asText(), negErr.toString());
            assertTrue(negErr.get(2).asText().startsWith("rate-limited: the relay is under load (commits taking "), negErr.toString());
            reader.req("q", NostrClient.filter("{\"kinds\":[1]}"));
            assertTrue(reader.expectClosed("q").startsWith("rate-limited: the relay is under load (commits taking "));
            Event refused = alice.note(Keys.now(), "refused under load");
            writer.publishAndWait(refused).assertRefused("rate-limited: the relay is under load");
            assertTrue(Metrics.scrape(slow).value("fleetmesh_relay_events_total", "origin=\"client\"", "outcome=\"refused\"",
                    "reason=\"rate-limited\"") >= 1, "the refusal is counted");
            Event live = alice.sign(20002, Keys.now(), "live while everything else waits");
            writer.publishAndWait(live).assertAccepted();
            assertEquals(live.id().hex(), listener.expectEvent("live").get("id").asText(), "live routing keeps flowing");

            lock.rollback();
            writer.expectOk(held.id().hex(), Duration.ofSeconds(60)).assertAccepted();
            Metrics.await(slow, Duration.ofSeconds(30), v -> v == 0, "fleetmesh_capacity_shedding", "tier=\"backfill\"");
            reader.send(negOpen("neg2"));
            assertEquals("NEG-MSG", answerFor(reader, "neg2").get(0).asText(), "backfill is served again");
            List<JsonNode> stored = reader.query("q2", NostrClient.filter("{\"kinds\":[1]}"));
            assertEquals(List.of(held.id().hex()), NostrClient.ids(stored), "the refused event was not stored");
        }
    }

    @Test
    void backfillIsShedFirstWhileLiveRoutingFlowsAndServiceReturnsAfter() throws Exception {
        try (NostrClient writer = NostrClient.connect(node); NostrClient reader = NostrClient.connect(node);
                NostrClient listener = NostrClient.connect(node); Connection lock = database(); Connection watch = database()) {
            listener.req("live", NostrClient.filter("{\"kinds\":[20001],\"limit\":0}"));
            listener.collectUntilEose("live");
            double refusedBefore = Metrics.scrape(node).value("fleetmesh_capacity_refused_total", "tier=\"backfill\"");

            lock.setAutoCommit(false);
            try (Statement s = lock.createStatement()) {
                s.execute("lock table event in exclusive mode");
            }
            long t = Keys.now();
            List<Event> written = new ArrayList<>();
            Event first = alice.note(t, "held 0");
            written.add(first);
            writer.publish(first);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (waitingInserts(watch) == 0) {
                assertTrue(System.nanoTime() < deadline, "the node's commit never waited for the lock");
                Thread.sleep(20);
            }
            for (int i = 1; i <= 60; i++) {
                Event e = alice.note(t, "held " + i);
                written.add(e);
                writer.publish(e);
            }
            Metrics.await(node, Duration.ofSeconds(30), v -> v >= 60, "fleetmesh_relay_write_queue_events");
            Metrics m = Metrics.await(node, Duration.ofSeconds(30), v -> v == 1, "fleetmesh_capacity_shedding",
                    "tier=\"backfill\"");
            assertEquals(0, m.value("fleetmesh_capacity_shedding", "tier=\"client_req\""), "60% full sheds backfill only");
            assertEquals(0, m.value("fleetmesh_capacity_shedding", "tier=\"client_event\""));

            reader.send(negOpen("neg"));
            JsonNode negErr = answerFor(reader, "neg");
            assertEquals("NEG-ERR", negErr.get(0).asText(), negErr.toString());
            // the writer may already hold a batch in the stalled commit, so the queue reads between the backfill mark (50%)
            // and the next tier's (70%), not exactly the 60 events sent
            java.util.regex.Matcher pct = java.util.regex.Pattern
                    .compile("^rate-limited: the relay is under load \\(write queue (\\d+)% full\\)")
                    .matcher(negErr.get(2).asText());
            assertTrue(pct.find(), negErr.toString());
            int full = Integer.parseInt(pct.group(1));
            assertTrue(full >= 50 && full < 70, negErr.toString());

            List<JsonNode> stored = reader.query("q", NostrClient.filter("{\"kinds\":[1],\"limit\":5}"));
            assertEquals(0, stored.size(), "client queries are answered (nothing is committed yet)");

            Event live = alice.sign(20001, Keys.now(), "live under load");
            writer.publishAndWait(live).assertAccepted();
            assertEquals(live.id().hex(), listener.expectEvent("live").get("id").asText(), "live routing keeps flowing");

            lock.rollback(); // the lock goes: the writer commits what waited
            for (Event e : written) {
                writer.expectOk(e.id().hex(), Duration.ofSeconds(60)).assertAccepted();
            }
            Metrics.await(node, Duration.ofSeconds(30), v -> v == 0, "fleetmesh_capacity_shedding", "tier=\"backfill\"");
            reader.send(negOpen("neg2"));
            JsonNode back = answerFor(reader, "neg2");
            assertEquals("NEG-MSG", back.get(0).asText(), "backfill is served again: " + back);
            reader.send("[\"NEG-CLOSE\",\"neg2\"]");
            assertEquals(written.size(), reader.query("all", NostrClient.filter("{\"kinds\":[1],\"limit\":100}")).size());
            assertTrue(Metrics.scrape(node).value("fleetmesh_capacity_refused_total", "tier=\"backfill\"") >= refusedBefore + 1);
        }
    }
}
