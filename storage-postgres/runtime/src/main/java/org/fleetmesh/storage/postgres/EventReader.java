package org.fleetmesh.storage.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.EventStore.EventSink;
import org.fleetmesh.spi.storage.EventStore.ItemSink;
import org.fleetmesh.spi.storage.EventStore.SequencedSink;
import org.fleetmesh.spi.storage.QueryTimeoutException;
import org.fleetmesh.spi.storage.Reader;

/**
 * The read side: each read is one statement (see {@link SqlFilter}) in a read-only transaction
 * with {@code statement_timeout} set locally, so one slow filter cannot hold a pool connection
 * for long; the writer's transactions never carry the timeout.
 */
final class EventReader {
    private static final int FETCH_SIZE = 256;
    /** PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout (or a cancel request). */
    private static final String QUERY_CANCELED = "57014";

    private final DataSource ds;
    private final Duration statementTimeout;

    /** @param statementTimeout zero: no timeout */
    EventReader(DataSource ds, Duration statementTimeout) {
        if (statementTimeout.isNegative()) {
            throw new IllegalArgumentException("negative statement timeout " + statementTimeout);
        }
        this.ds = ds;
        this.statementTimeout = statementTimeout;
    }

    Duration statementTimeout() {
        return statementTimeout;
    }

    @FunctionalInterface
    private interface Rows {
        void read(ResultSet rs) throws SQLException;
    }

    void query(Filter filter, long now, Reader reader, EventSink sink) {
        SqlFilter.Sql sql = SqlFilter.build(filter, now, SqlFilter.Mode.QUERY, reader);
        if (sql != null) {
            run("query", sql, fetchSize(filter), rs -> {
                while (rs.next()) {
                    if (!sink.accept(new EventId(rs.getBytes(1)), rs.getString(2))) {
                        break;
                    }
                }
            });
        }
    }

    long count(List<Filter> filters, long now, Reader reader) {
        SqlFilter.Sql sql = filters.size() == 1 ? SqlFilter.build(filters.get(0), now, SqlFilter.Mode.COUNT, reader)
                : SqlFilter.countUnion(filters, now, reader);
        if (sql == null) {
            return 0;
        }
        long[] n = new long[1];
        run("count", sql, 0, rs -> {
            rs.next();
            n[0] = rs.getLong(1);
        });
        return n[0];
    }

    void enumerate(List<Filter> filters, long now, Reader reader, ItemSink sink) {
        SqlFilter.Sql sql = SqlFilter.enumerateUnion(filters, now, reader);
        if (sql != null) {
            run("enumerate", sql, 4096, rs -> {
                while (rs.next()) {
                    sink.accept(rs.getLong(1), new EventId(rs.getBytes(2)));
                }
            });
        }
    }

    void scan(long afterSeq, int limit, SequencedSink sink) {
        if (limit <= 0) {
            return;
        }
        SqlFilter.Sql sql = new SqlFilter.Sql("select e.seq, e.id, " + SqlFilter.json("e")
                + " from event e where e.seq > ? order by e.seq limit ?",
                List.of(afterSeq, limit));
        run("scan", sql, Math.min(limit, FETCH_SIZE), rs -> {
            while (rs.next()) {
                if (!sink.accept(rs.getLong(1), new EventId(rs.getBytes(2)), rs.getString(3))) {
                    break;
                }
            }
        });
    }

    long lastSequence() {
        long[] n = new long[1];
        run("lastSequence", new SqlFilter.Sql("select coalesce(max(seq), 0) from event", List.of()), 0, rs -> {
            rs.next();
            n[0] = rs.getLong(1);
        });
        return n[0];
    }

    /** In a transaction: the cursor streams large results in fetch-size rows, and SET LOCAL ends with it. */
    private void run(String what, SqlFilter.Sql sql, int fetchSize, Rows rows) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                if (!statementTimeout.isZero()) {
                    try (PreparedStatement t = c.prepareStatement("select set_config('statement_timeout', ?, true)")) {
                        t.setString(1, statementTimeout.toMillis() + "ms");
                        t.executeQuery().close();
                    }
                }
                try (PreparedStatement ps = sql.prepare(c)) {
                    if (fetchSize > 0) {
                        ps.setFetchSize(fetchSize);
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        rows.read(rs);
                    }
                }
            } finally {
                EventWriter.rollbackQuietly(c);
                EventWriter.resetAutoCommit(c);
            }
        } catch (SQLException e) {
            if (QUERY_CANCELED.equals(e.getSQLState())) {
                throw new QueryTimeoutException(statementTimeout, e);
            }
            throw new IllegalStateException(what + " failed: " + e.getMessage(), e);
        }
    }

    private static int fetchSize(Filter f) {
        return f.limit() != null ? Math.max(1, Math.min(f.limit(), FETCH_SIZE)) : FETCH_SIZE;
    }
}
