package org.fleetmesh.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fleetmesh.memory.HeapTrim.Decision;
import org.fleetmesh.memory.HeapTrim.Policy;
import org.fleetmesh.memory.HeapTrim.Reading;
import org.junit.jupiter.api.Test;

class HeapTrimTest {
    private static final long MIB = 1024 * 1024;
    private static final long SECOND = 1_000_000_000L;
    /** Quiet: at most 1 young collection per reading for 10 s; idle 16 MiB, busy 64 MiB, floor 64 MiB, 60 s apart. */
    private static final Policy POLICY = new Policy(1, 10 * SECOND, 16 * MIB, 64 * MIB, 64 * MIB, 60 * SECOND);

    private static Reading at(long second, long young, long oldMib, long liveMib, long committedMib) {
        return new Reading(second * SECOND, young, oldMib * MIB, liveMib * MIB, committedMib * MIB);
    }

    @Test
    void afterABurstTheQuietNodeIsTrimmedOnce() {
        HeapTrim trim = new HeapTrim(POLICY);
        assertEquals(Decision.NONE, trim.next(at(0, 100, 50, 33, 120)), "one reading says nothing");
        for (int s = 2; s < 10; s += 2) {
            assertEquals(Decision.NONE, trim.next(at(s, 100, 50, 33, 120)), "quiet for " + s + " s only");
        }
        assertEquals(Decision.IDLE, trim.next(at(10, 101, 50, 33, 120)), "quiet 10 s (one young collection is quiet)");
        trim.collected(Decision.IDLE, at(10, 101, 34, 34, 70));
        assertEquals(Decision.NONE, trim.next(at(12, 101, 34, 34, 70)), "nothing left to gain");
        assertEquals(Decision.NONE, trim.next(at(40, 101, 55, 34, 80)), "grown again, but 30 s after the last idle trim");
        assertEquals(Decision.IDLE, trim.next(at(70, 101, 55, 34, 80)), "60 s after it");
    }

    @Test
    void aBusyNodeIsOnlyCollectedPastTheBusyBound() {
        HeapTrim trim = new HeapTrim(POLICY);
        trim.next(at(0, 100, 40, 33, 100));
        long young = 100;
        for (int s = 2; s <= 56; s += 2) {
            young += 10; // ten young collections per reading: allocating fast
            assertEquals(Decision.NONE, trim.next(at(s, young, 40 + s, 33, 150)), "busy, " + (7 + s) + " MiB grown");
        }
        assertEquals(Decision.BUSY, trim.next(at(58, young + 10, 97, 33, 150)), "64 MiB grown: collected even busy");
        trim.collected(Decision.BUSY, at(58, young + 10, 35, 35, 80));
        assertFalse(trim.busyOff());
        assertEquals(Decision.NONE, trim.next(at(60, young + 20, 40, 35, 80)));
    }

    @Test
    void theIdleBoundNeedsGrowthAndAHeapAboveTheFloor() {
        HeapTrim trim = new HeapTrim(POLICY);
        trim.next(at(0, 100, 48, 33, 120));
        trim.collected(Decision.BUSY, at(0, 100, 33, 33, 120)); // past the first trim after start-up
        assertEquals(Decision.NONE, trim.next(at(20, 100, 48, 33, 120)), "15 MiB above the live data");
        assertEquals(Decision.IDLE, trim.next(at(22, 100, 49, 33, 120)), "16 MiB above it");
        HeapTrim small = new HeapTrim(POLICY);
        small.next(at(0, 100, 50, 0, 64));
        assertEquals(Decision.NONE, small.next(at(20, 100, 50, 0, 64)), "a heap at the floor is left alone");
    }

    @Test
    void theFirstQuietReadingAfterStartTrimsWhateverTheGrowth() {
        HeapTrim trim = new HeapTrim(POLICY);
        trim.next(at(0, 100, 40, 30, 70)); // the JVM's own full collection during boot saw 30 MiB
        assertEquals(Decision.NONE, trim.next(at(8, 100, 40, 30, 70)), "not yet quiet for 10 s");
        assertEquals(Decision.IDLE, trim.next(at(10, 100, 40, 30, 70)), "10 MiB grown, but the first: collected");
        trim.collected(Decision.IDLE, at(10, 100, 33, 33, 66));
        assertEquals(Decision.NONE, trim.next(at(80, 100, 48, 33, 70)), "after it, the growth rule: 15 MiB is not 16");
        assertEquals(Decision.IDLE, trim.next(at(82, 100, 49, 33, 70)), "16 MiB is");
        HeapTrim small = new HeapTrim(POLICY);
        small.next(at(0, 100, 40, 0, 64));
        assertEquals(Decision.NONE, small.next(at(20, 100, 40, 0, 64)), "the first one too needs a heap above the floor");
    }

    @Test
    void aBusySpellRestartsTheQuietWindow() {
        HeapTrim trim = new HeapTrim(POLICY);
        trim.next(at(0, 100, 60, 33, 120));
        trim.next(at(8, 100, 60, 33, 120));
        assertEquals(Decision.NONE, trim.next(at(10, 105, 60, 33, 120)), "five young collections: busy again");
        assertEquals(Decision.NONE, trim.next(at(18, 105, 60, 33, 120)), "quiet 8 s since");
        assertEquals(Decision.IDLE, trim.next(at(20, 105, 60, 33, 120)), "quiet 10 s since");
    }

    @Test
    void aCollectionTheReadingsDoNotSeeTurnsTheBusyBoundOff() {
        HeapTrim trim = new HeapTrim(POLICY);
        trim.next(at(0, 100, 100, 0, 150));
        assertEquals(Decision.BUSY, trim.next(at(2, 110, 100, 0, 150)));
        trim.collected(Decision.BUSY, at(2, 110, 100, 0, 150)); // the pool never reports a collection
        assertTrue(trim.busyOff());
        assertEquals(Decision.NONE, trim.next(at(4, 120, 120, 0, 150)), "no collection at every reading");
    }

    @Test
    void negativeSettingsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Policy(-1, 0, 0, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Policy(0, 0, 0, -1, 0, 0));
    }
}
