package org.fleetmesh.storage.postgres.shards;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

import javax.sql.DataSource;

import org.fleetmesh.spi.shards.ShardBook;

/** {@link ShardBook} on the V7 schema ({@code db/fleetmesh/V7__shards.sql}; run {@code Migrations.migrate} first). */
public final class PgShardBook implements ShardBook {
    private final DataSource ds;
    private final LongSupplier nowSeconds;

    public PgShardBook(DataSource ds) {
        this(ds, () -> System.currentTimeMillis() / 1000);
    }

    public PgShardBook(DataSource ds, LongSupplier nowSeconds) {
        this.ds = Objects.requireNonNull(ds, "ds");
        this.nowSeconds = nowSeconds;
    }

    @Override
    public List<StoredShard> all() {
        List<StoredShard> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "select shard_id, filter, mode, source, added_at from mesh_shard order by added_at, shard_id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new StoredShard(rs.getString(1), rs.getString(2), rs.getString(3), Source.of(rs.getString(4)),
                        rs.getLong(5)));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the declared shards: " + e.getMessage(), e);
        }
        return out;
    }

    @Override
    public boolean put(String id, String canonicalFilterJson, String mode, Source source) {
        // xmax = 0 only on a row this statement inserted: tells a new declaration from a replaced one in one round trip
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("insert into mesh_shard (shard_id, filter, mode, source, added_at)"
                        + " values (?, ?, ?, ?, ?) on conflict (shard_id) do update set filter = excluded.filter,"
                        + " mode = excluded.mode, source = excluded.source returning (xmax = 0)")) {
            ps.setString(1, id);
            ps.setString(2, canonicalFilterJson);
            ps.setString(3, mode);
            ps.setString(4, source.word());
            ps.setLong(5, nowSeconds.getAsLong());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not store shard " + id + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean remove(String id) {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("delete from mesh_shard where shard_id = ?")) {
            ps.setString(1, id);
            return ps.executeUpdate() > 0;
        } catch (SQLException e) {
            throw new IllegalStateException("could not remove shard " + id + ": " + e.getMessage(), e);
        }
    }
}
