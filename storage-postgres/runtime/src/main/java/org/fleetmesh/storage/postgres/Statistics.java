package org.fleetmesh.storage.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.jboss.logging.Logger;

/**
 * The planner's statistics, brought up to date when a store opens. Autovacuum analyzes a table once its changes pass
 * {@code 50 + 10 %} of its rows, but only at its next round (a minute apart), and PostgreSQL 14 forgets the change
 * counters on a crash. Until then the planner believes a table that a bulk ingest, a restore or a resync filled is
 * still empty, and picks plans for that: measured on 200,000 events, a REQ by one author took 165–240 ms (a backward
 * walk of the {@code created_at} index filtering 184,000 rows) against 2.7 ms once analyzed.
 *
 * <p>A table is analyzed here when autovacuum would do it at its next round ({@code n_mod_since_analyze} past the
 * threshold), or when it holds pages but its statistics say it had none or never counted it (what a crash before
 * autovacuum came round leaves). {@code ANALYZE} samples at most 30,000 rows whatever the size of the table, so this
 * costs well under a second; it runs on its own thread, after the store has opened.
 */
final class Statistics {
    private static final Logger LOG = Logger.getLogger(Statistics.class);

    /** Autovacuum's defaults: {@code autovacuum_analyze_threshold} and {@code autovacuum_analyze_scale_factor}. */
    static final String STALE = """
            select c.relname
              from pg_class c
              join pg_namespace n on n.oid = c.relnamespace
              left join pg_stat_user_tables s on s.relid = c.oid
             where n.nspname = current_schema() and c.relkind = 'r'
               and (coalesce(s.n_mod_since_analyze, 0) > 50 + 0.1 * greatest(c.reltuples, 0)
                    or (c.reltuples <= 0 and pg_relation_size(c.oid) >= 8 * current_setting('block_size')::int))
             order by pg_relation_size(c.oid) desc""";

    private Statistics() {
    }

    /** The tables of the current schema whose statistics are stale, largest first. */
    static List<String> stale(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(STALE)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** Analyzes every stale table; returns their names. */
    static List<String> refresh(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection()) {
            List<String> tables = stale(c);
            for (String t : tables) {
                long started = System.nanoTime();
                try (Statement s = c.createStatement()) {
                    s.execute("analyze " + quote(t));
                }
                LOG.infof("planner statistics of %s were stale (a bulk load, a restore or a crash since the last analyze):"
                        + " analyzed in %d ms", t, (System.nanoTime() - started) / 1_000_000);
            }
            return tables;
        }
    }

    /** {@link #refresh} on a daemon thread; a failure (the store closing under it) is logged, never thrown. */
    static Thread refreshInBackground(DataSource ds) {
        Thread t = new Thread(() -> {
            try {
                refresh(ds);
            } catch (SQLException | RuntimeException e) {
                LOG.debugf("refreshing planner statistics: %s", e.toString());
            }
        }, "fleetmesh-analyze");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }
}
