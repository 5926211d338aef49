package org.fleetmesh.it;

import static org.fleetmesh.it.Keys.now;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The node's send queue is bounded over all its clients, not only per client: clients that each stay far under their
 * own bound but together pass the total are dropped as too slow (the ones above their fair share), and the node keeps
 * serving everybody else. Without the total bound none of them would be dropped here: each asks for about 15 MB and may
 * hold 256 MiB.
 */
class SendBudgetIT {
    private static final long PER_CLIENT = 256L << 20;
    private static final long TOTAL = 2L << 20;
    private static final int SLOW = 4;

    static MeshnodeProcess node;

    @BeforeAll
    static void startNode() {
        node = MeshnodeProcess.start("send-budget", Map.of(
                "FLEETMESH_RELAY_SEND_QUEUE_BYTES", Long.toString(PER_CLIENT),
                "FLEETMESH_RELAY_SEND_QUEUE_TOTAL_BYTES", Long.toString(TOTAL),
                "FLEETMESH_CLIENT_LIMITS", "off"));
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void clientsThatTogetherPassTheTotalAreDroppedAndOthersAreServed() {
        Keys k = Keys.fresh();
        long t = now() - 5000;
        List<Event> bulky = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            bulky.add(k.note(t + i, String.format("%05d", i) + "y".repeat(50_000)));
        }
        try (NostrClient writer = NostrClient.connect(node)) {
            bulky.forEach(writer::publish);
            for (Event e : bulky) {
                writer.expectOk(e.id().hex()).assertAccepted();
            }
        }
        List<NostrClient> slow = new ArrayList<>();
        try {
            for (int i = 0; i < SLOW; i++) {
                NostrClient c = NostrClient.connect(node);
                slow.add(c);
                c.pauseReading();
                for (int r = 0; r < 5; r++) { // 5 x 60 x 50 KB: about 15 MB each, 60 MB in all
                    c.req("hog" + r, FilterSpec.of().authors(k));
                }
            }
            MeshnodeProcess.sleep(3000);

            try (NostrClient other = NostrClient.connect(node)) {
                assertEquals(2, other.query("others", FilterSpec.of().ids(bulky.get(0).id().hex(), bulky.get(1).id().hex()))
                        .size());
                other.publishAndWait(Keys.fresh().note(now(), "still writable")).assertAccepted();
            }

            // a client that resumes reading before the node has dropped it drains its queue and may never pass its
            // share: wait until the node has dropped all of them (it logs each) before reading again
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (node.logText().split("dropping slow client", -1).length - 1 < SLOW) {
                assertTrue(System.nanoTime() < deadline, "the node dropped fewer than " + SLOW
                        + " slow clients while they did not read:\n" + node.logTail(30));
                MeshnodeProcess.sleep(200);
            }

            int dropped = 0;
            for (NostrClient c : slow) {
                c.resumeReading();
                assertTrue(c.awaitClosed(Duration.ofSeconds(60)), "a client past its fair share of the total was kept: "
                        + c.state());
                List<JsonNode> got = c.drain();
                boolean told = got.stream().anyMatch(m -> NostrClient.isVerb(m, "NOTICE")
                        && m.get(1).asText().startsWith("error: you are reading too slowly"));
                assertTrue(told || String.valueOf(c.closeReason()).startsWith("1008"),
                        "dropped without the NOTICE or close status 1008: " + c.state());
                long eoses = got.stream().filter(m -> NostrClient.isVerb(m, "EOSE")).count();
                assertTrue(eoses < 5, "all five answers were delivered in full, so nothing was dropped");
                dropped++;
            }
            assertEquals(SLOW, dropped);

            // what the dropped clients held was given back: a new client's answer of 1 MB (half the total) is sent in full
            try (NostrClient reader = NostrClient.connect(node)) {
                assertEquals(20, reader.query("some", FilterSpec.of().authors(k).limit(20)).size());
            }
        } finally {
            slow.forEach(NostrClient::close);
        }
    }
}
