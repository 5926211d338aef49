package org.fleetmesh.storage.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import javax.sql.DataSource;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.Reader;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.jboss.logging.Logger;

import io.agroal.api.AgroalDataSource;

/**
 * Everything the node needs for storage, opened from configuration: the embedded cluster in the
 * data dir when no JDBC URL is configured, a connection pool, and the {@link PostgresStore}.
 * Itself an {@link EventStore}; closing it closes the store, the pool and (when this process
 * owns it) the embedded cluster. Framework-free: a CLI can call {@link #openFromConfig}.
 *
 * <p>Configuration (MicroProfile Config names, environment variables in brackets):
 * {@code fleetmesh.data-dir} [FLEETMESH_DATA_DIR], default {@code ./data};
 * {@code quarkus.datasource.jdbc.url} [QUARKUS_DATASOURCE_JDBC_URL], absent = embedded cluster;
 * {@code quarkus.datasource.username}, {@code quarkus.datasource.password};
 * {@code fleetmesh.storage.pool-size} [FLEETMESH_STORAGE_POOL_SIZE], default 16 (above the relay's query threads plus its writer);
 * {@code fleetmesh.storage.statement-timeout} [FLEETMESH_STORAGE_STATEMENT_TIMEOUT], default {@code 10s}
 * ({@code 500ms}, {@code 30s}, {@code 2m} or ISO-8601 {@code PT10S}; {@code 0}: none): how long one read may run;
 * {@code fleetmesh.storage.event-cache-mib} [FLEETMESH_STORAGE_EVENT_CACHE_MIB], default 64 ({@code 0}: none): the
 * events' JSON kept in the JVM for reads answered from one index.
 */
public final class PostgresStorage implements EventStore {
    private static final Logger LOG = Logger.getLogger(PostgresStorage.class);

    public static final String DATA_DIR = "fleetmesh.data-dir";
    public static final String DEFAULT_DATA_DIR = "./data";
    public static final String JDBC_URL = "quarkus.datasource.jdbc.url";
    public static final String USERNAME = "quarkus.datasource.username";
    public static final String PASSWORD = "quarkus.datasource.password";
    public static final String POOL_SIZE = "fleetmesh.storage.pool-size";
    public static final int DEFAULT_POOL_SIZE = 16;
    public static final String STATEMENT_TIMEOUT = "fleetmesh.storage.statement-timeout";
    public static final String EVENT_CACHE_MIB = "fleetmesh.storage.event-cache-mib";

    private final EmbeddedCluster cluster; // null with an external database
    private final AgroalDataSource pool;
    private final PostgresStore store;
    private final String jdbcUrl;
    private final String user;
    private final String password;

    private PostgresStorage(EmbeddedCluster cluster, AgroalDataSource pool, PostgresStore store, String jdbcUrl,
            String user, String password) {
        this.cluster = cluster;
        this.pool = pool;
        this.store = store;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
    }

    /** Opens from MicroProfile Config (Quarkus config: application.properties, env, system properties). */
    public static PostgresStorage openFromConfig() {
        Config c = ConfigProvider.getConfig();
        Path dataDir = Path.of(c.getOptionalValue(DATA_DIR, String.class).orElse(DEFAULT_DATA_DIR));
        int poolSize = c.getOptionalValue(POOL_SIZE, Integer.class).orElse(DEFAULT_POOL_SIZE);
        Duration timeout = nonBlank(c.getOptionalValue(STATEMENT_TIMEOUT, String.class)).map(PostgresStorage::duration)
                .orElse(PostgresStore.DEFAULT_STATEMENT_TIMEOUT);
        int cacheMib = c.getOptionalValue(EVENT_CACHE_MIB, Integer.class).orElse(PostgresStore.DEFAULT_EVENT_CACHE_MIB);
        if (cacheMib < 0) {
            throw new IllegalArgumentException(EVENT_CACHE_MIB + ": negative: " + cacheMib);
        }
        PostgresStorage storage = openFromConfig(dataDir, nonBlank(c.getOptionalValue(JDBC_URL, String.class)),
                nonBlank(c.getOptionalValue(USERNAME, String.class)), c.getOptionalValue(PASSWORD, String.class),
                poolSize, timeout);
        storage.store.eventCacheMib(cacheMib);
        return storage;
    }

