package org.fleetmesh.storage.postgres.peers;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import javax.sql.DataSource;

import org.fleetmesh.spi.peers.PeerStore;

/** {@link PeerStore} on the V3 and V6 schema ({@code db/fleetmesh/V3__peers.sql}, {@code V6__peer_federate.sql}, {@code V12__peer_rotation.sql}; run {@code Migrations.migrate} first). */
public final class PgPeerStore implements PeerStore {
    private static final String COLUMNS = "peer_key, did, url, configured_url, source, added_at, announced_at, federate";

    private final DataSource ds;

    public PgPeerStore(DataSource ds) {
        this.ds = Objects.requireNonNull(ds, "ds");
    }

    @Override
    public List<StoredPeer> all() {
        try (Connection c = ds.getConnection();
                PreparedStatement s = c.prepareStatement("select " + COLUMNS + " from mesh_peer order by added_at, peer_key")) {
            List<StoredPeer> out = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(row(r));
                }
            }
            return out;
        } catch (SQLException e) {
            throw failed("list", e);
        }
    }

    @Override
    public Optional<StoredPeer> find(String key) {
        try (Connection c = ds.getConnection()) {
            return find(c, key);
        } catch (SQLException e) {
            throw failed("find " + key, e);
        }
    }

    @Override
    public StoredPeer declare(String key, String did, String configuredUrl, Source source, Instant now) {
        // one statement: a changed configured URL replaces both URLs; the same one keeps a URL learnt since
        String sql = "insert into mesh_peer (" + COLUMNS + ") values (?, ?, ?, ?, ?, ?, null, null) "
                + "on conflict (peer_key) do update set did = excluded.did, source = excluded.source, "
                + "url = case when mesh_peer.configured_url = excluded.configured_url then mesh_peer.url else excluded.url end, "
                + "announced_at = case when mesh_peer.configured_url = excluded.configured_url then mesh_peer.announced_at else null end, "
                + "configured_url = excluded.configured_url "
                + "returning " + COLUMNS;
        try (Connection c = ds.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, key);
            s.setString(2, did);
            s.setString(3, configuredUrl);
            s.setString(4, configuredUrl);
            s.setString(5, source.word());
            s.setLong(6, now.toEpochMilli());
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return row(r);
            }
        } catch (SQLException e) {
            throw failed("declare " + key, e);
        }
    }

    @Override
    public boolean remove(String key) {
        try (Connection c = ds.getConnection(); PreparedStatement s = c.prepareStatement("delete from mesh_peer where peer_key = ?")) {
            s.setString(1, key);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw failed("remove " + key, e);
        }
    }

    @Override
    public boolean federate(String key, Optional<String> filters) {
        try (Connection c = ds.getConnection();
                PreparedStatement s = c.prepareStatement("update mesh_peer set federate = ? where peer_key = ?")) {
            s.setString(1, filters.orElse(null));
            s.setString(2, key);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw failed("federate " + key, e);
        }
    }

    @Override
    public boolean moved(String key, String url, long announcedAt) {
        String sql = "update mesh_peer set url = ?, announced_at = ? where peer_key = ? "
                + "and (announced_at is null or announced_at < ?)";
        try (Connection c = ds.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, url);
            s.setLong(2, announcedAt);
            s.setString(3, key);
            s.setLong(4, announcedAt);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw failed("moved " + key, e);
        }
    }

    @Override
    public boolean rotate(Rotation r) {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                boolean recorded;
                try (PreparedStatement s = c.prepareStatement("insert into mesh_peer_rotation (old_key, new_key, new_did, "
                        + "handover, issued_at, recorded_at) values (?, ?, ?, ?, ?, ?) on conflict (old_key) do nothing")) {
                    s.setString(1, r.oldKey());
                    s.setString(2, r.newKey());
                    s.setString(3, r.newDid());
                    s.setString(4, r.handover());
                    s.setLong(5, r.issuedAt());
                    s.setLong(6, r.recorded().toEpochMilli());
                    recorded = s.executeUpdate() == 1;
                }
                if (recorded) {
                    try (PreparedStatement s = c.prepareStatement("insert into mesh_peer (" + COLUMNS + ") select ?, ?, "
                            + "url, configured_url, source, added_at, announced_at, federate from mesh_peer where peer_key = ? "
                            + "on conflict (peer_key) do nothing")) {
                        s.setString(1, r.newKey());
                        s.setString(2, r.newDid());
                        s.setString(3, r.oldKey());
                        s.executeUpdate();
                    }
                    try (PreparedStatement s = c.prepareStatement("delete from mesh_peer where peer_key = ?")) {
                        s.setString(1, r.oldKey());
                        s.executeUpdate();
                    }
                }
                c.commit();
                return recorded;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw failed("rotate " + r.oldKey(), e);
        }
    }

    @Override
    public List<Rotation> rotations() {
        try (Connection c = ds.getConnection(); PreparedStatement s = c.prepareStatement("select old_key, new_key, new_did, "
                + "handover, issued_at, recorded_at from mesh_peer_rotation order by recorded_at, old_key")) {
            List<Rotation> out = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(new Rotation(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getLong(5),
                            Instant.ofEpochMilli(r.getLong(6))));
                }
            }
            return out;
        } catch (SQLException e) {
            throw failed("rotations", e);
        }
    }

    private static Optional<StoredPeer> find(Connection c, String key) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("select " + COLUMNS + " from mesh_peer where peer_key = ?")) {
            s.setString(1, key);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(row(r)) : Optional.empty();
            }
        }
    }

    private static StoredPeer row(ResultSet r) throws SQLException {
        long announced = r.getLong(7);
        Optional<Long> announcedAt = r.wasNull() ? Optional.empty() : Optional.of(announced);
        return new StoredPeer(r.getString(1), r.getString(2), r.getString(3), r.getString(4),
                Source.of(r.getString(5)), Instant.ofEpochMilli(r.getLong(6)), announcedAt,
                Optional.ofNullable(r.getString(8)));
    }

    private static IllegalStateException failed(String what, SQLException e) {
        return new IllegalStateException("peer store: " + what + " failed: " + e.getMessage(), e);
    }
}
