package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.fleetmesh.spi.shards.ShardBook;
import org.fleetmesh.spi.shards.ShardBook.Source;
import org.fleetmesh.spi.shards.ShardBook.StoredShard;
import org.fleetmesh.storage.postgres.shards.PgShardBook;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Declared shards in PostgreSQL (V7__shards.sql): declared, replaced (keeping when first added), listed in order, removed. */
class PgShardBookTest extends PgFixture {
    final AtomicLong clock = new AtomicLong(NOW);
    ShardBook book;

    @BeforeEach
    void clean() throws Exception {
        sql("truncate mesh_shard");
        book = new PgShardBook(store.dataSource(), clock::get);
    }

    @Test
    void aDeclaredShardIsStoredAndListed() {
        assertTrue(book.put("uk-events-2026Q3", "{\"kinds\":[1,7]}", "asserted", Source.CONFIG));
        assertEquals(List.of(new StoredShard("uk-events-2026Q3", "{\"kinds\":[1,7]}", "asserted", Source.CONFIG, NOW)),
                book.all());
    }

    @Test
    void aSecondPutReplacesFilterModeAndSourceButKeepsWhenItWasAdded() {
        book.put("a", "{\"kinds\":[1]}", "asserted", Source.CONFIG);
        clock.addAndGet(60);
        assertFalse(book.put("a", "{\"kinds\":[7]}", "replicated"), "not new");
        assertEquals(List.of(new StoredShard("a", "{\"kinds\":[7]}", "replicated", Source.ADMIN, NOW)), book.all());
    }

    @Test
    void theListIsInDeclarationOrder() {
        book.put("b", "{}", "replicated", Source.ADMIN);
        clock.addAndGet(1);
        book.put("a", "{}", "replicated", Source.ADMIN);
        assertEquals(List.of("b", "a"), book.all().stream().map(StoredShard::id).toList());
    }

    @Test
    void removeForgetsOnlyWhatWasThere() {
        book.put("a", "{}", "asserted", Source.ADMIN);
        assertTrue(book.remove("a"));
        assertFalse(book.remove("a"));
        assertEquals(List.of(), book.all());
    }

    @Test
    void theSchemaRefusesAnUnknownMode() {
        assertThrows(IllegalStateException.class, () -> book.put("a", "{}", "complete", Source.ADMIN));
    }

    @Test
    void aNewBookOnTheSameDatabaseReadsTheSameShards() {
        book.put("a", "{\"kinds\":[1]}", "asserted", Source.ADMIN);
        assertEquals(book.all(), new PgShardBook(store.dataSource()).all());
    }
}
