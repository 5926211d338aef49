package org.fleetmesh.spi.shards;

import java.util.List;
import java.util.Objects;

/**
 * The node's declared shards, durable: the ones its configuration names ({@code FLEETMESH_SHARDS}, upserted at every
 * start, and forgotten at a start that no longer names them) and the ones an operator added through the admin API.
 * Keyed by shard id; the filter is stored in its canonical JSON (docs/spec/shards.md). Implementations are safe for
 * use by several threads.
 */
public interface ShardBook {

    /** Where a declaration came from. */
    enum Source {
        CONFIG("config"), ADMIN("admin");

        private final String word;

        Source(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }

        public static Source of(String word) {
            for (Source s : values()) {
                if (s.word.equals(word)) {
                    return s;
                }
            }
            throw new IllegalArgumentException("unknown shard source " + word);
        }
    }

    /**
     * One declared shard.
     *
     * @param id the shard id (the claim's {@code d})
     * @param filter the canonical filter JSON
     * @param mode {@code asserted} or {@code replicated}
     * @param source who declared it last
     * @param added when it was first declared, epoch seconds
     */
    record StoredShard(String id, String filter, String mode, Source source, long added) {
        public StoredShard {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(filter, "filter");
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(source, "source");
        }
    }

    /** Every declared shard, oldest declaration first. */
    List<StoredShard> all();

    /**
     * Declares a shard, or replaces the filter, mode and source of the one with this id (its {@code added} stays);
     * true when it is new.
     */
    boolean put(String id, String canonicalFilterJson, String mode, Source source);

    /** An operator's declaration: {@code put(id, filter, mode, Source.ADMIN)}. */
    default boolean put(String id, String canonicalFilterJson, String mode) {
        return put(id, canonicalFilterJson, mode, Source.ADMIN);
    }

    /** Forgets a shard; false when there was none of that id. */
    boolean remove(String id);
}