    /** Quarkus' duration forms: a number with {@code ms}, {@code s}, {@code m} or {@code h}, a bare number of seconds, or ISO-8601. */
    static Duration duration(String v) {
        String s = v.trim();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)(ms|s|m|h)?").matcher(s);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "s" : m.group(2);
            return switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofSeconds(n);
            };
        }
        try {
            return Duration.parse(s);
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException(STATEMENT_TIMEOUT + ": not a duration: " + v, e);
        }
    }

    /** Opens with the default pool size; an empty {@code url} starts the embedded cluster in {@code dataDir}. */
    public static PostgresStorage openFromConfig(Path dataDir, Optional<String> url, Optional<String> user,
            Optional<String> password) {
        return openFromConfig(dataDir, url, user, password, DEFAULT_POOL_SIZE);
    }

    /** Opens; an empty {@code url} starts (or attaches to) the embedded cluster in {@code <dataDir>/pg}. */
    public static PostgresStorage openFromConfig(Path dataDir, Optional<String> url, Optional<String> user,
            Optional<String> password, int poolSize) {
        return openFromConfig(dataDir, url, user, password, poolSize, PostgresStore.DEFAULT_STATEMENT_TIMEOUT);
    }

    /** As above, with each read statement cancelled after {@code statementTimeout} (zero: never). */
    public static PostgresStorage openFromConfig(Path dataDir, Optional<String> url, Optional<String> user,
            Optional<String> password, int poolSize, Duration statementTimeout) {
        Database db = Database.of(dataDir, url, user, password, true); // the store migrates it next
        LOG.infof("event store: %s", db.cluster() == null ? "PostgreSQL at " + db.url() : db.cluster());
        EmbeddedCluster cluster = db.cluster();
        String u = db.url();
        String name = db.user();
        String pw = db.password();
        AgroalDataSource pool = null;
        try {
            pool = PostgresStore.createPool(u, name, pw, poolSize);
            // attached to a cluster another process runs: no migration under it
            PostgresStore store = new PostgresStore(pool, PostgresStore.driverConnections(u, name, pw), statementTimeout,
                    cluster != null && EmbeddedCluster.joinedAnotherProcess(dataDir));
            return new PostgresStorage(cluster, pool, store, u, name, pw);
        } catch (RuntimeException e) {
            release(pool, cluster);
            throw e;
        }
    }

    /** The database to open: the external one at {@code url}, else the embedded cluster of {@code dataDir}, started. */
    private record Database(EmbeddedCluster cluster, String url, String user, String password) {
        static Database of(Path dataDir, Optional<String> url, Optional<String> user, Optional<String> password,
                boolean schemaTemplate) {
            if (url.isPresent() && !url.get().isBlank()) {
                return new Database(null, url.get().trim(), user.orElse(null), password.orElse(null));
            }
            EmbeddedCluster c;
            try {
                c = EmbeddedCluster.start(dataDir, schemaTemplate);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the embedded PostgreSQL in " + dataDir, e);
            }
            return new Database(c, c.jdbcUrl(), c.user(), c.password());
        }
    }

    /**
     * A database opened at an older schema version, with no store on it (a store needs this build's schema): for a
     * restore of a backup an older build made. The embedded cluster is started as usual, but a fresh one is
     * initialised empty (not from the template, which holds this build's schema); the database is migrated up to
     * {@code version} only. Closing it closes the pool and leaves the cluster as any other user does.
     */
    public static final class AtVersion implements AutoCloseable {
        private final EmbeddedCluster cluster;
        private final AgroalDataSource pool;

        private AtVersion(EmbeddedCluster cluster, AgroalDataSource pool) {
            this.cluster = cluster;
            this.pool = pool;
        }

        public DataSource dataSource() {
            return pool;
        }

        @Override
        public void close() {
            try {
                pool.close();
            } finally {
                if (cluster != null) {
                    cluster.close();
                }
            }
        }
    }

    /** Opens the database of {@code dataDir} (or at {@code url}) migrated up to schema {@code version} only. */
    public static AtVersion openAtVersion(Path dataDir, Optional<String> url, Optional<String> user,
            Optional<String> password, int version) {
        Database db = Database.of(dataDir, url, user, password, false); // not the template: it holds this build's schema
        EmbeddedCluster cluster = db.cluster();
        if (cluster != null && EmbeddedCluster.joinedAnotherProcess(dataDir)) {
            cluster.close();
            throw new Migrations.SchemaVersionException("another process uses the PostgreSQL of " + dataDir);
        }
        AgroalDataSource pool = null;
        try {
            pool = PostgresStore.createPool(db.url(), db.user(), db.password(), 2);
            Migrations.migrateTo(pool, version);
            return new AtVersion(cluster, pool);
        } catch (RuntimeException e) {
            release(pool, cluster);
            throw e;
        }
    }

    /** What an open that failed had taken: the pool, then this process's use of the cluster (either may be null). */
    private static void release(AgroalDataSource pool, EmbeddedCluster cluster) {
        if (pool != null) {
            pool.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Optional<String> nonBlank(Optional<String> s) {
        return s.filter(v -> !v.isBlank());
    }

    public PostgresStore store() {
        return store;
    }

    /** The pool, for other components that keep relational state in the same database. */
    public DataSource dataSource() {
        return pool;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public Optional<String> user() {
        return Optional.ofNullable(user);
    }

    public Optional<String> password() {
        return Optional.ofNullable(password);
    }

    /** The embedded cluster, when no external database is configured. */
    public Optional<EmbeddedCluster> cluster() {
        return Optional.ofNullable(cluster);
    }

    /**
     * Drops every pooled connection (the idle ones now, those in use when they come back): the server they were open
     * on is gone (its postmaster was started again), and each would otherwise fail one more read or write before the
     * pool found it dead.
     */
    public void dropConnections() {
        pool.flush(AgroalDataSource.FlushMode.GRACEFUL);
    }

    @Override
    public List<SaveOutcome> save(List<Event> batch) {
        return store.save(batch);
    }

    @Override
    public void query(Filter filter, long now, Reader reader, EventSink sink) {
        store.query(filter, now, reader, sink);
    }

    @Override
    public long count(List<Filter> filters, long now, Reader reader) {
        return store.count(filters, now, reader);
    }

    @Override
    public void enumerate(List<Filter> filters, long now, Reader reader, ItemSink sink) {
        store.enumerate(filters, now, reader, sink);
    }

    @Override
    public int delete(java.util.Collection<org.fleetmesh.nostr.EventId> ids) {
        return store.delete(ids);
    }

    @Override
    public int purgeExpired(long now) {
        return store.purgeExpired(now);
    }

    @Override
    public long[] readCacheStats() {
        return store.readCacheStats();
    }

    @Override
    public boolean reorderByTime() {
        return store.reorderByTime();
    }

    @Override
    public boolean sequenced() {
        return store.sequenced();
    }

    @Override
    public void scan(long afterSeq, int limit, SequencedSink sink) {
        store.scan(afterSeq, limit, sink);
    }

    @Override
    public long lastSequence() {
        return store.lastSequence();
    }

    @Override
    public boolean onCommitted(ChangeListener listener) {
        return store.onCommitted(listener);
    }

    @Override
    public void onForeignEvents(Consumer<List<String>> listener) {
        store.onForeignEvents(listener);
    }

    @Override
    public void announceEphemeral(Event event) {
        store.announceEphemeral(event);
    }

    @Override
    public boolean isHealthy() {
        return store.isHealthy();
    }

    @Override
    public void close() {
        try {
            store.close();
        } finally {
            try {
                pool.close();
            } finally {
                if (cluster != null) {
                    cluster.close();
                }
            }
        }
    }
}
