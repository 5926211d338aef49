package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The relay's own counters at /q/metrics move with what clients do. */
class RelayMetricsIT {
    static MeshnodeProcess node;
    static final Keys alice = Keys.fresh();

    @BeforeAll
    static void start() {
        node = MeshnodeProcess.start("relay-metrics", Map.of("FLEETMESH_CLIENT_LIMITS", "off"));
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    /** The metrics docs/OPERATING.md lists. */
    static final String[] DOCUMENTED = { "fleetmesh_relay_connections", "fleetmesh_relay_subscriptions",
            "fleetmesh_relay_negentropy_sessions", "fleetmesh_relay_events_total", "fleetmesh_relay_committed_events_total",
            "fleetmesh_relay_commits_total", "fleetmesh_relay_commit_batch_events_count", "fleetmesh_relay_commit_batch_events_sum",
            "fleetmesh_relay_commit_batch_events_max", "fleetmesh_relay_commit_duration_seconds_count",
            "fleetmesh_relay_write_queue_events", "fleetmesh_relay_query_queue_tasks", "fleetmesh_relay_fanout_queue_events",
            "fleetmesh_capacity_pressure", "fleetmesh_capacity_signal", "fleetmesh_capacity_shedding",
            "fleetmesh_capacity_refused_total" };
    static final String EVENTS = "fleetmesh_relay_events_total";
    static final String[] ACCEPTED = { "origin=\"client\"", "outcome=\"accepted\"", "reason=\"none\"" };
    static final String[] DUPLICATE = { "origin=\"client\"", "outcome=\"duplicate\"", "reason=\"duplicate\"" };
    static final String[] INVALID = { "origin=\"client\"", "outcome=\"refused\"", "reason=\"invalid\"" };

    @Test
    void connectionsEventsByOutcomeAndCommitBatchesAreCounted() {
        Metrics before = Metrics.scrape(node);
        assertTrue(before.has("fleetmesh_capacity_pressure"), "the capacity signal is exported:\n" + before.text());
        try (NostrClient c = NostrClient.connect(node); NostrClient d = NostrClient.connect(node)) {
            c.challenge();
            d.challenge();
            Metrics open = Metrics.await(node, Duration.ofSeconds(10),
                    v -> v >= before.value("fleetmesh_relay_connections") + 2, "fleetmesh_relay_connections");
            long t = Keys.now();
            Event first = alice.note(t, "counted 1");
            c.publishAndWait(first).assertAccepted();
            c.publishAndWait(alice.note(t, "counted 2")).assertAccepted();
            c.publishAndWait(alice.note(t, "counted 3")).assertAccepted();
            c.publishAndWait(first).assertAccepted(); // duplicate: OK true "duplicate: ..."
            Event broken = alice.note(t, "broken");
            c.send("[\"EVENT\"," + Keys.withBrokenSignature(broken) + "]");
            c.expectOk(broken.id().hex()).assertRefused("invalid:");

            Metrics after = Metrics.scrape(node);
            assertEquals(3, after.value(EVENTS, ACCEPTED) - before.value(EVENTS, ACCEPTED), after.text());
            assertEquals(1, after.value(EVENTS, DUPLICATE) - before.value(EVENTS, DUPLICATE));
            assertEquals(1, after.value(EVENTS, INVALID) - before.value(EVENTS, INVALID));
            assertTrue(after.value("fleetmesh_relay_committed_events_total") - before.value("fleetmesh_relay_committed_events_total") >= 3);
            double batches = after.value("fleetmesh_relay_commit_batch_events_count")
                    - before.value("fleetmesh_relay_commit_batch_events_count");
            assertTrue(batches >= 3, "each publishAndWait was its own commit: " + batches);
            assertTrue(after.value("fleetmesh_relay_commit_batch_events_sum") - before.value("fleetmesh_relay_commit_batch_events_sum") >= 3);
            assertTrue(after.value("fleetmesh_relay_commit_duration_seconds_count", "outcome=\"ok\"") >= batches);
            assertTrue(open.value("fleetmesh_relay_connections") >= 2);
            assertEquals(0, after.value("fleetmesh_relay_write_queue_events"));
            assertTrue(after.has("fleetmesh_relay_query_queue_tasks"));
            assertTrue(after.has("fleetmesh_relay_fanout_queue_events"));
            // one author's newest events, twice: one index answers it (docs/OPERATING.md "The event cache"), the first
            // time from the event table, the second from the cache
            double reads = after.value("fleetmesh_store_index_reads_total");
            double hits = after.value("fleetmesh_store_read_cache_lookups_total", "result=\"hit\"");
            assertEquals(3, c.query("mine", FilterSpec.of().authors(alice).limit(10)).size());
            assertEquals(3, c.query("again", FilterSpec.of().authors(alice).limit(10)).size());
            Metrics read = Metrics.scrape(node);
            assertEquals(2, read.value("fleetmesh_store_index_reads_total") - reads, read.text());
            assertEquals(3, read.value("fleetmesh_store_read_cache_lookups_total", "result=\"hit\"") - hits);
            assertEquals(64 << 20, read.value("fleetmesh_store_read_cache_limit_bytes"));
            assertTrue(read.value("fleetmesh_store_read_cache_events") >= 3);
            for (String name : DOCUMENTED) {
                assertTrue(after.has(name), name + " (docs/OPERATING.md) is exported");
            }
            assertEquals(4, after.samples("fleetmesh_capacity_signal").size(), "one per source");
            assertEquals(5, after.samples("fleetmesh_capacity_shedding").size(), "one per tier");
            assertEquals(5, after.samples("fleetmesh_capacity_refused_total").size(), "one per tier");
            assertEquals(0, after.value("fleetmesh_capacity_shedding"), "an idle node sheds nothing");
        }
        Metrics closed = Metrics.await(node, Duration.ofSeconds(10), v -> v <= before.value("fleetmesh_relay_connections"),
                "fleetmesh_relay_connections");
        assertTrue(closed.value("fleetmesh_relay_connections") >= 0);
    }
}
