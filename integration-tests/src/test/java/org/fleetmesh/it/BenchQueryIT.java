package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code meshnode bench query --ingest N}, the launcher's class-archive training workload: it publishes its own corpus
 * over the connection and then every filter shape it times returns events on what was an empty relay (so that the
 * archive's method profiles hold the read path as it runs on a real store, docs/OPERATING.md "Fast start"), and what
 * it published is stored.
 */
class BenchQueryIT {

    @Test
    void ingestThenEveryShapeReturnsEvents() throws Exception {
        try (MeshnodeProcess node = MeshnodeProcess.start("benchquery", Map.of("FLEETMESH_CLIENT_LIMITS", "off"))) {
            // 1,000 events over 5 authors and 5 e values in half an hour (the window shape: a quarter of an hour):
            // about 200 per author, per p and per e value
            Launcher.Run run = Launcher.runIn(MeshnodeProcess.projectRoot(), Map.of(), null, "bench", "query",
                    "--url", node.wsUri().toString(), "--runs", "5", "--ingest", "1000", "--authors", "5", "--roots", "5",
                    "--span", "1800");
            assertEquals(0, run.exit(), run.stderr());
            assertTrue(run.stderr().contains("published 1,000 events"), run.stderr());
            String last = run.stdout().lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElseThrow();
            JsonNode shapes = new ObjectMapper().readTree(last);
            assertEquals(0, shapes.get("limit 0 (baseline)").get("events_per_req").asInt(), last);
            // limit 100 on about 200 matching: each REQ sends its limit, and the relay's check at the limit's edge runs
            for (String full : List.of("authors", "#e", "#p")) {
                assertEquals(100, shapes.get(full).get("events_per_req").asInt(), full + ": " + last);
            }
            for (String some : List.of("kinds", "kinds+until", "since/until 1h", "authors+kinds")) {
                assertTrue(shapes.get(some).get("events_per_req").asDouble() > 0, some + ": " + last);
            }
            assertEquals(10, shapes.get("ids x10").get("events_per_req").asInt(), last);
            try (NostrClient c = NostrClient.connect(node)) {
                // (the corpus's kinds and hour: the node's own events are neither)
                c.send("[\"COUNT\",\"n\",{\"kinds\":[1,7],\"since\":1700000000,\"until\":1700001800}]");
                JsonNode count = c.take(m -> NostrClient.isVerb(m, "COUNT"), "COUNT");
                assertEquals(1000, count.get(2).get("count").asLong(), count.toString());
            }
        }
    }
}
