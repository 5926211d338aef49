package org.fleetmesh.storage.postgres.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.fleetmesh.spi.compute.JobBook;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.settlement.LedgerStore;
import org.fleetmesh.spi.settlement.cashu.CashuStore;
import org.fleetmesh.storage.postgres.compute.PgJobBook;
import org.fleetmesh.storage.postgres.ledger.PgLedgerStore;
import org.fleetmesh.spi.peers.LinkLedger;
import org.fleetmesh.spi.peers.PeerStore;
import org.fleetmesh.spi.shards.ShardBook;
import org.fleetmesh.spi.standing.StandingBook;
import org.fleetmesh.storage.postgres.PostgresStorage;
import org.fleetmesh.storage.postgres.cashu.PgCashuStore;
import org.fleetmesh.storage.postgres.delivery.PgCustodyLedger;
import org.fleetmesh.storage.postgres.peers.PgLinkLedger;
import org.fleetmesh.storage.postgres.peers.PgPeerStore;
import org.fleetmesh.storage.postgres.shards.PgShardBook;
import org.fleetmesh.storage.postgres.standing.PgStandingBook;

/**
 * CDI: produces the node's {@link org.fleetmesh.spi.storage.EventStore} (the bean's types are
 * {@link PostgresStorage}, {@code EventStore}, {@code AutoCloseable}), opened from configuration on
 * first use (see {@link PostgresStorage} for the keys) and closed, with the embedded cluster, at
 * shutdown; and the {@link PeerStore}, {@link LinkLedger}, {@link CustodyLedger}, {@link ShardBook},
 * {@link StandingBook}, {@link LedgerStore}, {@link JobBook} and {@link CashuStore} on the same database.
 */
@ApplicationScoped
public class PostgresStorageProducer {

    @Produces
    @Singleton
    PostgresStorage storage() {
        return EarlyStorage.take(); // opened in the background since runtime init (EarlyStorageRecorder)
    }

    /** The link ledger (tiers, strain, quarantines, evidence) in the same database. */
    @Produces
    @Singleton
    LinkLedger linkLedger(PostgresStorage storage) {
        return new PgLinkLedger(storage.dataSource());
    }

    /** The custody ledger (Merkle trees, receipt chains, outbound cursors) in the same database. */
    @Produces
    @Singleton
    CustodyLedger custodyLedger(PostgresStorage storage) {
        return new PgCustodyLedger(storage.dataSource());
    }

    void close(@Disposes PostgresStorage storage) {
        storage.close();
    }

    @Produces
    @Singleton
    PeerStore peers(PostgresStorage storage) {
        return new PgPeerStore(storage.dataSource());
    }

    /** The declared shards in the same database. */
    @Produces
    @Singleton
    ShardBook shards(PostgresStorage storage) {
        return new PgShardBook(storage.dataSource());
    }

    /** The recorded findings and their verdicts in the same database. */
    @Produces
    @Singleton
    StandingBook findings(PostgresStorage storage) {
        return new PgStandingBook(storage.dataSource());
    }

    @Produces
    @Singleton
    LedgerStore ledger(PostgresStorage storage) {
        return new PgLedgerStore(storage.dataSource());
    }

    @Produces
    @Singleton
    JobBook jobs(PostgresStorage storage) {
        return new PgJobBook(storage.dataSource());
    }

    /** The Cashu wallet's proofs, operations, counters and keysets in the same database. */
    @Produces
    @Singleton
    CashuStore cashu(PostgresStorage storage) {
        return new PgCashuStore(storage.dataSource());
    }
}
