package org.fleetmesh.identity.capability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

class CheckAdmissionTest {
    static final long S = 1_000_000_000L;

    @Test
    void anAddressWhoseTokensKeepBeingRefusedIsToldToWaitAndOthersAreNot() {
        CheckAdmission a = new CheckAdmission(4, 2, 30, 60 * S, 100);
        long t = 5 * S;
        for (int i = 0; i < 30; i++) {
            assertTrue(a.admit("192.0.2.9", t).isEmpty(), "refusal " + i + " is within the allowance");
            a.done("192.0.2.9", true, t);
        }
        Optional<CheckAdmission.Refusal> r = a.admit("192.0.2.9", t);
        assertEquals(429, r.orElseThrow().status());
        assertEquals(2, r.get().retryAfterSeconds(), "one refusal refills every 60/30 s");
        assertTrue(r.get().reason().startsWith("rate-limited: too many refused tokens from your address"), r.get().reason());
        assertEquals(0, a.running(), "nothing was taken by the refusal");
        assertTrue(a.admit("192.0.2.10", t).isPresent() == false, "another address is checked");
        a.done("192.0.2.10", false, t);
        // a refill later, one more check
        assertTrue(a.admit("192.0.2.9", t + 2 * S).isEmpty());
        a.done("192.0.2.9", true, t + 2 * S);
        assertEquals(429, a.admit("192.0.2.9", t + 2 * S).orElseThrow().status());
    }

    @Test
    void tokensThatHoldCostTheirAddressNothing() {
        CheckAdmission a = new CheckAdmission(4, 2, 3, 60 * S, 100);
        for (int i = 0; i < 1000; i++) {
            assertTrue(a.admit("192.0.2.9", i).isEmpty());
            a.done("192.0.2.9", false, i);
        }
        for (int i = 0; i < 3; i++) {
            assertTrue(a.admit("192.0.2.9", 1000).isEmpty());
            a.done("192.0.2.9", true, 1000);
        }
        assertEquals(429, a.admit("192.0.2.9", 1000).orElseThrow().status());
    }

    @Test
    void checksRunningAreBoundedPerAddressAndNodeWide() {
        CheckAdmission a = new CheckAdmission(4, 2, 30, 60 * S, 100);
        assertTrue(a.admit("a", 0).isEmpty());
        assertTrue(a.admit("a", 0).isEmpty());
        CheckAdmission.Refusal mine = a.admit("a", 0).orElseThrow();
        assertEquals(503, mine.status());
        assertTrue(mine.reason().contains("from your address"), mine.reason());
        assertTrue(a.admit("b", 0).isEmpty());
        assertTrue(a.admit("c", 0).isEmpty());
        CheckAdmission.Refusal all = a.admit("d", 0).orElseThrow();
        assertEquals(503, all.status());
        assertEquals(4, a.running());
        a.done("a", false, 0);
        assertTrue(a.admit("d", 0).isEmpty(), "a slot given back is taken again");
        assertThrows(IllegalStateException.class, () -> a.done("e", false, 0));
    }

    @Test
    void addressesRememberedAreBounded() {
        CheckAdmission a = new CheckAdmission(4, 2, 1, 60 * S, 2);
        for (String x : new String[] {"a", "b", "c"}) {
            assertTrue(a.admit(x, 0).isEmpty());
            a.done(x, true, 0);
        }
        assertTrue(a.admit("a", 0).isEmpty(), "the least recently refused was forgotten: fresh again");
        a.done("a", false, 0);
        assertEquals(429, a.admit("c", 0).orElseThrow().status());
    }
}
