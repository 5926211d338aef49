package org.fleetmesh.nostr.nip66;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.junit.jupiter.api.Test;

class DiscoveryTest {
    static final byte[] MONITOR = HexFormat.of().parseHex("0000000000000000000000000000000000000000000000000000000000000003");
    static final String NIP11 = "{\"name\":\"r\",\"supported_nips\":[1,11,66,\"x\",-3,1],\"limitation\":{"
            + "\"auth_required\":false,\"payment_required\":true,\"restricted_writes\":false,\"min_pow_difficulty\":0}}";

    static Probe probe() {
        return new Probe("wss://some.relay/", OptionalLong.of(12), OptionalLong.of(3), OptionalLong.of(4),
                Optional.of(NIP11), List.of());
    }

    @Test
    void tagsFollowNip66InTheirOrder() {
        assertEquals(List.of(List.of("d", "wss://some.relay/"), List.of("rtt-open", "12"), List.of("rtt-read", "3"),
                List.of("rtt-write", "4"), List.of("n", "clearnet"), List.of("N", "1"), List.of("N", "11"),
                List.of("N", "66"), List.of("R", "!auth"), List.of("R", "payment"), List.of("R", "!writes"),
                List.of("R", "!pow")), Discovery.tags(probe()));
    }

    /**
     * A peer that moved: this monitor's 30166 about its old URL is withdrawn by a NIP-09 deletion request whose
     * {@code a} tag is that event's address (kind:pubkey:d); relays still watched are left alone.
     */
    @Test
    void aRelayNoLongerWatchedIsWithdrawnByItsAddress() {
        Event old = Discovery.sign(probe(), 1_700_000_000L, MONITOR);
        String address = Discovery.KIND + ":" + old.pubkey().hex() + ":wss://some.relay/";
        Event d = Discovery.retraction(List.of("wss://some.relay/", "wss://kept/", "wss://some.relay/"),
                java.util.Set.of("wss://kept/", "wss://new.relay/"), 1_700_000_100L, MONITOR).orElseThrow();
        assertEquals(5, d.kind());
        assertEquals(old.pubkey(), d.pubkey());
        assertEquals(1_700_000_100L, d.createdAt());
        assertEquals(List.of(List.of("a", address), List.of("k", "30166")), d.tags());
        assertTrue(Discovery.retraction(List.of("wss://kept/"), java.util.Set.of("wss://kept/"), 1, MONITOR).isEmpty());
        assertTrue(Discovery.retraction(List.of(), java.util.Set.of(), 1, MONITOR).isEmpty());
    }

    @Test
    void aCheckThatFailedLeavesItsTagOut() {
        Probe p = new Probe("ws://x.onion/", OptionalLong.of(5), OptionalLong.empty(), OptionalLong.empty(),
                Optional.empty(), List.of("read: timed out"));
        assertEquals(List.of(List.of("d", "ws://x.onion/"), List.of("rtt-open", "5"), List.of("n", "tor")),
                Discovery.tags(p));
    }

    @Test
    void aPowRequirementAndAnUnparsableDocument() {
        Probe pow = new Probe("wss://a/", OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(),
                Optional.of("{\"limitation\":{\"min_pow_difficulty\":20,\"auth_required\":\"yes\"}}"), List.of());
        assertEquals(List.of(List.of("d", "wss://a/"), List.of("n", "clearnet"), List.of("R", "pow")),
                Discovery.tags(pow));
        Probe junk = new Probe("wss://a/", OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(),
                Optional.of("<html>"), List.of());
        assertEquals(List.of(List.of("d", "wss://a/"), List.of("n", "clearnet")), Discovery.tags(junk));
    }

    @Test
    void nipTagsAreBounded() {
        StringBuilder doc = new StringBuilder("{\"supported_nips\":[");
        for (int i = 0; i < 1000; i++) {
            doc.append(i == 0 ? "" : ",").append(i);
        }
        doc.append("]}");
        Probe p = new Probe("wss://a/", OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(),
                Optional.of(doc.toString()), List.of());
        assertEquals(Discovery.MAX_NIPS, Discovery.tags(p).stream().filter(t -> t.get(0).equals("N")).count());
    }

    @Test
    void aSignedDiscoveryReadsBackWithTheDocumentAsContent() throws Exception {
        Event e = Discovery.sign(probe(), 1_700_000_000L, MONITOR);
        assertNull(Events.verify(e));
        assertEquals(Discovery.KIND, e.kind());
        assertEquals(NIP11, e.content());
        Discovery d = Discovery.read(e);
        assertEquals("wss://some.relay/", d.url());
        assertEquals(OptionalLong.of(12), d.rttOpen());
        assertEquals(OptionalLong.of(3), d.rttRead());
        assertEquals(OptionalLong.of(4), d.rttWrite());
        assertEquals(List.of("clearnet"), d.networks());
        assertEquals(List.of(1, 11, 66), d.nips());
        assertEquals(List.of("!auth", "payment", "!writes", "!pow"), d.requirements());
    }

    @Test
    void readsOtherMonitorsTagsItDoesNotWrite() throws Exception {
        Event e = Events.sign(MONITOR, 1, Discovery.KIND, List.of(List.of("d", "wss://other/"), List.of("k", "1"),
                List.of("k", "!4"), List.of("T", "PublicOutbox"), List.of("g", "ww8p1r4t8"), List.of()), "");
        Discovery d = Discovery.read(e);
        assertEquals(List.of("1", "!4"), d.kinds());
        assertTrue(d.rttOpen().isEmpty());
    }

    @Test
    void refusals() {
        assertRefused("invalid: not a relay discovery event: kind 1, not 30166", 1, List.of(List.of("d", "wss://a/")));
        assertRefused("invalid: missing tag d", Discovery.KIND, List.of(List.of("rtt-open", "1")));
        assertRefused("invalid: more than one d tag", Discovery.KIND,
                List.of(List.of("d", "wss://a/"), List.of("d", "wss://b/")));
        assertRefused("invalid: the d tag names the relay", Discovery.KIND, List.of(List.of("d", "")));
        assertRefused("invalid: the d tag names the relay", Discovery.KIND, List.of(List.of("d")));
        for (String bad : new String[] { "-1", "1.5", "01", "fast", "" }) {
            assertRefused("invalid: rtt-read is a non-negative integer of milliseconds", Discovery.KIND,
                    List.of(List.of("d", "wss://a/"), List.of("rtt-read", bad)));
        }
        assertRefused("invalid: more than one rtt-open tag", Discovery.KIND,
                List.of(List.of("d", "wss://a/"), List.of("rtt-open", "1"), List.of("rtt-open", "2")));
        assertRefused("invalid: N is a NIP number", Discovery.KIND,
                List.of(List.of("d", "wss://a/"), List.of("N", "NIP-01")));
    }

    private static void assertRefused(String reason, int kind, List<List<String>> tags) {
        Event e = Events.sign(MONITOR, 1, kind, new ArrayList<>(tags), "");
        Nip66Exception x = assertThrows(Nip66Exception.class, () -> Discovery.read(e));
        assertEquals(reason, x.getMessage());
    }
}
