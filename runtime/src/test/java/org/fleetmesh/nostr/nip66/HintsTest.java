package org.fleetmesh.nostr.nip66;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import java.util.Set;

import org.fleetmesh.nostr.Events;
import org.junit.jupiter.api.Test;

class HintsTest {

    static byte[] key(int i) {
        byte[] k = new byte[32];
        k[31] = (byte) (i + 1);
        k[30] = (byte) ((i + 1) >> 8);
        return k;
    }

    static Discovery discovery(int monitor, String url, long createdAt, String rttOpen) throws Nip66Exception {
        return Discovery.read(Events.sign(key(monitor), createdAt, Discovery.KIND,
                List.of(List.of("d", url), List.of("rtt-open", rttOpen)), ""));
    }

    @Test
    void keepsTheLatestPerMonitorAndUrlNewestFirst() throws Exception {
        Hints h = new Hints(16, 1024);
        h.watch(Set.of("wss://b.example"));
        assertTrue(h.offer(discovery(1, "wss://b.example", 10, "5")));
        assertTrue(h.offer(discovery(2, "WSS://B.example:443/", 20, "7")));
        assertFalse(h.offer(discovery(1, "wss://b.example/", 9, "1")), "older than what is held");
        assertTrue(h.offer(discovery(1, "wss://b.example/", 30, "6")));
        List<Hints.Hint> about = h.about("wss://b.example");
        assertEquals(2, about.size());
        assertEquals(30, about.get(0).createdAt());
        assertEquals(6, about.get(0).rttOpen().getAsLong());
        assertEquals(HexFormat.of().formatHex(org.fleetmesh.nostr.Schnorr.publicKey(key(1))), about.get(0).monitor());
        assertEquals(List.of(), h.about("wss://c.example/"));
    }

    @Test
    void aSwarmOfMonitorsIsHeldToPerUrlAndNewerReplaceOlder() throws Exception {
        Hints h = new Hints(16, 1024);
        h.watch(Set.of("wss://b.example/"));
        for (int i = 0; i < 200; i++) {
            h.offer(discovery(i, "wss://b.example/", 1000 + i, "1"));
        }
        assertEquals(16, h.about("wss://b.example/").size());
        assertEquals(1199, h.about("wss://b.example/").get(0).createdAt());
        assertEquals(1184, h.about("wss://b.example/").get(15).createdAt());
        assertFalse(h.offer(discovery(500, "wss://b.example/", 5, "1")), "older than every held hint");
    }

    @Test
    void urlsAreBounded() throws Exception {
        Hints h = new Hints(2, 10);
        Set<String> all = new java.util.HashSet<>();
        for (int i = 0; i < 100; i++) {
            all.add("wss://r" + i + ".example/");
        }
        h.watch(all);
        for (int i = 0; i < 100; i++) {
            h.offer(discovery(1, "wss://r" + i + ".example/", 1, "1"));
        }
        assertEquals(10, h.urls());
        assertEquals(10, h.size());
        h.watch(Set.of("wss://r3.example/", "wss://new.example"));
        assertEquals(1, h.urls(), "what is held about a relay no longer watched is forgotten");
        assertTrue(h.offer(discovery(1, "wss://new.example/", 1, "1")));
    }

    @Test
    void discoveryAboutARelayNotWatchedIsNotKept() throws Exception {
        Hints h = new Hints(16, 1024);
        h.watch(Set.of("ws://127.0.0.1:7777/"));
        for (int i = 0; i < 50; i++) {
            assertFalse(h.offer(discovery(i, "wss://stranger" + i + ".example/", 1, "1")));
        }
        assertFalse(h.offer(Discovery.read(Events.sign(key(1), 1, Discovery.KIND,
                List.of(List.of("d", "0000000000000000000000000000000000000000000000000000000000000001")), ""))),
                "a pubkey d is not a watched relay");
        assertEquals(0, h.urls());
        assertTrue(h.watches("WS://127.0.0.1:7777"));
        assertTrue(h.offer(discovery(1, "ws://127.0.0.1:7777", 1, "1")));
        assertEquals(1, h.size());
    }
}
