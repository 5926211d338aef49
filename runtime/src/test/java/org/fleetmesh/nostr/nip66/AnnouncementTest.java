package org.fleetmesh.nostr.nip66;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.junit.jupiter.api.Test;

class AnnouncementTest {

    static Map<String, Duration> timeouts() {
        Map<String, Duration> t = new LinkedHashMap<>();
        t.put("open", Duration.ofSeconds(5));
        t.put("read", Duration.ofSeconds(3));
        t.put("write", Duration.ofSeconds(3));
        t.put("nip11", Duration.ofMillis(2500));
        return t;
    }

    /** NIP-66: "Monitors SHOULD also publish a kind 0 profile and a kind 10002 relay selections event." */
    @Test
    void theMonitorAlsoHasAProfileAndARelayList() throws Exception {
        Event p = Announcement.profile("m \"1\"", "watches", 1_700_000_000L, DiscoveryTest.MONITOR);
        assertEquals(0, p.kind());
        assertEquals(List.of(), p.tags());
        com.fasterxml.jackson.databind.JsonNode c = new com.fasterxml.jackson.databind.ObjectMapper().readTree(p.content());
        assertEquals("m \"1\"", c.path("name").asText());
        assertEquals("watches", c.path("about").asText());
        Event r = Announcement.relayList(List.of("wss://some.relay/"), 1_700_000_000L, DiscoveryTest.MONITOR);
        assertEquals(10002, r.kind());
        assertEquals(List.of(List.of("r", "wss://some.relay/")), r.tags());
        assertEquals("", r.content());
        assertEquals(p.pubkey(), r.pubkey());
    }

    @Test
    void timeoutsHaveTheMillisecondsAtIndexOneAndTheCheckAtIndexTwo() {
        assertEquals(List.of(List.of("frequency", "3600"), List.of("timeout", "5000", "open"),
                List.of("timeout", "3000", "read"), List.of("timeout", "3000", "write"),
                List.of("timeout", "2500", "nip11"), List.of("c", "open"), List.of("c", "read"), List.of("c", "write"),
                List.of("c", "nip11")), Announcement.tags(Duration.ofHours(1), timeouts()));
    }

    @Test
    void aSignedAnnouncementReadsBack() throws Exception {
        Event e = Announcement.sign(Duration.ofSeconds(90), timeouts(), 1_700_000_000L, DiscoveryTest.MONITOR);
        assertNull(Events.verify(e));
        assertEquals(Announcement.KIND, e.kind());
        assertEquals("", e.content());
        Announcement a = Announcement.read(e);
        assertEquals(90, a.frequency());
        assertEquals(Map.of("open", 5000L, "read", 3000L, "write", 3000L, "nip11", 2500L), a.timeouts());
        assertEquals(Announcement.CHECKS, a.checks());
    }

    @Test
    void aTimeoutWithoutACheckAppliesToAll() throws Exception {
        Event e = Events.sign(DiscoveryTest.MONITOR, 1, Announcement.KIND,
                List.of(List.of("frequency", "60"), List.of("timeout", "2000")), "");
        assertEquals(Map.of("", 2000L), Announcement.read(e).timeouts());
    }

    @Test
    void refusals() {
        assertRefused("invalid: missing tag frequency", List.of(List.of("c", "open")));
        assertRefused("invalid: frequency is a positive integer of seconds", List.of(List.of("frequency", "0")));
        assertRefused("invalid: more than one frequency tag",
                List.of(List.of("frequency", "1"), List.of("frequency", "2")));
        // the NIP's example order (check first) is refused: index 1 is the milliseconds
        assertRefused("invalid: a timeout's index 1 is a non-negative integer of milliseconds",
                List.of(List.of("frequency", "60"), List.of("timeout", "open", "5000")));
        assertThrows(IllegalArgumentException.class, () -> Announcement.tags(Duration.ofMillis(500), timeouts()));
    }

    private static void assertRefused(String reason, List<List<String>> tags) {
        Event e = Events.sign(DiscoveryTest.MONITOR, 1, Announcement.KIND, tags, "");
        assertEquals(reason, assertThrows(Nip66Exception.class, () -> Announcement.read(e)).getMessage());
    }
}
