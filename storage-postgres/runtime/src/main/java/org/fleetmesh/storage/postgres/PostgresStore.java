package org.fleetmesh.storage.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;

import javax.sql.DataSource;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.Reader;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.jboss.logging.Logger;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.AgroalConnectionPoolConfiguration.ConnectionValidator;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;

/**
 * The PostgreSQL {@link EventStore}: plain JDBC over a {@link DataSource}, framework-free. A facade
 * over its parts: {@link EventWriter} (batched save, replacement and NIP-09 rules), {@link EventReader}
 * (query, count, enumerate under a statement timeout), {@link Removals} (operator delete, expiry
 * purge), {@link ChangeFeed} (onCommitted listeners) and {@link SiblingFeed} (LISTEN/NOTIFY with
 * the other processes on the same database). Every commit, and every removal, is announced to the
 * siblings and then published to this store's change listeners.
 */
public final class PostgresStore implements EventStore {
    private static final Logger LOG = Logger.getLogger(PostgresStore.class);

    public static final String EVENTS_CHANNEL = SiblingFeed.EVENTS_CHANNEL;
    public static final String EPHEMERAL_CHANNEL = SiblingFeed.EPHEMERAL_CHANNEL;
    public static final String REMOVED_CHANNEL = SiblingFeed.REMOVED_CHANNEL;
    /** Default bound on one read statement (reads only; the writer's transactions have none). */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(10);
    /** Default bound on the events' JSON kept for reads from one index ({@link EventCache}), in MiB. */
    public static final int DEFAULT_EVENT_CACHE_MIB = 64;

    /** Opens connections for the LISTEN connection, which is held for the store's lifetime. */
    @FunctionalInterface
    public interface ConnectionFactory {
        Connection connect() throws SQLException;
    }

    private final DataSource ds;
    private final AutoCloseable ownedPool;
    private final ChangeFeed changes = new ChangeFeed();
    private final SiblingFeed siblings;
    private final EventWriter writer;
    private final EventReader reader;
    private final Removals removals;
    /** Batches retried after a deadlock/serialization failure/unique violation (for tests and metrics). */
    final java.util.concurrent.atomic.AtomicLong retries;
    private volatile boolean closed;
    private final Thread statistics;

    /**
     * A store over {@code ds} (migrated on construction). The LISTEN connection, when a listener
     * registers, is taken from {@code ds} and kept.
     */
    public PostgresStore(DataSource ds) {
        this(ds, ds::getConnection, null, DEFAULT_STATEMENT_TIMEOUT, false);
    }

    /** A store over {@code ds}, with its LISTEN connection from {@code listenConnections}. */
    public PostgresStore(DataSource ds, ConnectionFactory listenConnections) {
        this(ds, listenConnections, null, DEFAULT_STATEMENT_TIMEOUT, false);
    }

    /** As above, each read statement cancelled after {@code statementTimeout} (zero: never). */
    public PostgresStore(DataSource ds, ConnectionFactory listenConnections, Duration statementTimeout) {
        this(ds, listenConnections, null, statementTimeout, false);
    }

    /**
     * As above; {@code shared}: the database is an embedded cluster another process uses (this one attached to it),
     * so a pending migration is not run under it ({@link Migrations#migrate(DataSource, boolean)}).
     */
    public PostgresStore(DataSource ds, ConnectionFactory listenConnections, Duration statementTimeout,
            boolean shared) {
        this(ds, listenConnections, null, statementTimeout, shared);
    }

    private PostgresStore(DataSource ds, ConnectionFactory listenConnections, AutoCloseable ownedPool,
            Duration statementTimeout, boolean shared) {
        this.ds = ds;
        this.ownedPool = ownedPool;
        this.siblings = new SiblingFeed(ds, listenConnections, changes);
        this.writer = new EventWriter(ds, this::committed);
        this.retries = writer.retries;
        this.reader = new EventReader(ds, statementTimeout);
        this.reader.cache(new EventCache((long) DEFAULT_EVENT_CACHE_MIB << 20));
        this.removals = new Removals(ds, (c, removed) -> committed(c, List.of(), List.of(), removed));
        Migrations.migrate(ds, shared);
        // a store filled by a bulk load or a restore is planned as what it holds
        this.statistics = Statistics.refreshInBackground(ds);
    }

