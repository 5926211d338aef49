package org.fleetmesh.peering.grant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class TierPolicyTest {
    static final TierPolicy POLICY = new TierPolicy(List.of(
            new Tier(0, 1000, 10, 5, 1),
            new Tier(1, 10_000, 100, 50, 4),
            new Tier(2, 100_000, 1000, 500, 16)), 60, 3);

    @Test
    void aFreshKeyStartsInTierZeroWithANonZeroSandbox() {
        TierState s = POLICY.fresh();
        assertEquals(new TierState(0, 0, false), s);
        Tier t = POLICY.tier(s.level());
        assertTrue(t.bytesPerWindow() > 0 && t.eventsPerWindow() > 0 && t.reqsPerWindow() > 0 && t.subscriptions() > 0);
    }

    @Test
    void aStreakOfCleanWindowsClimbsOneTier() {
        TierState s = POLICY.fresh();
        s = POLICY.windowEnded(s);
        s = POLICY.windowEnded(s);
        assertEquals(new TierState(0, 2, false), s, "two clean windows are not yet three");
        s = POLICY.windowEnded(s);
        assertEquals(new TierState(1, 0, false), s, "the third climbs and starts a new streak");
        for (int i = 0; i < 3; i++) {
            s = POLICY.windowEnded(s);
        }
        assertEquals(2, s.level());
    }

    @Test
    void theTopTierIsTheCeiling() {
        TierState s = new TierState(2, 0, false);
        for (int i = 0; i < 10; i++) {
            s = POLICY.windowEnded(s);
        }
        assertEquals(new TierState(2, 3, false), s, "the streak stops counting at the climb length");
    }

    @Test
    void aViolationDropsOneTierAndResetsTheStreak() {
        TierState s = POLICY.violation(new TierState(2, 2, false));
        assertEquals(new TierState(1, 0, true), s);
        assertEquals(s, POLICY.violation(s), "more violations in the same window drop no further");
        s = POLICY.windowEnded(s);
        assertEquals(new TierState(1, 0, false), s, "a window with a violation is not clean");
        s = POLICY.violation(s);
        assertEquals(new TierState(0, 0, true), s, "a violation in the next window drops another tier");
    }

    @Test
    void tierZeroIsTheFloor() {
        TierState s = POLICY.violation(POLICY.fresh());
        assertEquals(new TierState(0, 0, true), s);
        s = POLICY.violation(POLICY.windowEnded(s));
        assertEquals(0, s.level());
        assertTrue(POLICY.tier(s.level()).eventsPerWindow() > 0, "a key at the floor still has its sandbox");
    }

    @Test
    void theDefaultTermsOfATierAreItsBudget() {
        GrantTerms t = POLICY.defaultTerms(1, "did:key:z6Mka", "did:key:z6Mkb", 2_000_000_000L);
        assertEquals(new GrantTerms("did:key:z6Mka", "did:key:z6Mkb", 10_000, 100, 60, 1, 2_000_000_000L), t);
        assertEquals(2, POLICY.defaultTerms(9, "did:key:z6Mka", "did:key:z6Mkb", 2_000_000_000L).tier(),
                "a level above the top is the top");
    }

    @Test
    void theDefaultsAreSane() {
        TierPolicy d = TierPolicy.DEFAULT;
        assertEquals(0, d.fresh().level());
        for (int i = 1; i <= d.top(); i++) {
            assertTrue(d.tier(i).eventsPerWindow() > d.tier(i - 1).eventsPerWindow(), "each tier grants more");
            assertTrue(d.tier(i).bytesPerWindow() > d.tier(i - 1).bytesPerWindow(), "each tier grants more");
        }
    }

    @Test
    void aPolicyThatWouldLockKeysOutIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Tier(0, 1000, 0, 5, 1));
        assertThrows(IllegalArgumentException.class, () -> new Tier(0, 1000, 10, 5, 0));
        assertThrows(IllegalArgumentException.class, () -> new TierPolicy(List.of(), 60, 3));
        assertThrows(IllegalArgumentException.class,
                () -> new TierPolicy(List.of(new Tier(1, 1000, 10, 5, 1)), 60, 3), "tier 0 must come first");
        assertThrows(IllegalArgumentException.class, () -> new TierPolicy(List.of(new Tier(0, 1000, 10, 5, 1)), 60, 0));
        assertThrows(IllegalArgumentException.class,
                () -> new TierPolicy(List.of(new Tier(0, 2_000_000_000L, 10, 5, 1)), 1, 3),
                "more bytes than nanoseconds in the window");
    }
}
