package org.fleetmesh.storage.postgres;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.spi.storage.EventStore.ChangeListener;
import org.fleetmesh.spi.storage.EventStore.StoredItem;
import org.jboss.logging.Logger;

/**
 * The {@code onCommitted} listeners: told what each commit of this store did (on the committing
 * thread) and which events other processes sharing the database removed (on the sibling feed's
 * thread, see {@link SiblingFeed}).
 */
final class ChangeFeed {
    private static final Logger LOG = Logger.getLogger(ChangeFeed.class);

    private final List<ChangeListener> listeners = new CopyOnWriteArrayList<>();

    void add(ChangeListener l) {
        listeners.add(l);
    }

    boolean isEmpty() {
        return listeners.isEmpty();
    }

    void publish(List<Event> added, List<StoredItem> removed) {
        if (listeners.isEmpty() || (added.isEmpty() && removed.isEmpty())) {
            return;
        }
        for (ChangeListener l : listeners) {
            try {
                l.committed(added, removed);
            } catch (RuntimeException e) {
                LOG.errorf(e, "change listener failed");
            }
        }
    }
}
