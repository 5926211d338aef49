package org.fleetmesh.storage.postgres;

import java.nio.charset.StandardCharsets;
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
 * The read side: each read is one statement (see {@link SqlFilter}) in its own transaction with
 * {@code statement_timeout} set locally, so one slow filter cannot hold a pool connection for long;
 * the writer's transactions never carry the timeout.
 *
 * <p>Round trips: a read of a bounded, small result ({@link #ONE_SHOT_MAX_ROWS} rows or fewer, e.g. a
 * REQ filter with a limit up to 256, a count) is one: in autocommit, the {@code set_config} and the read go to the
 * server as one statement text before a single Sync, so they are one implicit transaction; the local
 * timeout covers the read and ends with it. A read that may return more (no limit, a large one, a
 * NIP-77 enumeration) streams through a cursor in an explicit transaction: set_config (BEGIN travels
 * with it), the read ({@code fetchSize} rows per round trip), rollback. A read whose best plan does not depend on
 * its values ({@link SqlFilter#oneBestPlan}) also sets {@code plan_cache_mode = force_generic_plan} locally, in the
 * same statement as the timeout.
 */
final class EventReader {
    private static final int FETCH_SIZE = 256;
    /**
     * Reads bounded to this many rows are fetched whole, in one round trip; larger ones stream. The same as the
     * fetch size, so a read never holds more rows in memory at once than a streamed one does.
     */
    static final int ONE_SHOT_MAX_ROWS = FETCH_SIZE;
    /**
     * The JSON a read from one index holds before it sends anything (it decides first whether the index answers): past
     * this, the read is the ordinary statement, which streams.
     */
    static final long INDEX_READ_HELD = 8L << 20;
    /** PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout (or a cancel request). */
    private static final String QUERY_CANCELED = "57014";
    /** For the rest of the transaction (the read): plan once per connection, whatever the parameters. */
    private static final String GENERIC = "set_config('plan_cache_mode', 'force_generic_plan', true)";

    private final DataSource ds;
    private final Duration statementTimeout;
    /** The bounded reads' timeout; null without one. */
    private final ReadWatchdog watchdog;
    /** A read's settings for its own transaction, one {@code select} of set_config calls: empty when there are none. */
    private final String settings;
    /** The settings of a read planned generically ({@link SqlFilter.Sql#generic}): the timeout and the plan mode. */
    private final String genericSettings;

    /** @param statementTimeout zero: no timeout */
    EventReader(DataSource ds, Duration statementTimeout) {
        if (statementTimeout.isNegative()) {
            throw new IllegalArgumentException("negative statement timeout " + statementTimeout);
        }
        this.ds = ds;
        this.statementTimeout = statementTimeout;
        this.watchdog = statementTimeout.isZero() ? null : new ReadWatchdog(statementTimeout);
        String timeout = statementTimeout.isZero() ? null
                : "set_config('statement_timeout', '" + statementTimeout.toMillis() + "ms', true)";
        this.settings = timeout == null ? "" : "select " + timeout;
        this.genericSettings = "select " + (timeout == null ? "" : timeout + ", ") + GENERIC;
    }

    Duration statementTimeout() {
        return statementTimeout;
    }

    /** Stops the bounded reads' watchdog (a read still running is then not cancelled). */
    void close() {
        if (watchdog != null) {
            watchdog.close();
        }
    }

    @FunctionalInterface
    private interface Rows {
        void read(ResultSet rs) throws SQLException;
    }

    /** The events' JSON the reads from one index take instead of the rows ({@link IndexRead}); null: off. */
    private volatile EventCache cache;

    void cache(EventCache cache) {
        this.cache = cache == null || cache.budget() == 0 ? null : cache;
    }

    EventCache cache() {
        return cache;
    }

    /** Reads answered from one index and the cache (for tests and metrics). */
    final java.util.concurrent.atomic.LongAdder indexReads = new java.util.concurrent.atomic.LongAdder();

    void query(Filter filter, long now, Reader reader, EventSink sink) {
        EventCache c = cache;
        if (c != null) {
            IndexRead read = IndexRead.plan(filter, reader);
            if (read != null && fromIndex(read, c, now, sink)) {
                indexReads.increment();
                return;
            }
        }
        SqlFilter.Sql sql = SqlFilter.build(filter, now, SqlFilter.Mode.QUERY, reader);
        if (sql != null) {
            int head = sink.headroom();
            int tail = sink.tailroom();
            run("query", sql, rowsAtMost(filter), rs -> {
                while (rs.next()) {
                    // SqlFilter.columns: the text columns' bytes as the server sent them (UTF-8, the connection's
                    // client_encoding), never decoded to a String that a relay would encode back; built with the
                    // room the sink asked for around it (a relay's frame)
                    byte[] buf = json(rs, 1, head, tail);
                    if (!sink.acceptUtf8(new EventId(rs.getBytes(1)), buf, head, buf.length - head - tail)) {
                        break;
                    }
                }
            });
        }
    }

    /**
     * {@code read} answered from one index, the events' JSON from {@code cache} and, for those it lacks, from one
     * fetch by seq (which fills it). Both statements are bounded (an index-only scan of at most {@code limit + 1}
     * entries; at most {@code limit} lookups by {@code event_seq_idx}) and run under the driver's timeout rather than
     * the {@code set_config} of the ordinary reads, which costs a statement of its own. Returns false, having sent
     * nothing, when the full statement must answer instead ({@link IndexRead#answer}, or an event removed between the two
     * statements).
     */
    private boolean fromIndex(IndexRead read, EventCache cache, long now, EventSink sink) {
        if (read.tagName != 0 && read.tagName < TAG_LETTERS && tagRows[read.tagName] <= FEW_ROWS) {
            return fromIndexJoined(read, cache, now, sink);
        }
        long[] seqs = new long[read.limit + 1];
        long[] createdAt = new long[read.limit + 1];
        int[] n = new int[1];
        run("index read", read.scan, 0, rs -> {
            while (rs.next()) {
                seqs[n[0]] = rs.getLong(1);
                createdAt[n[0]] = rs.getLong(2);
                n[0]++;
            }
        });
        if (read.tagName != 0 && read.tagName < TAG_LETTERS) {
            observe(read.tagName, n[0]);
        }
        int m = read.rowsToSend(createdAt, n[0]);
        if (m < 0) {
            return false;
        }
        int head = sink.headroom();
        int tail = sink.tailroom();
        EventCache.Entry[] entries = new EventCache.Entry[m];
        long held = 0; // the JSON held before anything is sent: at most INDEX_READ_HELD, else the ordinary statement
        int missing = 0;
        for (int i = 0; i < m; i++) {
            // each copied out into an array with the sink's room around it: the frame it will be sent in
            EventCache.Entry e = cache.get(seqs[i], head, tail);
            if (e != null && e.createdAt() != createdAt[i]) {
                // not this row's event: a seq used again (a table emptied and its sequence restarted under a running
                // node); the row is the truth
                cache.remove(seqs[i]);
                e = null;
            }
            entries[i] = e;
            if (e == null) {
                missing++;
            } else if ((held += e.length()) > INDEX_READ_HELD) {
                return false;
            }
        }
        if (missing > 0) {
            long[] want = new long[missing];
            long oldest = Long.MAX_VALUE;
            long newest = Long.MIN_VALUE;
            for (int i = 0, j = 0; i < m; i++) {
                if (entries[i] == null) {
                    want[j++] = seqs[i];
                    oldest = Math.min(oldest, createdAt[i]);
                    newest = Math.max(newest, createdAt[i]);
                }
            }
            java.util.Map<Long, EventCache.Entry> fetched = new java.util.HashMap<>(missing * 2);
            long[] total = {held};
            // at most IndexRead.MAX_LIMIT rows: one round trip, as ONE_SHOT_MAX_ROWS allows
            run("fetch by seq", read.fetch(want, oldest, newest), 0, rs -> {
                while (total[0] <= INDEX_READ_HELD && rs.next()) {
                    long seq = rs.getLong(1);
                    long expires = rs.getLong(2);
                    if (rs.wasNull()) {
                        expires = Long.MAX_VALUE;
                    }
                    byte[] buf = json(rs, 3, head, tail);
                    EventCache.Entry e = new EventCache.Entry(buf, head, buf.length - head - tail, rs.getLong(5),
                            expires);
                    fetched.put(seq, e);
                    cache.put(seq, e);
                    total[0] += e.length();
                }
            });
            if (total[0] > INDEX_READ_HELD) {
                return false;
            }
            for (int i = 0; i < m; i++) {
                if (entries[i] == null) {
                    EventCache.Entry e = fetched.get(seqs[i]);
                    if (e == null || e.createdAt() != createdAt[i]) {
                        return false; // removed since the scan
                    }
                    entries[i] = e;
                }
            }
        }
        return send(createdAt, entries, m, now, sink);
    }

    /**
     * Sends the first {@code m} entries as {@link IndexRead#answer} orders them; false, having sent nothing, when it
     * leaves the read to the ordinary statement.
     */
    private static boolean send(long[] createdAt, EventCache.Entry[] entries, int m, long now, EventSink sink) {
        EventCache.Entry[] out = IndexRead.answer(createdAt, entries, m, now);
        if (out == null) {
            return false;
        }
        for (EventCache.Entry e : out) {
            if (!sink.acceptUtf8(new EventId(StoredJson.id(e.buf(), e.offset())), e.buf(), e.offset(), e.length())) {
                break;
            }
        }
        return true;
    }

    /** Tag letters (ASCII) whose reads are tracked by {@link #tagRows}. */
    private static final int TAG_LETTERS = 128;
    /** At most this many rows per read, on average, and a tag's reads take the joined statement. */
    static final float FEW_ROWS = 8;
    /**
     * Per tag letter, a running average of the rows its one-value reads returned (each read weighs a tenth); unknown
     * (infinite) until the first. Racy by design: a lost update only delays the switch by a read.
     */
    private final float[] tagRows = newTagRows();

    private static float[] newTagRows() {
        float[] a = new float[TAG_LETTERS];
        java.util.Arrays.fill(a, Float.POSITIVE_INFINITY);
        return a;
    }

    private void observe(char tag, int rows) {
        float was = tagRows[tag];
        tagRows[tag] = Float.isInfinite(was) ? rows : was * 0.9f + rows * 0.1f;
    }

    /** The running average of rows per read of tag {@code tag} (for tests). */
    float tagRows(char tag) {
        return tagRows[tag];
    }

    /** Tag reads answered by the joined statement (for tests). */
    final java.util.concurrent.atomic.LongAdder joinedReads = new java.util.concurrent.atomic.LongAdder();

    /**
     * A tag read whose values usually name few events ({@link #FEW_ROWS}): the scan with its events joined
     * ({@link IndexRead#scanWithEvents}), one round trip, the events kept in the cache as a fetch would. The same
     * decisions as {@link #fromIndex} follow (a tie across the limit, an expired event: false, nothing sent).
     */
    private boolean fromIndexJoined(IndexRead read, EventCache cache, long now, EventSink sink) {
        long[] createdAt = new long[read.limit + 1];
        EventCache.Entry[] rows = new EventCache.Entry[read.limit + 1];
        int head = sink.headroom();
        int tail = sink.tailroom();
        int[] n = new int[1];
        long[] held = {0};
        run("index read with events", read.scanWithEvents(), 0, rs -> {
            while (held[0] <= INDEX_READ_HELD && rs.next()) {
                long seq = rs.getLong(1);
                long created = rs.getLong(2);
                long expires = rs.getLong(3);
                if (rs.wasNull()) {
                    expires = Long.MAX_VALUE;
                }
                byte[] buf = json(rs, 4, head, tail);
                EventCache.Entry e = new EventCache.Entry(buf, head, buf.length - head - tail, created, expires);
                cache.put(seq, e);
                createdAt[n[0]] = created;
                rows[n[0]++] = e;
                held[0] += e.length();
            }
        });
        joinedReads.increment();
        observe(read.tagName, n[0]);
        if (held[0] > INDEX_READ_HELD) {
            return false;
        }
        int m = read.rowsToSend(createdAt, n[0]);
        if (m < 0) {
            return false;
        }
        return send(createdAt, rows, m, now, sink);
    }

    /**
     * The event's JSON, UTF-8, from the row's {@link SqlFilter#columns} starting at column {@code first}: the bytes of
     * its {@code json} on a legacy row, else built by {@link StoredJson} (the text columns' bytes as the server sent
     * them, UTF-8 in the connection's client_encoding, never decoded to a String).
     */
    static byte[] json(ResultSet rs, int first) throws SQLException {
        return json(rs, first, 0, 0);
    }

    /** {@link #json(ResultSet, int)} with {@code head} bytes free before the JSON and {@code tail} after it. */
    static byte[] json(ResultSet rs, int first, int head, int tail) throws SQLException {
        byte[] legacy = rs.getBytes(first + 6);
        if (legacy != null) {
            if (head == 0 && tail == 0) {
                return legacy;
            }
            byte[] out = new byte[head + legacy.length + tail];
            System.arraycopy(legacy, 0, out, head, legacy.length);
            return out;
        }
        return StoredJson.utf8(head, tail, rs.getBytes(first), rs.getBytes(first + 1), rs.getLong(first + 2),
                rs.getInt(first + 3), rs.getBytes(first + 4), rs.getBytes(first + 5));
    }

    long count(List<Filter> filters, long now, Reader reader) {
        SqlFilter.Sql sql = filters.size() == 1 ? SqlFilter.build(filters.get(0), now, SqlFilter.Mode.COUNT, reader)
                : SqlFilter.countUnion(filters, now, reader);
        if (sql == null) {
            return 0;
        }
        long[] n = new long[1];
        run("count", sql, 1, rs -> {
            rs.next();
            n[0] = rs.getLong(1);
        });
        return n[0];
    }

    void enumerate(List<Filter> filters, long now, Reader reader, ItemSink sink) {
        SqlFilter.Sql sql = SqlFilter.enumerateUnion(filters, now, reader);
        if (sql != null) {
            run("enumerate", sql, -4096, rs -> {
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
        SqlFilter.Sql sql = new SqlFilter.Sql("select e.seq, " + SqlFilter.columns("e")
                + " from event e where e.seq > ? order by e.seq limit ?",
                List.of(afterSeq, limit));
        run("scan", sql, rowsAtMost(limit), rs -> {
            while (rs.next()) {
                String json = new String(json(rs, 2), StandardCharsets.UTF_8);
                if (!sink.accept(rs.getLong(1), new EventId(rs.getBytes(2)), json)) {
                    break;
                }
            }
        });
    }

    long lastSequence() {
        long[] n = new long[1];
        run("lastSequence", new SqlFilter.Sql("select coalesce(max(seq), 0) from event", List.of()), 1, rs -> {
            rs.next();
            n[0] = rs.getLong(1);
        });
        return n[0];
    }

    /**
     * Runs {@code sql} under the statement timeout. {@code rows} 0: a statement bounded by its own shape (at most
     * {@link #ONE_SHOT_MAX_ROWS} rows through an index), one round trip under the {@link ReadWatchdog}'s timeout ({@link #bounded});
     * &gt; 0: the result has at most that many rows
     * (fetched whole when at most {@link #ONE_SHOT_MAX_ROWS}); &lt; 0: unbounded, streamed {@code -rows} at a time.
     */
    private void run(String what, SqlFilter.Sql sql, int rows, Rows reader) {
        try (Connection c = ds.getConnection()) {
            if (rows == 0) {
                bounded(c, sql, reader);
            } else if (rows > 0 && rows <= ONE_SHOT_MAX_ROWS) {
                oneShot(c, sql, reader);
            } else {
                streamed(c, sql, rows < 0 ? -rows : Math.min(rows, FETCH_SIZE), reader);
            }
        } catch (SQLException e) {
            if (QUERY_CANCELED.equals(e.getSQLState())) {
                throw new QueryTimeoutException(statementTimeout, e);
            }
            throw new IllegalStateException(what + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * One round trip, in autocommit: the timeout and the read are one statement text, which pgjdbc sends as two
     * statements before a single Sync, so they run in one implicit transaction; the local timeout ends with it.
     */
    private void oneShot(Connection c, SqlFilter.Sql sql, Rows rows) throws SQLException {
        if (!c.getAutoCommit()) {
            c.setAutoCommit(true);
        }
        String set = settings(c, sql);
        try (PreparedStatement ps = c.prepareStatement(set.isEmpty() ? sql.text() : set + ";\n" + sql.text())) {
            SqlFilter.bind(c, ps, sql.params());
            boolean isResult = ps.execute();
            if (!set.isEmpty()) {
                isResult = ps.getMoreResults(); // past set_config's row, to the read's
            }
            if (!isResult) {
                throw new SQLException("the read returned no result set: " + sql.text());
            }
            try (ResultSet rs = ps.getResultSet()) {
                rows.read(rs);
            }
        }
    }

    /**
     * One round trip, in autocommit, no settings: the read timeout is the {@link ReadWatchdog}'s (which sends PostgreSQL
     * a cancel request for a read past it, the same SQLSTATE 57014 as {@code statement_timeout}), which costs no
     * statement and, unlike the driver's {@code setQueryTimeout}, no wake-up of a timer thread per read.
     * A scan of a few index entries can still wait on a lock (a table locked by a migration or an operator).
     */
    private void bounded(Connection c, SqlFilter.Sql sql, Rows rows) throws SQLException {
        if (!c.getAutoCommit()) {
            c.setAutoCommit(true);
        }
        try (PreparedStatement ps = sql.prepare(c)) {
            if (watchdog == null) {
                try (ResultSet rs = ps.executeQuery()) {
                    rows.read(rs);
                }
                return;
            }
            watchdog.start(ps);
            try (ResultSet rs = ps.executeQuery()) {
                rows.read(rs);
            } finally {
                watchdog.done();
            }
        }
    }

    /**
     * A cursor needs a transaction: BEGIN travels with the set_config, the read then fetches {@code fetchSize}
     * rows per round trip, and the rollback ends the transaction and its SET LOCAL.
     */
    private void streamed(Connection c, SqlFilter.Sql sql, int fetchSize, Rows rows) throws SQLException {
        c.setAutoCommit(false);
        try {
            String set = settings(c, sql);
            if (!set.isEmpty()) {
                try (PreparedStatement t = c.prepareStatement(set)) {
                    t.executeQuery().close();
                }
            }
            try (PreparedStatement ps = sql.prepare(c)) {
                ps.setFetchSize(fetchSize);
                try (ResultSet rs = ps.executeQuery()) {
                    rows.read(rs);
                }
            }
        } finally {
            EventWriter.rollbackQuietly(c);
            EventWriter.resetAutoCommit(c);
        }
    }

    /**
     * The settings {@code sql} runs under: with {@link #GENERIC} when it asks for it and the server has
     * {@code plan_cache_mode} (PostgreSQL 12 and later; on an older external server every read is planned as the plan
     * cache chooses).
     */
    private String settings(Connection c, SqlFilter.Sql sql) throws SQLException {
        if (!sql.generic()) {
            return settings;
        }
        Boolean known = planCacheMode;
        if (known == null) {
            known = c.getMetaData().getDatabaseMajorVersion() >= 12;
            planCacheMode = known;
        }
        return known ? genericSettings : settings;
    }

    /** Whether the server has {@code plan_cache_mode}; null until the first read that would use it. */
    private volatile Boolean planCacheMode;

    /** A read of at most {@code limit} rows; unbounded ({@code null}): streamed. */
    private static int rowsAtMost(Integer limit) {
        return limit == null ? -FETCH_SIZE : Math.max(1, limit);
    }

    /**
     * The most rows a REQ filter's statement can return: its limit, or fewer when it names its events ({@code ids}:
     * one row per id at most, ids being the key), so that a lookup of ten ids under the relay's default limit of 500 is
     * one round trip, not a cursor's transaction (docs/BENCHMARKS.md, "Fourteenth session").
     */
    static int rowsAtMost(Filter f) {
        int rows = rowsAtMost(f.limit());
        if (f.ids() != null && (rows < 0 || f.ids().size() < rows)) {
            rows = Math.max(1, f.ids().size());
        }
        return rows;
    }
}
