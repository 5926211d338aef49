package org.fleetmesh.storage.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import javax.sql.DataSource;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.spi.storage.EventStore.StoredItem;
import org.jboss.logging.Logger;

/**
 * Removals that are not NIP-09: the operator's delete (no tombstone) and the NIP-40 expiry purge.
 * Each statement deletes the events and their tag rows and returns what it removed.
 */
final class Removals {
    private static final Logger LOG = Logger.getLogger(Removals.class);
    /** Expired events deleted per statement: bounds the transaction and each notification run. */
    static final int PURGE_CHUNK = 5000;

    /** Told on the connection that committed, after the commit. */
    @FunctionalInterface
    interface Sink {
        void removed(Connection c, List<StoredItem> removed);
    }

    private final DataSource ds;
    private final Sink sink;

    Removals(DataSource ds, Sink sink) {
        this.ds = ds;
        this.sink = sink;
    }

    int purgeExpired(long now) {
        int total = 0;
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("with d as (delete from event where id in (select id from event"
                        + " where expires_at is not null and expires_at <= ? limit " + PURGE_CHUNK
                        + ") returning id, created_at, seq),"
                        + " t as (delete from tag where event_seq in (select seq from d)) select id, created_at from d")) {
            ps.setLong(1, now);
            int n;
            do {
                List<StoredItem> removed = new ArrayList<>();
                EventWriter.readRemoved(ps, removed);
                n = removed.size();
                if (n > 0) {
                    sink.removed(c, removed);
                }
                total += n;
            } while (n > 0);
            return total;
        } catch (SQLException e) {
            LOG.warnf(e, "purging expired events failed after %d", total);
            return total;
        }
    }

    int delete(Collection<EventId> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        byte[][] raw = ids.stream().map(EventId::toBytes).toArray(byte[][]::new);
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("with d as (delete from event where id = any(?)"
                        + " returning id, created_at, seq), t as (delete from tag where event_seq in (select seq from d))"
                        + " select id, created_at from d")) {
            ps.setArray(1, c.createArrayOf("bytea", raw));
            List<StoredItem> removed = new ArrayList<>();
            EventWriter.readRemoved(ps, removed);
            if (!removed.isEmpty()) {
                sink.removed(c, removed);
            }
            return removed.size();
        } catch (SQLException e) {
            throw new IllegalStateException("deleting " + ids.size() + " events failed", e);
        }
    }
}
