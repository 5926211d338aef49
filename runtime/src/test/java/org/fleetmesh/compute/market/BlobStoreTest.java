package org.fleetmesh.compute.market;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;

import org.fleetmesh.compute.JobSpec;
import org.junit.jupiter.api.Test;

/** The blob store's bounds: per blob, in all, and what an unused blob gives up. */
class BlobStoreTest {
    final AtomicLong now = new AtomicLong(1_000_000);
    final BlobStore store = new BlobStore(10, 25, 60_000, now::get);

    @Test
    void aBlobIsNamedBySha256AndStoredOnce() throws Exception {
        byte[] b = "hello".getBytes();
        assertEquals(JobSpec.sha256(b), store.put(b));
        assertEquals(JobSpec.sha256(b), store.put(b));
        assertEquals(5, store.used());
        assertArrayEquals(b, store.get(JobSpec.sha256(b)).get());
    }

    @Test
    void aBlobOverTheLimitIsRefusedTooLarge() {
        BlobStore.Refused r = assertThrows(BlobStore.Refused.class, () -> store.put(new byte[11]));
        assertTrue(r.tooLarge());
        assertEquals(0, store.used());
    }

    @Test
    void aFullStoreRefusesUntilABlobIsUnusedForTheTtl() throws Exception {
        String a = store.put(new byte[10]);
        store.put(new byte[] { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 });
        BlobStore.Refused r = assertThrows(BlobStore.Refused.class, () -> store.put(new byte[] { 9, 9, 9, 9, 9, 9 }));
        assertFalse(r.tooLarge());
        assertEquals(20, store.used(), "nothing accepted was lost");
        now.addAndGet(60_000);
        store.get(a); // a was read: the other one is the oldest unused
        String c = store.put(new byte[] { 9, 9, 9, 9, 9, 9 });
        assertTrue(store.has(a) && store.has(c));
        assertEquals(16, store.used());
    }
}
