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

    @Test
    void aStoreInADirectoryKeepsItsBlobsAcrossARestartAndDropsWhatIsNotTheirs(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) throws Exception {
        BlobStore first = new BlobStore(10, 25, 60_000, now::get, dir);
        String a = first.put("aaaa".getBytes());
        String b = first.put("bbbbbbbb".getBytes());
        assertTrue(java.nio.file.Files.isRegularFile(dir.resolve(a)));
        java.nio.file.Files.writeString(dir.resolve("." + a + ".tmp"), "half a write");
        // the node restarts
        BlobStore again = new BlobStore(10, 25, 60_000, now::get, dir);
        assertEquals(2, again.count());
        assertEquals(12, again.used());
        assertArrayEquals("aaaa".getBytes(), again.get(a).get());
        assertFalse(java.nio.file.Files.exists(dir.resolve("." + a + ".tmp")), "a leftover of a write is removed");
        // a file whose bytes are not its name's is dropped when read
        java.nio.file.Files.writeString(dir.resolve(b), "tampered");
        assertTrue(again.get(b).isEmpty());
        assertFalse(again.has(b));
        assertFalse(java.nio.file.Files.exists(dir.resolve(b)));
        assertEquals(4, again.used());
    }

    @Test
    void aStoreInADirectoryFreesTheFileOfWhatItEvictsAndTakesInNoMoreThanItsCapacity(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        BlobStore s = new BlobStore(10, 25, 60_000, now::get, dir);
        String old = s.put(new byte[10]);
        now.addAndGet(61_000);
        String mid = s.put(new byte[] { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 });
        String fresh = s.put(new byte[] { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 }); // 30 > 25: the stale one goes
        assertFalse(s.has(old));
        assertFalse(java.nio.file.Files.exists(dir.resolve(old)), "its file is deleted");
        assertTrue(java.nio.file.Files.exists(dir.resolve(mid)) && java.nio.file.Files.exists(dir.resolve(fresh)));
        // reopened with a smaller capacity: the newest files are kept, the rest deleted
        java.nio.file.Files.setLastModifiedTime(dir.resolve(mid), java.nio.file.attribute.FileTime.fromMillis(1000));
        java.nio.file.Files.setLastModifiedTime(dir.resolve(fresh), java.nio.file.attribute.FileTime.fromMillis(2000));
        BlobStore small = new BlobStore(10, 15, 60_000, now::get, dir);
        assertEquals(1, small.count());
        assertTrue(small.has(fresh));
        assertFalse(java.nio.file.Files.exists(dir.resolve(mid)));
    }
}
