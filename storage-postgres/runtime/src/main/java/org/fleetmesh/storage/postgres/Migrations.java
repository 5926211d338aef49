package org.fleetmesh.storage.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.ResourceProvider;
import org.flywaydb.core.api.output.MigrateResult;
import org.flywaydb.core.api.resource.LoadableResource;

/**
 * Runs the schema migrations shipped in this jar under {@code db/fleetmesh/}. The migrations are
 * listed explicitly (no classpath scanning), so this works in plain JVMs and inside a packaged
 * Quarkus application, whose class loader cannot be scanned for directories.
 */
public final class Migrations {

    /** Where the SQL files live inside the jar. */
    public static final String LOCATION = "db/fleetmesh";

    /** Every migration, in order. Add new files here as well as under {@link #LOCATION}. */
    static final List<String> FILES = List.of("V1__events.sql", "V2__ledger.sql", "V3__peers.sql", "V4__link_ledger.sql",
            "V5__delivery.sql", "V6__peer_federate.sql", "V7__shards.sql", "V8__findings.sql",
            "V9__compute_jobs.sql", "V10__cashu_wallet.sql", "V11__compact_events.sql", "V12__peer_rotation.sql",
            "V13__covering_indexes.sql");

    /** Flyway's history table, kept apart from any other Flyway user of the same schema. */
    public static final String HISTORY_TABLE = "fleetmesh_schema_history";

    private Migrations() {
    }

    /** Class-path names of every migration (e.g. for registering them as native-image resources). */
    public static List<String> resourcePaths() {
        return FILES.stream().map(f -> LOCATION + "/" + f).toList();
    }

    /**
     * Applies pending migrations; returns how many ran. Safe when several nodes start at once. A schema that is
     * already up to date ({@link #upToDate}) is left without starting Flyway: on an existing data dir that check is
     * one query, where Flyway's own (class loading, validation, its lock) cost several hundred ms of every start.
     */
    public static int migrate(DataSource dataSource) {
        return migrate(dataSource, false);
    }

    /** How long a process sharing the cluster waits for another one's migration before it refuses. */
    static final java.time.Duration SHARED_WAIT = java.time.Duration.ofSeconds(10);

    /**
     * As {@link #migrate(DataSource)}, refusing what would break another process or this build:
     * <ul>
     * <li>a database at a version newer than this build's (a newer build migrated it; an older build on it serves
     * nothing right and fails every write, so it is refused before it serves);</li>
     * <li>with {@code shared} (the embedded cluster is used by another process: this one attached to it), a schema
     * behind this build's that does not catch up within {@link #SHARED_WAIT} (that process may be this build
     * migrating it right now): the other process is an older node, which a migration under it would break.</li>
     * </ul>
     */
    public static int migrate(DataSource dataSource, boolean shared) {
        return migrate(dataSource, shared, SHARED_WAIT);
    }

    static int migrate(DataSource dataSource, boolean shared, java.time.Duration sharedWait) {
        if (upToDate(dataSource)) {
            return 0;
        }
        int shipped = shippedVersion();
        int applied = appliedVersion(dataSource);
        if (applied > shipped) {
            throw new SchemaVersionException("the database is at schema version " + applied
                    + ", newer than this build's " + shipped + ": a newer build migrated it, and a data dir cannot go"
                    + " back to an older build; run the newer build (or restore a backup made before the upgrade"
                    + " with the build that made it)");
        }
        if (shared && applied < shipped) { // including a history not there or not readable (-1)
            long end = System.nanoTime() + sharedWait.toNanos();
            while (!upToDate(dataSource)) {
                if (System.nanoTime() > end) {
                    int now = appliedVersion(dataSource);
                    throw new SchemaVersionException("the database is at schema version "
                            + (now < 0 ? "(none readable)" : Integer.toString(now)) + " and this build needs " + shipped + ", but another process is using this data dir's"
                            + " PostgreSQL: migrating under it would break it. If it is a node of an older build, stop"
                            + " it and start this build (its first start migrates the schema); if it is this build"
                            + " starting, try again once it is ready");
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SchemaVersionException("interrupted while waiting for the schema");
                }
            }
            return 0;
        }
        MigrateResult result = flyway(dataSource, null).migrate();
        return result.migrationsExecuted;
    }

    /** Flyway over the shipped migrations, up to {@code target} (null: all). */
    private static Flyway flyway(DataSource dataSource, String target) {
        ClassLoader cl = Migrations.class.getClassLoader();
        var conf = Flyway.configure(cl)
                .dataSource(dataSource)
                .table(HISTORY_TABLE)
                .resourceProvider(new ListedResources(cl))
                .javaMigrationClassProvider(List::of)
                .baselineOnMigrate(false);
        return (target == null ? conf : conf.target(target)).load();
    }

