package org.fleetmesh.shards;

import java.util.List;
import java.util.Optional;

import org.fleetmesh.negentropy.Storage;

/**
 * The shards this node declares, each backed by a live Negentropy index of its filter (the relay's
 * {@code FingerprintTree}, kept in step with the store). Thread-safe; shards come and go through the admin API.
 */
public interface LocalShards {

    /** The shards declared now. */
    List<Shard> shards();

    /** The shard with this id, if declared. */
    default Optional<Shard> shard(String id) {
        return shards().stream().filter(s -> s.id().equals(id)).findFirst();
    }

    /**
     * An O(1) copy-on-write snapshot of the shard's items now, in Negentropy order (created_at, then id), or empty
     * when the shard is not declared or its index is still being built.
     */
    Optional<Storage> snapshot(String id);
}
