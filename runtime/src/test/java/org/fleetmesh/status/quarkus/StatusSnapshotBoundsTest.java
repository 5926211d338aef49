package org.fleetmesh.status.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.peering.quarkus.MeshAdminRoutes;
import org.fleetmesh.standing.Counted;
import org.fleetmesh.standing.Ignored;
import org.fleetmesh.standing.SubjectView;
import org.fleetmesh.standing.Views;
import org.fleetmesh.standing.quarkus.FindingsRuntime;
import org.fleetmesh.standing.quarkus.StandingRuntime;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A status page snapshot stays small whatever strangers sent: anyone may send the relay kind 1804 events (kept as
 * ignored findings even with a bad id or signature) naming any subject, with tags as long as a message allows, up to
 * fleetmesh.standing.max-findings of them. Before, every snapshot (each second, while a page was open) listed every
 * subject: 10,000 such findings made a 30 MB snapshot, and a 256 MB node ran out of heap building them.
 */
class StatusSnapshotBoundsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aSnapshotListsAFewSubjectsTheOnesThatMatterAndCountsTheRest() throws Exception {
        Map<String, SubjectView> subjects = new HashMap<>();
        for (int i = 0; i < 10_000; i++) {
            String junk = "<img src=x onerror=alert(1)>" + i + "-" + "A".repeat(2_000);
            List<Ignored> ignored = List.of(new Ignored("e" + i, "pubkey:" + "ab".repeat(32), "S1", "transit",
                    "R".repeat(4_000), "MALFORMED", "verdict MALFORMED: invalid: event id does not match"));
            subjects.put(junk, new SubjectView(junk, null, 1.0, 1.0, List.of(), ignored));
        }
        // a peer with counted findings sorts last by name, and is listed first of all
        subjects.put("did:peer:4zzz-real", new SubjectView("did:peer:4zzz-real", null, 0.4, 1.0,
                List.of(new Counted("c1", "did:peer:4zObs", "S2", "transit", "custody-fork", "VERIFIED", 0.6)),
                List.of()));
        Views views = new Views(subjects);

        ObjectNode snapshot = routes(views).snapshot();
        String sent = snapshot.toString();
        JsonNode standing = snapshot.path("standing");
        assertTrue(sent.length() < 2_000_000, "a snapshot of " + sent.length() + " characters");
        assertEquals(10_001, standing.path("subjects_total").asInt());
        assertEquals(StatusPageRoutes.MAX_SUBJECTS, standing.path("subjects").size());
        assertEquals(StatusPageRoutes.MAX_SUBJECTS, standing.path("subjects_listed").asInt());
        boolean real = false;
        for (JsonNode s : standing.path("subjects")) {
            real |= s.path("did").asText().equals("did:peer:4zzz-real");
            assertTrue(s.path("did").asText().length() <= StatusPageRoutes.MAX_TEXT, "strings are clipped");
            for (JsonNode d : s.path("findings").path("details")) {
                assertTrue(d.path("rule").asText().length() <= StatusPageRoutes.MAX_TEXT, "strings are clipped");
            }
        }
        assertTrue(real, "the subject with a counted finding is listed");
    }

    @Test
    void aFewSubjectsAreAllListedAsBefore() throws Exception {
        Views views = new Views(Map.of("did:peer:4zA", new SubjectView("did:peer:4zA", null, 0.5, 1.0,
                List.of(new Counted("c1", "did:peer:4zObs", "S2", "transit", "custody-fork", "VERIFIED", 0.5)),
                List.of())));
        JsonNode standing = routes(views).snapshot().path("standing");
        assertEquals(1, standing.path("subjects").size());
        assertEquals(1, standing.path("subjects_total").asInt());
        assertEquals("did:peer:4zA", standing.path("subjects").get(0).path("did").asText());
        assertEquals("custody-fork", standing.path("subjects").get(0).path("findings").path("details").get(0)
                .path("rule").asText());
    }

    private static StatusPageRoutes routes(Views views) throws Exception {
        StatusPageRoutes r = new StatusPageRoutes();
        r.admin = new MeshAdminRoutes() {
            @Override
            public ObjectNode statusDocument() {
                ObjectNode s = JSON.createObjectNode().put("did", "did:peer:4zSelf");
                s.putArray("peers");
                return s;
            }
        };
        r.standing = new StandingRuntime() {
            @Override
            public Views current() {
                return views;
            }

            @Override
            public Views views() {
                return views;
            }
        };
        r.findings = new FindingsRuntime() {
            @Override
            public Map<String, Object> counters() {
                return Map.of("verified", 0);
            }
        };
        r.config = new StatusConfig() {
            public int maxStreams() {
                return 8;
            }

            public Duration streamInterval() {
                return Duration.ofSeconds(1);
            }

            public Duration streamMaxAge() {
                return Duration.ofMinutes(10);
            }

            public Duration sampleInterval() {
                return Duration.ofSeconds(10);
            }

            public int samples() {
                return 360;
            }

            public boolean metricsPublic() {
                return false;
            }
        };
        r.init();
        // the readiness checks were run a moment ago (no CDI here to run them)
        set(r, "health", JSON.createObjectNode().put("status", "UP").set("checks", JSON.createArrayNode()));
        set(r, "healthAt", Long.MAX_VALUE / 2);
        return r;
    }

    private static void set(Object o, String name, Object value) throws Exception {
        Field f = StatusPageRoutes.class.getDeclaredField(name);
        f.setAccessible(true);
        f.set(o, value);
    }
}