    /**
     * Applies the shipped migrations up to {@code version} only (a restore of a backup an older build made loads its
     * tables at their version, then the node's own start migrates them on, as it would the older build's data dir).
     * Refuses a database already past {@code version}, and a version this build does not ship.
     */
    public static int migrateTo(DataSource dataSource, int version) {
        int shipped = shippedVersion();
        if (version < 1 || version > shipped) {
            throw new SchemaVersionException("schema version " + version + " is not one this build ships (1 to "
                    + shipped + ")");
        }
        int applied = appliedVersion(dataSource);
        if (applied > version) {
            throw new SchemaVersionException("the database is at schema version " + applied + ", past " + version);
        }
        return flyway(dataSource, Integer.toString(version)).migrate().migrationsExecuted;
    }

    /**
     * True when the history table records exactly the shipped migrations, each applied successfully and with the
     * checksum Flyway computes for the shipped file (so an edited migration still reaches Flyway's validation and
     * its error). Anything else (no table, a pending, failed, unknown or future version, a checksum that differs,
     * a database error) answers false, and Flyway decides.
     */
    static boolean upToDate(DataSource dataSource) {
        java.util.Map<String, Integer> expected = new java.util.HashMap<>();
        for (String f : FILES) {
            expected.put(f.substring(1, f.indexOf("__")), checksum(f));
        }
        java.util.Map<String, Integer> found = new java.util.HashMap<>();
        try (java.sql.Connection c = dataSource.getConnection(); java.sql.Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("select version, checksum, success from " + HISTORY_TABLE
                        + " where version is not null")) {
            while (rs.next()) {
                int sum = rs.getInt(2);
                boolean noSum = rs.wasNull();
                if (!rs.getBoolean(3) || noSum || found.put(rs.getString(1), sum) != null) {
                    return false;
                }
            }
        } catch (java.sql.SQLException e) {
            return false; // no history table yet (a fresh database), or no access: Flyway handles it
        }
        return found.equals(expected);
    }

    /** The newest schema version this build ships (migrations are numbered 1, 2, ... in order). */
    public static int shippedVersion() {
        String last = FILES.get(FILES.size() - 1);
        return Integer.parseInt(last.substring(1, last.indexOf("__")));
    }

    /**
     * The newest version the history records as applied successfully; 0 when the history table is empty, -1 when
     * there is none (a fresh database) or it cannot be read.
     */
    static int appliedVersion(DataSource dataSource) {
        int newest = 0;
        try (java.sql.Connection c = dataSource.getConnection(); java.sql.Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("select version from " + HISTORY_TABLE
                        + " where version is not null and success")) {
            while (rs.next()) {
                try {
                    newest = Math.max(newest, Integer.parseInt(rs.getString(1)));
                } catch (NumberFormatException e) {
                    // not one of ours: Flyway's validation answers for it
                }
            }
        } catch (java.sql.SQLException e) {
            return -1;
        }
        return newest;
    }

    /** The schema in the database cannot be used by this build, or migrated now. */
    public static final class SchemaVersionException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        SchemaVersionException(String message) {
            super(message);
        }
    }

    /** Flyway's checksum of a migration: CRC-32 over its lines without line breaks (and a leading BOM), UTF-8. */
    static int checksum(String file) {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        try (java.io.BufferedReader r = new java.io.BufferedReader(new Sql(Migrations.class.getClassLoader(), file).read(), 4096)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (!line.isEmpty() && line.charAt(0) == '\uFEFF') {
                    line = line.substring(1);
                }
                crc.update(line.getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read migration " + file, e);
        }
        return (int) crc.getValue();
    }

    static final class ListedResources implements ResourceProvider {
        private final ClassLoader cl;

        ListedResources(ClassLoader cl) {
            this.cl = cl;
        }

        @Override
        public LoadableResource getResource(String name) {
            for (String f : FILES) {
                if (name.equals(f) || name.equals(LOCATION + "/" + f)) {
                    return new Sql(cl, f);
                }
            }
            return null;
        }

        @Override
        public Collection<LoadableResource> getResources(String prefix, String[] suffixes) {
            List<LoadableResource> out = new ArrayList<>();
            for (String f : FILES) {
                if (!f.startsWith(prefix)) {
                    continue;
                }
                for (String s : suffixes) {
                    if (f.endsWith(s)) {
                        out.add(new Sql(cl, f));
                        break;
                    }
                }
            }
            return out;
        }
    }

    static final class Sql extends LoadableResource {
        private final ClassLoader cl;
        private final String file;

        Sql(ClassLoader cl, String file) {
            this.cl = cl;
            this.file = file;
        }

        @Override
        public Reader read() {
            InputStream in = cl.getResourceAsStream(LOCATION + "/" + file);
            if (in == null) {
                throw new UncheckedIOException(new IOException("migration not found on the class path: " + LOCATION + "/" + file));
            }
            return new InputStreamReader(in, StandardCharsets.UTF_8);
        }

        @Override
        public String getAbsolutePath() {
            return LOCATION + "/" + file;
        }

        @Override
        public String getAbsolutePathOnDisk() {
            return LOCATION + "/" + file;
        }

        @Override
        public String getFilename() {
            return file;
        }

        @Override
        public String getRelativePath() {
            return file;
        }
    }
}
