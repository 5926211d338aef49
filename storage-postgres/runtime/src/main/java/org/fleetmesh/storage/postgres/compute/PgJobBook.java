package org.fleetmesh.storage.postgres.compute;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import javax.sql.DataSource;

import org.fleetmesh.spi.compute.JobBook;
import org.fleetmesh.spi.compute.JobEntry;

/** {@link JobBook} on the V9 schema ({@code db/fleetmesh/V9__compute_jobs.sql}); each call is one statement. */
public final class PgJobBook implements JobBook {
    private static final String COLUMNS = "id, role, peer, request, state, price_msat, rail, invoice, payment_hash, key,"
            + " sealed, result, error, reexecution, created_at, updated_at, version";

    private final DataSource ds;

    public PgJobBook(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    @Override
    public boolean save(JobEntry e) {
        String sql = e.version() == 1
                ? "insert into compute_job (" + COLUMNS + ") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                        + " on conflict (role, id) do nothing"
                : "update compute_job set id = ?, role = ?, peer = ?, request = ?, state = ?, price_msat = ?, rail = ?,"
                        + " invoice = ?, payment_hash = ?, key = ?, sealed = ?, result = ?, error = ?, reexecution = ?,"
                        + " created_at = ?, updated_at = ?, version = ? where role = ? and id = ? and version = ?";
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            ps.setString(i++, e.id());
            ps.setString(i++, e.role().name());
            ps.setString(i++, e.peer());
            ps.setString(i++, e.request());
            ps.setString(i++, e.state());
            ps.setLong(i++, e.priceMsat());
            ps.setString(i++, e.rail());
            ps.setString(i++, e.invoice());
            ps.setString(i++, e.paymentHash());
            ps.setString(i++, e.key());
            ps.setString(i++, e.sealed());
            ps.setString(i++, e.result());
            ps.setString(i++, e.error());
            ps.setString(i++, e.reexecution());
            ps.setLong(i++, e.createdAt());
            ps.setLong(i++, e.updatedAt());
            ps.setLong(i++, e.version());
            if (e.version() > 1) {
                ps.setString(i++, e.role().name());
                ps.setString(i++, e.id());
                ps.setLong(i, e.version() - 1);
            }
            return ps.executeUpdate() == 1;
        } catch (SQLException ex) {
            throw new IllegalStateException("could not save compute job " + e.id() + ": " + ex.getMessage(), ex);
        }
    }

    @Override
    public Optional<JobEntry> find(JobEntry.Role role, String id) {
        List<JobEntry> l = select("select " + COLUMNS + " from compute_job where role = ? and id = ?", ps -> {
            ps.setString(1, role.name());
            ps.setString(2, id);
        });
        return l.isEmpty() ? Optional.empty() : Optional.of(l.get(0));
    }

    @Override
    public List<JobEntry> recent(JobEntry.Role role, int limit) {
        return select("select " + COLUMNS + " from compute_job where role = ? order by created_at desc, id limit ?",
                ps -> {
                    ps.setString(1, role.name());
                    ps.setInt(2, limit);
                });
    }

    @Override
    public List<JobEntry> inStates(JobEntry.Role role, List<String> states) {
        return select("select " + COLUMNS + " from compute_job where role = ? and state = any (?) order by updated_at",
                ps -> {
                    ps.setString(1, role.name());
                    ps.setArray(2, ps.getConnection().createArrayOf("text", states.toArray()));
                });
    }

    @Override
    public Map<String, Long> counts(JobEntry.Role role) {
        Map<String, Long> out = new TreeMap<>();
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "select state, count(*) from compute_job where role = ? group by state")) {
            ps.setString(1, role.name());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getLong(2));
                }
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("could not count compute jobs: " + ex.getMessage(), ex);
        }
        return out;
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private List<JobEntry> select(String sql, Binder b) {
        List<JobEntry> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            b.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new JobEntry(rs.getString(1), JobEntry.Role.valueOf(rs.getString(2)), rs.getString(3),
                            rs.getString(4), rs.getString(5), rs.getLong(6), rs.getString(7), rs.getString(8),
                            rs.getString(9), rs.getString(10), rs.getString(11), rs.getString(12), rs.getString(13),
                            rs.getString(14), rs.getLong(15), rs.getLong(16), rs.getLong(17)));
                }
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("could not read compute jobs: " + ex.getMessage(), ex);
        }
        return out;
    }
}
