package org.fleetmesh.relay;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.fleetmesh.negentropy.FingerprintTree;
import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Item;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.EventStore.StoredItem;
import org.jboss.logging.Logger;

/**
 * Negentropy fingerprint trees for registered filters (the whole store by default), kept in step
 * with the store through its change feed, like strfry's negentropy trees: a NEG-OPEN on a
 * registered filter takes an O(1) copy-on-write snapshot instead of reading and sorting the
 * matching events, and every fingerprint is answered in time logarithmic in the set size.
 *
 * <p>Private kinds (4, 13, 1059; NIP-42 gated) are never indexed: an index serves only sessions
 * that may not read any of them: every unauthenticated client, and authenticated ones that are
 * neither author nor p-tagged recipient of a stored private event. Removals committed by other
 * processes sharing the database (a sibling node, the CLI's delete, a synced kind 5) arrive through
 * the change feed, their additions through {@link #foreign}; indexes are still rebuilt from the
 * store now and then ({@link #rebuild()}) to repair what a dropped LISTEN connection missed. A build registers for changes first and applies the changes
 * that arrived during the scan in commit order afterwards, which converges to the store's state
 * (inserts and removals are idempotent).
 */
final class LiveIndexes {
    private static final Logger LOG = Logger.getLogger(LiveIndexes.class);

    /** One registered filter and its tree; {@code tree} is null until the first build completes. */
    final class Index implements LiveIndex {
        final Filter filter;
        volatile FingerprintTree tree;
        final String label;
        private volatile boolean closed;
        private List<Change> pending; // changes seen while a build scans the store; guarded by this

        Index(Filter filter, String label) {
            this.filter = filter;
            this.label = label;
        }

        @Override
        public Optional<org.fleetmesh.negentropy.Storage> snapshot() {
            FingerprintTree t = tree;
            return t == null ? Optional.empty() : Optional.of(t.snapshot());
        }

        @Override
        public int size() {
            FingerprintTree t = tree;
            return t == null ? -1 : t.size();
        }

        @Override
        public void close() {
            closed = true;
            indexes.remove(this);
        }

        boolean accepts(Event e) {
            // every event committed is stored (an ephemeral one too, NIP-40); foreign ones are sorted by Relay first
            return !Relay.PRIVATE_KINDS.contains(e.kind()) && filter.matches(e);
        }
    }

    private final EventStore store;
    private final List<Index> indexes = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final LongSupplier now;
    private final AtomicLong applied = new AtomicLong();

    private record Change(List<Item> adds, List<Item> removes) {
        void applyTo(FingerprintTree t) {
            for (Item it : removes) {
                t.remove(it);
            }
            t.insertAll(adds); // a commit's events in one pass: each node copied once
        }
    }

    /** @param labels how each filter is named in logs (its JSON as configured) */
    LiveIndexes(EventStore store, List<Filter> filters, List<String> labels, LongSupplier now) {
        this.store = store;
        this.now = now;
        for (int i = 0; i < filters.size(); i++) {
            indexes.add(new Index(filters.get(i).withLimit(null), labels.get(i)));
        }
    }

    /** Subscribes to the store's change feed; false if the store has none (then nothing is indexed). */
    boolean attach() {
        return store.onCommitted(this::committed);
    }

    /** Registers one more filter; it is empty (size -1) until {@link #build(Index)} has run. */
    Index add(Filter filter, String label) {
        Index ix = new Index(filter.withLimit(null), label);
        indexes.add(ix);
        return ix;
    }

    /** (Re)builds every index from the store; sessions keep using the old tree until the new one is in. */
    void rebuild() {
        for (Index ix : indexes) {
            build(ix);
        }
    }

    /** (Re)builds one index from the store. */
    void build(Index ix) {
        if (ix.closed) {
            return;
        }
        long t0 = System.nanoTime();
        FingerprintTree fresh;
        synchronized (ix) {
            ix.pending = new ArrayList<>();
        }
        List<Item> items = new ArrayList<>();
        Filter scan = ix.filter;
        store.enumerate(scan, now.getAsLong(), (createdAt, id) -> items.add(new Item(createdAt, Id.of(id.toBytes()))));
        // enumerate is ordered by (created_at, id); private kinds are dropped by a second pass only when the
        // filter could match them (cheap: one indexed query per private kind set)
        Set<Id> privateIds = privateIdsOf(scan);
        if (!privateIds.isEmpty()) {
            items.removeIf(it -> privateIds.contains(it.id()));
        }
        fresh = FingerprintTree.fromSorted(items);
        synchronized (ix) {
            for (Change c : ix.pending) {
                c.applyTo(fresh); // in commit order (see class comment)
            }
            ix.pending = null;
            ix.tree = fresh;
        }
        LOG.infof("negentropy index %s: %d items built in %d ms", ix.label, fresh.size(),
                (System.nanoTime() - t0) / 1_000_000);
    }

    private Set<Id> privateIdsOf(Filter f) {
        Set<Integer> kinds = new java.util.HashSet<>(Relay.PRIVATE_KINDS);
        if (f.kinds() != null) {
            kinds.retainAll(f.kinds());
        }
        Set<Id> out = new java.util.HashSet<>();
        if (kinds.isEmpty()) {
            return out;
        }
        Filter privatePart = new Filter(f.ids(), f.authors(), kinds, f.tags(), f.since(), f.until(), null);
        store.enumerate(privatePart, now.getAsLong(), (c, id) -> out.add(Id.of(id.toBytes())));
        return out;
    }

    private void committed(List<Event> added, List<StoredItem> removed) {
        for (Index ix : indexes) {
            List<Item> adds = new ArrayList<>();
            for (Event e : added) {
                if (ix.accepts(e)) {
                    adds.add(new Item(e.createdAt(), Id.of(e.id().toBytes())));
                }
            }
            List<Item> removes = new ArrayList<>(removed.size());
            for (StoredItem r : removed) {
                removes.add(new Item(r.createdAt(), Id.of(r.id().toBytes())));
            }
            if (adds.isEmpty() && removes.isEmpty()) {
                continue;
            }
            Change change = new Change(adds, removes);
            synchronized (ix) {
                FingerprintTree current = ix.tree;
                if (current != null) {
                    change.applyTo(current);
                }
                if (ix.pending != null) {
                    ix.pending.add(change); // a build is scanning: the fresh tree gets it too
                }
            }
            applied.addAndGet(adds.size() + removes.size());
        }
    }

    /** Events from sibling nodes sharing the database (their removals come through the change feed). */
    void foreign(List<Event> events) {
        committed(events, List.of());
    }

    /**
     * A snapshot for a NEG-OPEN, if one registered filter is exactly the session's filter and the
     * client may read no private kinds ({@code readsPrivate} is asked only when a filter matches:
     * false for every unauthenticated client).
     */
    Optional<org.fleetmesh.negentropy.Storage> snapshotFor(List<Filter> filters, java.util.function.BooleanSupplier readsPrivate) {
        if (filters.size() != 1) {
            return Optional.empty();
        }
        Filter wanted = filters.get(0).withLimit(null);
        for (Index ix : indexes) {
            FingerprintTree t = ix.tree;
            if (t != null && ix.filter.equals(wanted)) {
                return readsPrivate.getAsBoolean() ? Optional.empty() : Optional.of(t.snapshot());
            }
        }
        return Optional.empty();
    }

    int count() {
        return indexes.size();
    }

    int size(int index) {
        FingerprintTree t = indexes.get(index).tree;
        return t == null ? -1 : t.size();
    }

    long changesApplied() {
        return applied.get();
    }
}
