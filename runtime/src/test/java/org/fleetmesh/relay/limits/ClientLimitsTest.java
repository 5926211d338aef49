package org.fleetmesh.relay.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.fleetmesh.peering.grant.Tier;
import org.fleetmesh.peering.grant.TierPolicy;
import org.junit.jupiter.api.Test;

class ClientLimitsTest {
    static final long S = 1_000_000_000L;
    /** Tier 0: 1000 bytes, 3 events, 2 REQs, 2 subscriptions; tier 1: ten times that; 10 s windows; climb after 2. */
    static final TierPolicy POLICY = new TierPolicy(List.of(new Tier(0, 1000, 3, 2, 2), new Tier(1, 10_000, 30, 20, 20)),
            10, 2);

    ClientLimits limits = new ClientLimits(POLICY, 100);

    private String event(String address, String pubkey, long size, long now) {
        return limits.event(address, pubkey, size, () -> true, now).refusal();
    }

    @Test
    void aFreshAddressGetsTierZerosEventsThenRateLimited() {
        for (int i = 0; i < 3; i++) {
            assertNull(event("10.0.0.1", "p" + i, 100, 0));
        }
        String r = event("10.0.0.1", "p9", 100, 0);
        assertNotNull(r);
        assertTrue(r.startsWith("rate-limited: this address sent too many events (tier 0: 3 events and 1000 bytes per 10 s)"), r);
        assertTrue(r.endsWith("; try again in 3334 ms"), r); // one event refills in 10 s / 3
        assertNull(event("10.0.0.2", "p9", 100, 0), "another address is not slowed");
    }

    @Test
    void aPubkeyIsLimitedAcrossAddresses() {
        for (int i = 0; i < 3; i++) {
            assertNull(event("10.0.1." + i, "author", 10, 0));
        }
        String r = event("10.0.1.9", "author", 10, 0);
        assertTrue(r.startsWith("rate-limited: this pubkey sent too many events"), r);
    }

    @Test
    void bytesCountAndAnEventLargerThanTheWindowNeverFits() {
        assertNull(event("10.0.2.1", "a", 900, 0));
        assertTrue(event("10.0.2.1", "b", 200, 0).startsWith("rate-limited: this address sent too many events"));
        assertTrue(event("10.0.2.2", "c", 1001, 0)
                .startsWith("rate-limited: this event's 1001 bytes are more than this address may send in a window"));
    }

    @Test
    void anEventNotStoredGivesTheAuthorItsShareBackButNotTheAddress() {
        for (int i = 0; i < 3; i++) {
            ClientLimits.EventCharge c = limits.event("10.0.3." + i, "dup", 10, () -> true, 0);
            assertNull(c.refusal());
            c.notStored(0);
        }
        assertNull(event("10.0.3.9", "dup", 10, 0), "duplicates cost their author nothing");
        assertNull(event("10.0.3.0", "x", 10, 0));
        assertNull(event("10.0.3.0", "y", 10, 0));
        assertNotNull(event("10.0.3.0", "z", 10, 0), "the address paid for all three");
    }

    @Test
    void aForgedEventDoesNotSpoilItsClaimedAuthor() {
        for (int i = 0; i < 3; i++) {
            assertNull(event("10.0.4." + i, "victim", 10, 0));
        }
        assertNotNull(limits.event("10.0.4.9", "victim", 10, () -> false, 0).refusal());
        assertEquals(0, limits.pubkey("victim").state(0).cleanStreak());
        assertTrue(!limits.pubkey("victim").state(0).violatedThisWindow(), "a bad signature is no violation of the author");
        assertNotNull(limits.event("10.0.4.9", "victim", 10, () -> true, 0).refusal());
        assertTrue(limits.pubkey("victim").state(0).violatedThisWindow());
    }

    @Test
    void reqsPerWindowPerAddressAndPerAuthenticatedPubkey() {
        assertNull(limits.req("10.0.5.1", List.of(), 0));
        assertNull(limits.req("10.0.5.1", List.of(), 0));
        assertTrue(limits.req("10.0.5.1", List.of(), 0)
                .startsWith("rate-limited: this address sent too many REQs and COUNTs (tier 0: 2 per 10 s); try again in"));
        assertNull(limits.req("10.0.5.2", List.of("me"), 0));
        assertNull(limits.req("10.0.5.3", List.of("me"), 0));
        assertTrue(limits.req("10.0.5.4", List.of("me"), 0).startsWith("rate-limited: this pubkey sent too many REQs"));
        assertNull(limits.req("10.0.5.1", List.of(), 5 * S + 1), "one REQ refilled after half a window");
    }

