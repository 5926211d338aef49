package org.fleetmesh.storage.postgres.standing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import javax.sql.DataSource;

import org.fleetmesh.spi.standing.FindingRecord;
import org.fleetmesh.spi.standing.StandingBook;

/** {@link StandingBook} on the V8 schema ({@code db/fleetmesh/V8__findings.sql}); each call is one statement. */
public final class PgStandingBook implements StandingBook {
    private static final String COLUMNS = "id, event_id, event, observer, subject, subject_pubkey, severity, scope,"
            + " rule, evidence_digest, verdict, reason, self, created_at, received_at";
    /** The same columns with an empty event: standing never reads the JSON. */
    private static final String SUMMARY_COLUMNS = "id, event_id, '', observer, subject, subject_pubkey, severity,"
            + " scope, rule, evidence_digest, verdict, reason, self, created_at, received_at";
    /** The order trim drops in: what counts for nothing first, this node's own last (FindingRecord.keepRank). */
    private static final String KEEP_RANK = "case when self then 3 when verdict = 'VERIFIED' then 2"
            + " when verdict = 'ATTESTED' then 1 else 0 end";

    private final DataSource ds;

    public PgStandingBook(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    @Override
    public boolean add(FindingRecord r) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("insert into mesh_finding (event_id, event, observer, subject,"
                        + " subject_pubkey, severity, scope, rule, evidence_digest, verdict, reason, self, created_at,"
                        + " received_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                        + " on conflict (event_id) do nothing")) {
            ps.setString(1, r.eventId());
            ps.setString(2, r.event());
            ps.setString(3, r.observer());
            ps.setString(4, r.subject());
            if (r.subjectPubkey() == null) {
                ps.setNull(5, Types.VARCHAR);
            } else {
                ps.setString(5, r.subjectPubkey());
            }
            ps.setString(6, r.severity());
            ps.setString(7, r.scope());
            ps.setString(8, r.rule());
            ps.setString(9, r.evidenceDigest());
            ps.setString(10, r.verdict());
            ps.setString(11, r.reason());
            ps.setBoolean(12, r.self());
            ps.setLong(13, r.createdAt());
            ps.setLong(14, r.receivedAt());
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            throw new IllegalStateException("could not store finding " + r.eventId() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public List<FindingRecord> all(int limit) {
        return select("select " + COLUMNS + " from mesh_finding order by id desc limit ?", null, limit);
    }

    @Override
    public List<FindingRecord> summaries(int limit) {
        return select("select " + SUMMARY_COLUMNS + " from mesh_finding order by id desc limit ?",
                null, limit);
    }

    @Override
    public List<FindingRecord> about(String subject, int limit) {
        return select("select " + COLUMNS + " from mesh_finding where subject = ? order by id desc limit ?", subject,
                limit);
    }

    @Override
    public long count() {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("select count(*) from mesh_finding");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("could not count the findings: " + e.getMessage(), e);
        }
    }

    @Override
    public int trim(int keep) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("delete from mesh_finding where id in (select id from"
                        + " mesh_finding order by " + KEEP_RANK + ", id limit greatest(0,"
                        + " (select count(*) from mesh_finding) - ?))")) {
            ps.setLong(1, Math.max(0, keep));
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("could not trim the findings to " + keep + ": " + e.getMessage(), e);
        }
    }

    private List<FindingRecord> select(String sql, String subject, int limit) {
        List<FindingRecord> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            if (subject != null) {
                ps.setString(i++, subject);
            }
            ps.setInt(i, Math.max(0, limit));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new FindingRecord(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9),
                            rs.getString(10), rs.getString(11), rs.getString(12), rs.getBoolean(13), rs.getLong(14),
                            rs.getLong(15)));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the findings: " + e.getMessage(), e);
        }
        return out;
    }
}
