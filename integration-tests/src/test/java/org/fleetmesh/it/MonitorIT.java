package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * NIP-66 (docs/spec/monitoring.md): a node with a short frequency publishes a kind 30166 for its own relay and for
 * its peer's, with numeric round-trip times and the peer's NIP-11 NIPs as N tags, and a kind 10166; nostr-tools reads
 * them and checks their signatures. Another monitor's 30166 about the peer shows in {@code /mesh/status} as a hint and
 * moves nothing else.
 */
class MonitorIT {
    private static final String SCRIPT = "monitor-interop.mjs";
    private static final long WAIT_MILLIS = 60_000;

    @Test
    void publishesDiscoveryForItselfAndItsPeerAndKeepsOtherMonitorsAsHintsOnly() throws Exception {
        Path jsDir = NodeJs.withNostrTools(SCRIPT);
        try (MeshnodeProcess b = MeshnodeProcess.start("monitor-b", Map.of("FLEETMESH_MONITOR_ENABLED", "true"))) {
            String bDid = PeeringIT.did(b);
            try (MeshnodeProcess a = MeshnodeProcess.start("monitor-a", Map.of("FLEETMESH_PEERS",
                    bDid + "@" + PeeringIT.mesh(b), "FLEETMESH_MONITOR_ENABLED", "true",
                    "FLEETMESH_MONITOR_FREQUENCY", "2s"))) {
                JsonNode statusA = PeeringIT.status(a);
                String aDid = statusA.path("did").asText();
                String monitor = statusA.path("pubkey").asText();
                PeeringIT.awaitLinked(a, aDid, b, bDid);
                String aUrl = "ws://localhost:" + a.port() + "/";

                // A's own probe of B shows in its status once the round published it
                JsonNode probe = await(a, bDid, p -> p.path("monitor").path("event").isTextual(), "A's probe of B")
                        .path("monitor");
                // B's relay as A dials it (B's signed endpoint announcement may have moved it to B's own name)
                String bUrl = probe.path("url").asText();
                String bMesh = PeeringIT.peer(PeeringIT.status(a), bDid).orElseThrow().path("url").asText();
                assertEquals(bMesh.substring(0, bMesh.length() - "mesh".length()), bUrl, probe.toString());
                assertTrue(bUrl.endsWith(":" + b.port() + "/"), bUrl);
                assertEquals(List.of(), NostrClient.JSON.convertValue(probe.path("failures"), List.class),
                        probe.toString());
                awaitStored(a, monitor, aUrl, bUrl);

                NodeJs.Run r = NodeJs.run(jsDir, 60, "node", SCRIPT, a.wsUri().toString(), monitor, bUrl);
                assertEquals(0, r.exit(), "the nostr-tools script failed:\n" + r.stdout() + r.stderr());
                JsonNode res = NostrClient.tree(r.stdout().lines().filter(l -> l.startsWith("RESULT "))
                        .reduce((x, y) -> y).orElseThrow(() -> new AssertionError(r.stdout() + r.stderr()))
                        .substring("RESULT ".length()));

                Map<String, JsonNode> discovery = new HashMap<>();
                JsonNode announcement = null;
                for (JsonNode e : res.path("events")) {
                    assertTrue(e.path("verified").asBoolean(), "nostr-tools: the signature verifies: " + e);
                    assertEquals(monitor, e.path("pubkey").asText());
                    if (e.path("kind").asInt() == 30166) {
                        discovery.put(tag(e, "d").get(0), e);
                    } else if (e.path("kind").asInt() == 10166) {
                        announcement = e;
                    }
                }
                assertTrue(discovery.containsKey(aUrl), "a 30166 for A's own relay: " + discovery.keySet());
                assertTrue(discovery.containsKey(bUrl), "a 30166 for B's relay: " + discovery.keySet());
                JsonNode aboutB = discovery.get(bUrl);
                for (String rtt : List.of("rtt-open", "rtt-read", "rtt-write")) {
                    assertEquals(1, tag(aboutB, rtt).size(), rtt + " in " + aboutB);
                    assertTrue(tag(aboutB, rtt).get(0).matches("0|[1-9][0-9]*"), rtt + " in " + aboutB);
                }
                assertEquals(List.of("clearnet"), tag(aboutB, "n"));
                JsonNode bInfo = NostrClient.tree(b.relayInfo());
                List<String> bNips = new ArrayList<>();
                bInfo.path("supported_nips").forEach(n -> bNips.add(n.asText()));
                assertEquals(bNips, tag(aboutB, "N"), "N tags are B's NIP-11 supported_nips");
                assertTrue(bNips.contains("66"), "NIP-11 lists NIP-66: " + bNips);
                assertEquals(List.of("!auth", "!payment", "!writes", "!pow"), tag(aboutB, "R"));
                assertEquals(bInfo, NostrClient.tree(aboutB.path("content").asText()), "content is B's NIP-11 document");

                assertTrue(announcement != null, "a 10166 announcement: " + res.path("events"));
                assertEquals(List.of("2"), tag(announcement, "frequency"));
                assertEquals(List.of("open", "read", "write", "nip11"), tag(announcement, "c"));
                List<String> timeouts = new ArrayList<>();
                for (JsonNode t : announcement.path("tags")) {
                    if (t.path(0).asText().equals("timeout")) {
                        timeouts.add(t.path(1).asText() + " " + t.path(2).asText());
                    }
                }
                assertEquals(List.of("5000 open", "3000 read", "3000 write", "3000 nip11"), timeouts,
                        "index 1 the milliseconds, index 2 the check");

                // the third-party monitor's 30166 about B is a hint at A, and moves nothing else
                JsonNode before = PeeringIT.peer(PeeringIT.status(a), bDid).orElseThrow();
                String thirdParty = res.path("thirdParty").asText();
                JsonNode after = await(a, bDid, p -> {
                    for (JsonNode h : p.path("monitor_hints")) {
                        if (h.path("id").asText().equals(thirdParty)) {
                            return true;
                        }
                    }
                    return false;
                }, "the third-party hint");
                // the one awaited: not necessarily the first of A's hints (others may be listed before it)
                JsonNode hint = null;
                for (JsonNode h : after.path("monitor_hints")) {
                    if (h.path("id").asText().equals(thirdParty)) {
                        hint = h;
                    }
                }
                assertEquals(res.path("thirdPartyPubkey").asText(), hint.path("monitor").asText());
                assertEquals(999, hint.path("rtt_open").asInt());
                assertFalse(after.path("monitor_hints").toString().contains(monitor), "A's own events are not hints");
                for (String field : List.of("state", "tier", "quarantined_until", "violations", "grant_in",
                        "grant_out")) {
                    assertEquals(before.path(field), after.path(field), field + " of B at A");
                }
                assertEquals("up", after.path("state").asText());
                assertTrue(after.path("quarantined_until").isNull(), after.toString());
            }
        }
    }

