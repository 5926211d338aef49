package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

class EventCacheTest {
    /** An event's stand-in JSON: {@code size} bytes that depend on the seq, so a wrong record shows. */
    private static byte[] json(long seq, int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (seq * 31 + i);
        }
        return b;
    }

    private static EventCache.Entry entry(long seq, int size) {
        return new EventCache.Entry(json(seq, size), seq * 10, seq * 100);
    }

    private static void assertHolds(EventCache c, long seq, int size) {
        EventCache.Entry e = c.get(seq, 0, 0);
        assertNotNull(e, "seq " + seq);
        assertArrayEquals(json(seq, size), e.buf(), "seq " + seq);
        assertEquals(seq * 10, e.createdAt());
        assertEquals(seq * 100, e.expiresAt());
    }

    @Test
    void holdsTheNewestWithinItsBudgetAndNoMore() {
        EventCache c = new EventCache(4L * EventCache.CHUNK);
        assertEquals(0, c.chunksAllocated(), "an empty cache holds no memory");
        Random r = new Random(7);
        int[] sizes = new int[30_001];
        for (int seq = 1; seq <= 30_000; seq++) {
            sizes[seq] = 100 + r.nextInt(1500);
            c.put(seq, entry(seq, sizes[seq]));
            assertTrue(c.bytes() <= c.budget(), "held " + c.bytes() + " after " + seq);
        }
        assertEquals(4, c.chunksAllocated());
        assertTrue(c.bytes() > c.budget() * 3 / 4, "full, not empty: " + c.bytes());
        // first in, first out: everything written in the last three chunks' worth is there, intact
        long recent = 0;
        int seq = 30_000;
        while (recent + sizes[seq] + 28 < 3L * EventCache.CHUNK) {
            assertHolds(c, seq, sizes[seq]);
            recent += sizes[seq] + 28;
            seq--;
        }
        assertNull(c.get(1, 0, 0), "the oldest are gone");
        // what the index holds is what the ring holds
        int held = 0;
        for (int s = 1; s <= 30_000; s++) {
            if (c.get(s, 0, 0) != null) {
                held++;
                assertHolds(c, s, sizes[s]);
            }
        }
        assertEquals(c.size(), held);
    }

    @Test
    void copiesOutWithTheRoomAsked() {
        EventCache c = new EventCache(EventCache.CHUNK);
        c.put(9, entry(9, 300));
        EventCache.Entry e = c.get(9, 5, 3);
        assertEquals(5 + 300 + 3, e.buf().length);
        assertEquals(5, e.offset());
        assertEquals(300, e.length());
        assertArrayEquals(json(9, 300), java.util.Arrays.copyOfRange(e.buf(), 5, 305));
        // put reads only its entry's range
        byte[] framed = new byte[10 + 50 + 4];
        System.arraycopy(json(4, 50), 0, framed, 10, 50);
        c.put(4, new EventCache.Entry(framed, 10, 50, 40, 400));
        assertHolds(c, 4, 50);
    }

    @Test
    void replacesRemovesAndRefusesWhatDoesNotFit() {
        EventCache c = new EventCache(EventCache.CHUNK);
        c.put(5, entry(5, 100));
        c.put(5, new EventCache.Entry(json(6, 200), 50, 500));
        EventCache.Entry e = c.get(5, 0, 0);
        assertArrayEquals(json(6, 200), e.buf());
        assertEquals(1, c.size());
        c.remove(5);
        assertNull(c.get(5, 0, 0));
        c.put(6, entry(6, EventCache.MAX_RECORD));
        assertNull(c.get(6, 0, 0), "larger than a record may be");
        c.put(-1, entry(1, 10));
        assertNull(c.get(-1, 0, 0));
        assertEquals(0, c.size());
        assertEquals(1, c.hits());
        assertTrue(c.misses() >= 3);
    }

    @Test
    void lessThanAChunkKeepsNothingAndANegativeBudgetIsRefused() {
        EventCache c = new EventCache(EventCache.CHUNK - 1);
        assertEquals(0, c.budget());
        c.put(1, entry(1, 10));
        assertNull(c.get(1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new EventCache(-1));
    }

    @Test
    void theIndexAgreesWithAMap() {
        EventCache.SeqIndex idx = new EventCache.SeqIndex();
        Map<Long, Long> model = new HashMap<>();
        Random r = new Random(11);
        for (int op = 0; op < 400_000; op++) {
            long key = r.nextInt(op < 200_000 ? 5_000 : 300); // grows, then shrinks back
            switch (r.nextInt(3)) {
                case 0 -> {
                    long v = r.nextLong() & Long.MAX_VALUE;
                    idx.put(key, v);
                    model.put(key, v);
                }
                case 1 -> {
                    idx.remove(key);
                    model.remove(key);
                }
                default -> assertEquals(model.getOrDefault(key, -1L), idx.get(key), "key " + key);
            }
            assertEquals(model.size(), idx.size());
        }
        for (long k = 0; k < 5_000; k++) {
            assertEquals(model.getOrDefault(k, -1L), idx.get(k));
        }
    }

    @Test
    void concurrentReadersNeverSeeARecordBeingOverwritten() throws Exception {
        EventCache c = new EventCache(2L * EventCache.CHUNK);
        int threads = 4;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            all.add(new Thread(() -> {
                Random r = new Random(me);
                try {
                    for (int i = 0; i < 100_000; i++) {
                        long seq = r.nextInt(20_000);
                        int size = 50 + (int) (seq % 700);
                        if (r.nextBoolean()) {
                            c.put(seq, entry(seq, size));
                        } else {
                            EventCache.Entry e = c.get(seq, 0, 0);
                            if (e != null && !java.util.Arrays.equals(json(seq, size), e.buf())) {
                                throw new AssertionError("seq " + seq + ": another record's bytes");
                            }
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        all.forEach(Thread::start);
        for (Thread t : all) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertTrue(c.bytes() <= c.budget());
    }
}
