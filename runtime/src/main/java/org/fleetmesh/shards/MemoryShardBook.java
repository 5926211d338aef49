package org.fleetmesh.shards;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import org.fleetmesh.spi.shards.ShardBook;

/** Declared shards in memory: for tests, and for a node without a storage adapter (lost at exit). */
public final class MemoryShardBook implements ShardBook {
    private final Map<String, StoredShard> shards = new LinkedHashMap<>();
    private final LongSupplier nowSeconds;

    public MemoryShardBook() {
        this(() -> System.currentTimeMillis() / 1000);
    }

    public MemoryShardBook(LongSupplier nowSeconds) {
        this.nowSeconds = nowSeconds;
    }

    @Override
    public synchronized List<StoredShard> all() {
        return new ArrayList<>(shards.values());
    }

    @Override
    public synchronized boolean put(String id, String canonicalFilterJson, String mode, Source source) {
        StoredShard old = shards.get(id);
        long added = old == null ? nowSeconds.getAsLong() : old.added();
        shards.put(id, new StoredShard(id, canonicalFilterJson, mode, source, added));
        return old == null;
    }

    @Override
    public synchronized boolean remove(String id) {
        return shards.remove(id) != null;
    }
}
