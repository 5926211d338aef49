package org.fleetmesh.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.fleetmesh.spi.shards.ShardBook.Source;
import org.fleetmesh.spi.shards.ShardBook.StoredShard;
import org.junit.jupiter.api.Test;

/** The in-memory book behaves as PgShardBookTest asks of the PostgreSQL one. */
class MemoryShardBookTest {
    final AtomicLong clock = new AtomicLong(1000);
    final MemoryShardBook book = new MemoryShardBook(clock::get);

    @Test
    void putReplaceListRemove() {
        assertTrue(book.put("b", "{\"kinds\":[1]}", "asserted", Source.CONFIG));
        clock.addAndGet(5);
        assertTrue(book.put("a", "{}", "replicated"));
        clock.addAndGet(5);
        assertFalse(book.put("b", "{\"kinds\":[7]}", "replicated"));
        assertEquals(List.of(new StoredShard("b", "{\"kinds\":[7]}", "replicated", Source.ADMIN, 1000),
                new StoredShard("a", "{}", "replicated", Source.ADMIN, 1005)), book.all());
        assertTrue(book.remove("b"));
        assertFalse(book.remove("b"));
        assertEquals(List.of("a"), book.all().stream().map(StoredShard::id).toList());
    }
}
