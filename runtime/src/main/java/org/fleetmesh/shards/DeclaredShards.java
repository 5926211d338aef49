package org.fleetmesh.shards;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;

import org.fleetmesh.negentropy.Storage;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.relay.LiveIndex;
import org.jboss.logging.Logger;

/**
 * The shards this node declares, each with its live index (opened through {@code indexer}, e.g. the relay's
 * {@code Relay::index}). Declaring a shard again with another filter replaces its index; listeners hear of every
 * change to the set (replication re-plans on it).
 */
public final class DeclaredShards implements LocalShards {
    private static final Logger LOG = Logger.getLogger(DeclaredShards.class);

    private record Entry(Shard shard, String canonical, LiveIndex index) {
    }

    private final BiFunction<Filter, String, LiveIndex> indexer;
    private final Map<String, Entry> entries = new LinkedHashMap<>(); // guarded by this
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    public DeclaredShards(BiFunction<Filter, String, LiveIndex> indexer) {
        this.indexer = indexer;
    }

    /** What {@link #put} did. */
    public enum Change {
        /** The id was not declared. */
        ADDED,
        /** The id was declared with another filter or mode. */
        REPLACED,
        /** The id was declared exactly so already. */
        UNCHANGED
    }

    /** Declares {@code shard}: a new index when the id is new or its filter changed. */
    public Change put(Shard shard) {
        String canonical = ShardFilter.canonicalJson(shard.filter());
        Change change;
        LiveIndex retired = null;
        synchronized (this) {
            Entry old = entries.get(shard.id());
            if (old != null && old.canonical.equals(canonical) && old.shard.mode() == shard.mode()) {
                return Change.UNCHANGED;
            }
            if (old == null && entries.size() >= ShardsSetting.MAX_SHARDS) {
                throw new IllegalArgumentException("this node declares " + entries.size() + " shards already, at most "
                        + ShardsSetting.MAX_SHARDS);
            }
            LiveIndex index;
            if (old != null && old.canonical.equals(canonical)) {
                index = old.index; // only the mode changed: the set is the same
            } else {
                index = indexer.apply(shard.filter(), "shard " + shard.id() + " " + canonical);
                retired = old == null ? null : old.index;
            }
            entries.put(shard.id(), new Entry(new Shard(shard.id(), shard.filter().withLimit(null), shard.mode()),
                    canonical, index));
            change = old == null ? Change.ADDED : Change.REPLACED;
        }
        if (retired != null) {
            retired.close();
        }
        changed();
        return change;
    }

    /** Forgets a shard and drops its index; false when it was not declared. */
    public boolean remove(String id) {
        Entry old;
        synchronized (this) {
            old = entries.remove(id);
        }
        if (old == null) {
            return false;
        }
        old.index.close();
        changed();
        return true;
    }

    /** {@code r} runs after every change to the declared set (on the thread that made it). */
    public void onChange(Runnable r) {
        listeners.add(r);
    }

    @Override
    public synchronized List<Shard> shards() {
        List<Shard> out = new ArrayList<>(entries.size());
        for (Entry e : entries.values()) {
            out.add(e.shard);
        }
        return out;
    }

    @Override
    public Optional<Storage> snapshot(String id) {
        Entry e;
        synchronized (this) {
            e = entries.get(id);
        }
        return e == null ? Optional.empty() : e.index.snapshot();
    }

    /** Items in the shard's index, -1 while it is built; empty when not declared. */
    public Optional<Integer> size(String id) {
        Entry e;
        synchronized (this) {
            e = entries.get(id);
        }
        return e == null ? Optional.empty() : Optional.of(e.index.size());
    }

    /** Drops every index. */
    public void close() {
        List<Entry> all;
        synchronized (this) {
            all = new ArrayList<>(entries.values());
            entries.clear();
        }
        for (Entry e : all) {
            e.index.close();
        }
    }

    private void changed() {
        for (Runnable r : listeners) {
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.error("a shard change listener failed", e);
            }
        }
    }
}