    private static List<String> tag(JsonNode event, String name) {
        List<String> values = new ArrayList<>();
        for (JsonNode t : event.path("tags")) {
            if (t.path(0).asText().equals(name)) {
                values.add(t.path(1).asText());
            }
        }
        return values;
    }

    private static JsonNode await(MeshnodeProcess a, String did, java.util.function.Predicate<JsonNode> done,
            String what) {
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        JsonNode last = null;
        while (System.currentTimeMillis() < deadline) {
            Optional<JsonNode> p = PeeringIT.peer(PeeringIT.status(a), did);
            if (p.isPresent()) {
                last = p.get();
                if (done.test(last)) {
                    return last;
                }
            }
            MeshnodeProcess.sleep(100);
        }
        throw new AssertionError("no " + what + " within " + WAIT_MILLIS + " ms: " + last + "\n" + a.logTail(40));
    }

    /** Waits until A's relay serves its 30166 about both relays and its 10166. */
    private static void awaitStored(MeshnodeProcess a, String monitor, String aUrl, String bUrl) {
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        try (NostrClient c = NostrClient.connect(a)) {
            while (System.currentTimeMillis() < deadline) {
                List<JsonNode> found = c.query("m", FilterSpec.of().authors(monitor).kinds(30166, 10166));
                boolean own = false, peer = false, announced = false;
                for (JsonNode e : found) {
                    announced |= e.path("kind").asInt() == 10166;
                    own |= e.path("kind").asInt() == 30166 && tag(e, "d").contains(aUrl);
                    peer |= e.path("kind").asInt() == 30166 && tag(e, "d").contains(bUrl);
                }
                if (own && peer && announced) {
                    return;
                }
                MeshnodeProcess.sleep(200);
            }
        }
        throw new AssertionError("A did not serve its NIP-66 events within " + WAIT_MILLIS + " ms\n" + a.logTail(40));
    }
}