    @Test
    void subscriptionsAreCountedPerAddress() {
        assertNull(limits.subscription("10.0.6.1", 0));
        limits.subscriptionsChanged("10.0.6.1", 2, 0);
        assertTrue(limits.subscription("10.0.6.1", 0)
                .startsWith("rate-limited: this address holds its 2 concurrent subscriptions (tier 0)"));
        limits.subscriptionsChanged("10.0.6.1", -1, 0);
        assertNull(limits.subscription("10.0.6.1", 0));
        limits.subscriptionsChanged("10.0.6.1", -5, 0);
        assertEquals(0, limits.address("10.0.6.1").subscriptions(), "never below zero");
    }

    @Test
    void aCleanStreakClimbsAndAViolationFalls() {
        assertNull(event("10.0.7.1", "k", 10, 0));
        Standing a = limits.address("10.0.7.1");
        assertEquals(0, a.state(0).level());
        assertEquals(0, a.state(20 * S - 1).level(), "one clean window is not the streak");
        assertEquals(1, a.state(20 * S).level(), "two clean windows climb one tier");
        for (int i = 0; i < 30; i++) {
            assertNull(event("10.0.7.1", "k" + i, 10, 20 * S), "tier 1's 30 events");
        }
        assertNotNull(event("10.0.7.1", "k", 10, 20 * S));
        assertEquals(0, a.state(20 * S).level(), "the violation drops a tier");
        assertEquals(0, a.state(20 * S).cleanStreak());
        // the fall kept the bucket spent: tier 0 has nothing left for this window
        assertNotNull(event("10.0.7.1", "k", 10, 20 * S));
        assertEquals(0, a.state(30 * S).level(), "the violated window does not count");
        assertEquals(1, a.state(50 * S).level(), "two more clean windows climb again");
    }

    @Test
    void offPassesEverything() {
        ClientLimits off = ClientLimits.OFF;
        for (int i = 0; i < 1000; i++) {
            assertNull(off.event("x", "y", 1_000_000, () -> true, 0).refusal());
            assertNull(off.req("x", List.of("y"), 0));
            assertNull(off.subscription("x", 0));
        }
        assertEquals(0, off.remembered()[0]);
    }

    @Test
    void theKeyMapsAreBoundedAndAForgottenKeyIsFreshAgain() {
        ClientLimits small = new ClientLimits(POLICY, 50);
        for (int i = 0; i < 10_000; i++) {
            small.event("10.1." + (i / 256) + "." + (i % 256), "pk" + i, 10, () -> true, 0);
            small.req("10.2." + (i / 256) + "." + (i % 256), List.of("auth" + i), 0);
        }
        assertEquals(50, small.remembered()[0], "at most 50 addresses");
        assertEquals(50, small.remembered()[1], "at most 50 pubkeys");
        for (int i = 0; i < 3; i++) {
            small.event("10.9.9.9", "p" + i, 10, () -> true, 0);
        }
        assertNotNull(small.event("10.9.9.9", "q", 10, () -> true, 0).refusal());
        for (int i = 0; i < 50; i++) {
            small.req("10.3.0." + i, List.of(), 0); // pushes 10.9.9.9 out
        }
        assertNull(small.address("10.9.9.9"));
        assertNull(small.event("10.9.9.9", "q", 10, () -> true, 0).refusal(), "forgotten: fresh again");
    }

    @Test
    void boundedKeysForgetsTheLeastRecentlyUsed() {
        BoundedKeys<String> keys = new BoundedKeys<>(2);
        keys.get("a", k -> "A");
        keys.get("b", k -> "B");
        keys.get("a", k -> "A2"); // a is now the most recent
        keys.get("c", k -> "C");
        assertSame("A", keys.peek("a"));
        assertNull(keys.peek("b"));
        assertEquals(2, keys.size());
    }
}