    /**
     * The thread that refreshes stale planner statistics after the store opened (it holds one pooled connection while
     * it runs; PostgreSQL 14's statistics collector can take up to 10 s to answer its first query). For tests that need
     * every pooled connection.
     */
    Thread statisticsRefresh() {
        return statistics;
    }

    private void committed(Connection c, List<EventId> stored, List<Event> added, List<StoredItem> removed) {
        siblings.announce(c, stored, removed);
        changes.publish(added, removed);
    }

    /** A store with its own pool of 8 connections; closing the store closes the pool. */
    public static PostgresStore open(String jdbcUrl, String user, String password) {
        return open(jdbcUrl, user, password, 8);
    }

    /** A store with its own pool of {@code poolSize} connections; closing the store closes the pool. */
    public static PostgresStore open(String jdbcUrl, String user, String password, int poolSize) {
        AgroalDataSource pool = createPool(jdbcUrl, user, password, poolSize);
        try {
            return new PostgresStore(pool, driverConnections(jdbcUrl, user, password), pool, DEFAULT_STATEMENT_TIMEOUT, false);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /** An Agroal pool over the PostgreSQL driver (no CDI, no Quarkus datasource extension); at least 2 connections. */
    public static AgroalDataSource createPool(String jdbcUrl, String user, String password, int poolSize) {
        try {
            AgroalDataSourceConfigurationSupplier cfg = new AgroalDataSourceConfigurationSupplier()
                    .connectionPoolConfiguration(p -> p
                            .maxSize(Math.max(2, poolSize)) // Flyway holds two connections while migrating
                            .minSize(0)
                            .initialSize(0)
                            .acquisitionTimeout(Duration.ofSeconds(30))
                            .reapTimeout(Duration.ofMinutes(5))
                            .validationTimeout(Duration.ofMinutes(1))
                            // a connection whose backend is gone (the server restarted or crashed, the backend was
                            // terminated) leaves the pool instead of going back to it after every failure: Agroal's
                            // defaults validate nothing and treat no exception as fatal, so before a node on a
                            // database that restarted failed every read and write until it was restarted itself
                            .connectionValidator(ConnectionValidator.defaultValidatorWithTimeout(5))
                            .idleValidationTimeout(Duration.ofSeconds(10))
                            .exceptionSorter(PostgresStore::connectionLost)
                            .connectionFactoryConfiguration(c -> {
                                c.connectionProviderClass(org.postgresql.Driver.class)
                                        .jdbcUrl(jdbcUrl)
                                        .autoCommit(true)
                                        .jdbcProperty("ApplicationName", "fleetmesh")
                                        .jdbcProperty("tcpKeepAlive", "true");
                                if (user != null && !user.isEmpty()) {
                                    c.principal(new NamePrincipal(user));
                                }
                                if (password != null && !password.isEmpty()) {
                                    c.credential(new SimplePassword(password));
                                }
                                return c;
                            }));
            return AgroalDataSource.from(cfg);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a connection pool for " + jdbcUrl, e);
        }
    }

    /**
     * Whether {@code e} means the connection is unusable: SQLState class 08 (connection exception) or 57P (the server
     * is shutting down, crashed, or terminated this backend). 57014 (a statement timeout's cancel) is not.
     */
    static boolean connectionLost(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("08") || state.startsWith("57P"));
    }

    /** Plain driver connections (no pool), e.g. for the LISTEN connection. */
    public static ConnectionFactory driverConnections(String jdbcUrl, String user, String password) {
        return () -> {
            Properties props = new Properties();
            if (user != null && !user.isEmpty()) {
                props.setProperty("user", user);
            }
            if (password != null && !password.isEmpty()) {
                props.setProperty("password", password);
            }
            props.setProperty("ApplicationName", "fleetmesh-listen");
            props.setProperty("tcpKeepAlive", "true");
            Connection c = new org.postgresql.Driver().connect(jdbcUrl, props);
            if (c == null) {
                throw new SQLException("not a PostgreSQL JDBC URL: " + jdbcUrl);
            }
            return c;
        };
    }


    /** The data source this store writes through. */
    public DataSource dataSource() {
        return ds;
    }

    /** The uuid this instance tags its notifications with. */
    public String origin() {
        return siblings.origin();
    }

    /** How long one read statement may run. */
    public Duration statementTimeout() {
        return reader.statementTimeout();
    }

    @Override
    public List<SaveOutcome> save(List<Event> batch) {
        return writer.save(batch);
    }

    /**
     * Bounds the events' JSON kept in this process for reads answered from one index to {@code mib} MiB (0: none,
     * every read is one statement). Replaces what was kept; call before the store serves reads.
     */
    public void eventCacheMib(int mib) {
        if (mib < 0) {
            throw new IllegalArgumentException("negative event cache size " + mib);
        }
        reader.cache(new EventCache((long) mib << 20));
    }

    /** The {@link EventCache}'s bound and contents: {bound, bytes, entries, hits, misses, reads}; null when it is off. */
    /** The read side (for tests). */
    EventReader reader() {
        return reader;
    }

    @Override
    public long[] readCacheStats() {
        EventCache c = reader.cache();
        return c == null ? null
                : new long[] {c.budget(), c.bytes(), c.size(), c.hits(), c.misses(), reader.indexReads.sum()};
    }

    /** How long {@link #reorderByTime()} waits for the events' lock before it gives up. */
    static final Duration REORDER_LOCK_WAIT = Duration.ofSeconds(5);

    /**
     * {@code CLUSTER event USING event_created_at_idx} (the table rewritten newest first, as the index orders it; seq,
     * ids and JSON unchanged, so the event cache stays valid), then {@code VACUUM (ANALYZE) event}: the visibility map
     * that keeps index-only scans index-only, and the planner's view of the new correlation. Waits at most {@link #REORDER_LOCK_WAIT} for the exclusive lock (SQLSTATE 55P03 otherwise).
     */
    @Override
    public boolean reorderByTime() {
        return reorderByTime(REORDER_LOCK_WAIT);
    }

    boolean reorderByTime(Duration lockWait) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            try {
                s.execute("set local lock_timeout = '" + Math.max(1, lockWait.toMillis()) + "ms'");
                s.execute("set local statement_timeout = 0");
                s.execute("cluster event using event_created_at_idx");
                c.commit();
            } catch (SQLException e) {
                EventWriter.rollbackQuietly(c);
                throw e;
            } finally {
                EventWriter.resetAutoCommit(c);
            }
            // a rewritten table starts with an empty visibility map, so every index-only scan of it (the event cache's
            // reads) would visit the heap again until autovacuum came by: VACUUM sets the map, ANALYZE the statistics
            s.execute("vacuum (analyze) event");
            return true;
        } catch (SQLException e) {
            if ("55P03".equals(e.getSQLState())) {
                throw new IllegalStateException("the events are in use by another session (a running relay?): not"
                        + " reordered, nothing changed", e);
            }
            throw new IllegalStateException("reordering the events failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void query(Filter filter, long now, Reader who, EventSink sink) {
        reader.query(filter, now, who, sink);
    }

    @Override
    public long count(List<Filter> filters, long now, Reader who) {
        return reader.count(filters, now, who);
    }

    @Override
    public void enumerate(List<Filter> filters, long now, Reader who, ItemSink sink) {
        reader.enumerate(filters, now, who, sink);
    }

    /** event.seq numbers every stored event in commit order, across every process writing this database (V5). */
    @Override
    public boolean sequenced() {
        return true;
    }

    @Override
    public void scan(long afterSeq, int limit, SequencedSink sink) {
        reader.scan(afterSeq, limit, sink);
    }

    @Override
    public long lastSequence() {
        return reader.lastSequence();
    }

    @Override
    public int purgeExpired(long now) {
        return removals.purgeExpired(now);
    }

    @Override
    public int delete(Collection<EventId> ids) {
        return removals.delete(ids);
    }

    @Override
    public void announceEphemeral(Event event) {
        siblings.announceEphemeral(event);
    }

    @Override
    public void onForeignEvents(Consumer<List<String>> l) {
        siblings.onForeignEvents(l);
    }

    /** Also starts listening: removals committed by other processes sharing the database reach {@code listener}. */
    @Override
    public boolean onCommitted(ChangeListener listener) {
        changes.add(listener);
        siblings.listen();
        return true;
    }

    @Override
    public boolean isHealthy() {
        if (closed) {
            return false;
        }
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.setQueryTimeout(2);
            try (ResultSet rs = s.executeQuery("select 1")) {
                return rs.next() && rs.getInt(1) == 1;
            }
        } catch (SQLException | RuntimeException e) {
            LOG.debugf("health check failed: %s", e.getMessage());
            return false;
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        reader.close();
        siblings.close();
        if (ownedPool != null) {
            try {
                ownedPool.close();
            } catch (Exception e) {
                LOG.debug("closing the pool", e);
            }
        }
    }
}
