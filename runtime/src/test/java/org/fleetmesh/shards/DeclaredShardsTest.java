package org.fleetmesh.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.negentropy.Storage;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.relay.LiveIndex;
import org.junit.jupiter.api.Test;

class DeclaredShardsTest {

    /** An index that is built when the test says so. */
    static final class FakeIndex implements LiveIndex {
        final Filter filter;
        volatile Storage items;
        boolean closed;

        FakeIndex(Filter filter) {
            this.filter = filter;
        }

        @Override
        public Optional<Storage> snapshot() {
            return Optional.ofNullable(items);
        }

        @Override
        public int size() {
            return items == null ? -1 : items.size();
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    final List<FakeIndex> opened = new ArrayList<>();
    final DeclaredShards shards = new DeclaredShards((f, label) -> {
        FakeIndex ix = new FakeIndex(f);
        opened.add(ix);
        return ix;
    });

    static Shard shard(String id, int kind, Shard.Mode mode) {
        return new Shard(id, new Filter(null, null, Set.of(kind), Map.of(), null, null, null), mode);
    }

    @Test
    void aNewShardGetsAnIndexAndIsServedOnceBuilt() {
        assertEquals(DeclaredShards.Change.ADDED, shards.put(shard("a", 1, Shard.Mode.ASSERTED)));
        assertEquals(1, opened.size());
        assertEquals(Set.of(1), opened.get(0).filter.kinds());
        assertEquals(Optional.empty(), shards.snapshot("a"), "still building");
        assertEquals(Optional.of(-1), shards.size("a"));
        opened.get(0).items = SortedVector.builder().seal();
        assertTrue(shards.snapshot("a").isPresent());
        assertEquals(Optional.empty(), shards.snapshot("b"), "not declared");
        assertEquals(Optional.empty(), shards.size("b"));
    }

    @Test
    void theSameDeclarationChangesNothing() {
        AtomicInteger changes = new AtomicInteger();
        shards.onChange(changes::incrementAndGet);
        shards.put(shard("a", 1, Shard.Mode.ASSERTED));
        assertEquals(DeclaredShards.Change.UNCHANGED, shards.put(shard("a", 1, Shard.Mode.ASSERTED)));
        assertEquals(1, opened.size());
        assertEquals(1, changes.get());
    }

    @Test
    void anotherFilterReplacesTheIndexAnotherModeKeepsIt() {
        AtomicInteger changes = new AtomicInteger();
        shards.onChange(changes::incrementAndGet);
        shards.put(shard("a", 1, Shard.Mode.ASSERTED));
        assertEquals(DeclaredShards.Change.REPLACED, shards.put(shard("a", 1, Shard.Mode.REPLICATED)));
        assertEquals(1, opened.size(), "the same set: the same index");
        assertEquals(Shard.Mode.REPLICATED, shards.shard("a").orElseThrow().mode());
        assertEquals(DeclaredShards.Change.REPLACED, shards.put(shard("a", 7, Shard.Mode.REPLICATED)));
        assertEquals(2, opened.size());
        assertTrue(opened.get(0).closed, "the old index is dropped");
        assertFalse(opened.get(1).closed);
        assertEquals(3, changes.get());
    }

    @Test
    void removeDropsTheIndexAndTellsTheListeners() {
        AtomicInteger changes = new AtomicInteger();
        shards.put(shard("a", 1, Shard.Mode.ASSERTED));
        shards.onChange(changes::incrementAndGet);
        assertTrue(shards.remove("a"));
        assertTrue(opened.get(0).closed);
        assertFalse(shards.remove("a"));
        assertEquals(1, changes.get());
        assertEquals(List.of(), shards.shards());
    }

    @Test
    void atMostSixtyFourShards() {
        for (int i = 0; i < ShardsSetting.MAX_SHARDS; i++) {
            shards.put(shard("s" + i, i, Shard.Mode.REPLICATED));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> shards.put(shard("one-more", 1, Shard.Mode.REPLICATED)));
        assertEquals("this node declares 64 shards already, at most 64", e.getMessage());
        assertEquals(64, opened.size(), "no index was opened for the refused one");
        assertEquals(DeclaredShards.Change.REPLACED, shards.put(shard("s0", 999, Shard.Mode.REPLICATED)),
                "replacing one is still allowed");
    }

    @Test
    void aFailingListenerDoesNotStopTheOthers() {
        AtomicInteger changes = new AtomicInteger();
        shards.onChange(() -> {
            throw new IllegalStateException("boom");
        });
        shards.onChange(changes::incrementAndGet);
        shards.put(shard("a", 1, Shard.Mode.ASSERTED));
        assertEquals(1, changes.get());
    }

    @Test
    void theShardsComeInDeclarationOrderWithoutLimit() {
        shards.put(shard("b", 1, Shard.Mode.ASSERTED));
        shards.put(new Shard("a", new Filter(null, null, Set.of(2), Map.of(), null, null, 10), Shard.Mode.ASSERTED));
        assertEquals(List.of("b", "a"), shards.shards().stream().map(Shard::id).toList());
        assertEquals(null, shards.shard("a").orElseThrow().filter().limit());
    }
}
