package org.fleetmesh.storage.postgres.peers;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import javax.sql.DataSource;

import org.fleetmesh.spi.peers.Evidence;
import org.fleetmesh.spi.peers.LinkLedger;
import org.fleetmesh.spi.peers.PeerRecord;

/** {@link LinkLedger} on the V4 schema ({@code db/fleetmesh/V4__link_ledger.sql}); each call is one statement. */
public final class PgLinkLedger implements LinkLedger {
    private final DataSource ds;

    public PgLinkLedger(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    @Override
    public Optional<PeerRecord> load(String peer) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("select tier, clean_streak, violations, quarantined_until,"
                        + " in_bytes, in_events, in_verify_ns, in_query_ns, out_bytes, out_events, out_verify_ns,"
                        + " out_query_ns, strain_at from link_peer where peer = ?")) {
            ps.setString(1, peer);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                PeerRecord.Strain strain = new PeerRecord.Strain(rs.getLong(5), rs.getLong(6), rs.getLong(7),
                        rs.getLong(8), rs.getLong(9), rs.getLong(10), rs.getLong(11), rs.getLong(12));
                return Optional.of(new PeerRecord(peer, rs.getInt(1), rs.getInt(2), rs.getLong(3), rs.getLong(4),
                        strain, rs.getLong(13)));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the link record of " + peer + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void save(PeerRecord r) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("insert into link_peer (peer, tier, clean_streak, violations,"
                        + " quarantined_until, in_bytes, in_events, in_verify_ns, in_query_ns, out_bytes, out_events,"
                        + " out_verify_ns, out_query_ns, strain_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                        + " on conflict (peer) do update set tier = excluded.tier, clean_streak = excluded.clean_streak,"
                        + " violations = excluded.violations, quarantined_until = excluded.quarantined_until,"
                        + " in_bytes = excluded.in_bytes, in_events = excluded.in_events,"
                        + " in_verify_ns = excluded.in_verify_ns, in_query_ns = excluded.in_query_ns,"
                        + " out_bytes = excluded.out_bytes, out_events = excluded.out_events,"
                        + " out_verify_ns = excluded.out_verify_ns, out_query_ns = excluded.out_query_ns,"
                        + " strain_at = excluded.strain_at")) {
            PeerRecord.Strain s = r.strain();
            ps.setString(1, r.peer());
            ps.setInt(2, r.tier());
            ps.setInt(3, r.cleanStreak());
            ps.setLong(4, r.violations());
            ps.setLong(5, r.quarantinedUntil());
            ps.setLong(6, s.inBytes());
            ps.setLong(7, s.inEvents());
            ps.setLong(8, s.inVerifyNanos());
            ps.setLong(9, s.inQueryNanos());
            ps.setLong(10, s.outBytes());
            ps.setLong(11, s.outEvents());
            ps.setLong(12, s.outVerifyNanos());
            ps.setLong(13, s.outQueryNanos());
            ps.setLong(14, r.strainAt());
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("could not write the link record of " + r.peer() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public long addEvidence(Evidence e) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("insert into link_evidence (peer, severity, reason, violations,"
                        + " period_start, at, quarantined_until, grant_id, grant_event, detail)"
                        + " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, e.peer());
            ps.setString(2, e.severity());
            ps.setString(3, e.reason());
            ps.setInt(4, e.violations());
            ps.setLong(5, e.periodStart());
            ps.setLong(6, e.at());
            ps.setLong(7, e.quarantinedUntil());
            ps.setString(8, e.grantId());
            ps.setString(9, e.grant());
            ps.setString(10, e.detail());
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                keys.next();
                return keys.getLong(1);
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("could not store evidence about " + e.peer() + ": " + ex.getMessage(), ex);
        }
    }

    @Override
    public List<Evidence> evidence(String peer, int limit) {
        List<Evidence> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("select id, severity, reason, violations, period_start, at,"
                        + " quarantined_until, grant_id, grant_event, detail from link_evidence where peer = ?"
                        + " order by id limit ?")) {
            ps.setString(1, peer);
            ps.setInt(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Evidence(rs.getLong(1), peer, rs.getString(2), rs.getString(3), rs.getInt(4),
                            rs.getLong(5), rs.getLong(6), rs.getLong(7), rs.getString(8), rs.getString(9),
                            rs.getString(10)));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not read evidence about " + peer + ": " + e.getMessage(), e);
        }
        return out;
    }
}
