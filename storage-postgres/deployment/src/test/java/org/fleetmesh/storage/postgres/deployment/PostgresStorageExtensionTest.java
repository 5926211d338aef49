package org.fleetmesh.storage.postgres.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Signature;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.standing.FindingRecord;
import org.fleetmesh.spi.standing.StandingBook;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.fleetmesh.storage.postgres.PostgresStorage;
import org.fleetmesh.storage.postgres.delivery.PgCustodyLedger;
import org.fleetmesh.storage.postgres.standing.PgStandingBook;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/**
 * Boots a Quarkus application with the extension: the EventStore bean starts the embedded cluster
 * in the configured data dir and Flyway finds the migrations inside Quarkus's class loader.
 */
class PostgresStorageExtensionTest {
    static final Path DATA = Path.of("target", "quarkus-test-data-" + UUID.randomUUID()).toAbsolutePath();

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("fleetmesh.data-dir", DATA.toString())
            .overrideConfigKey("fleetmesh.storage.pool-size", "3");

    @Inject
    EventStore store;

    @Inject
    PostgresStorage storage;

    @Inject
    CustodyLedger custody;

    @Inject
    StandingBook findings;

    @Test
    void theStandingBookIsKeptInTheSameDatabase() {
        // the adapter's book replaces the core's in-memory default bean
        assertTrue(findings instanceof PgStandingBook, findings.getClass().getName());
        String id = UUID.randomUUID().toString();
        assertTrue(findings.add(new FindingRecord(0, id, "{}", "did:peer:4zQmObserver", "did:peer:4zQmQuarkus", null,
                "S2", "transit", "custody-fork", "00".repeat(32), "VERIFIED", "", true, 1_700_000_000L, 1)));
        assertEquals(id, new PgStandingBook(storage.dataSource()).about("did:peer:4zQmQuarkus", 1).get(0).eventId());
    }

    @Test
    void theCustodyLedgerIsKeptInTheSameDatabase() {
        assertTrue(custody instanceof PgCustodyLedger, custody.getClass().getName());
        byte[] id = new byte[32];
        new SecureRandom().nextBytes(id);
        custody.append(List.of(new CustodyLedger.Append(CustodyLedger.Side.RECEIVED, "did:peer:4zQmQuarkus",
                List.of(new CustodyLedger.Leaf(0, new EventId(id), 10, 0)),
                new CustodyLedger.Receipt(0, 1, 1, new EventId(id), "{}", 10, 1, List.of(), List.of(new byte[32])),
                java.util.Optional.empty())));
        assertEquals(1, new PgCustodyLedger(storage.dataSource()).head(CustodyLedger.Side.RECEIVED, "did:peer:4zQmQuarkus")
                .orElseThrow().treeSize());
    }

    @Test
    void storesThroughTheProducedBean() {
        SecureRandom rnd = new SecureRandom();
        byte[] id = new byte[32];
        byte[] pk = new byte[32];
        byte[] sig = new byte[64];
        rnd.nextBytes(id);
        rnd.nextBytes(pk);
        rnd.nextBytes(sig);
        Event e = new Event(new EventId(id), new PubKey(pk), 1_700_000_000L, 1, List.of(List.of("t", "quarkus")),
                "hello from Quarkus", new Signature(sig));
        assertEquals(List.of(SaveOutcome.STORED), store.save(List.of(e)));
        List<String> got = new ArrayList<>();
        store.query(new Filter(null, null, null, Map.of("t", Set.of("quarkus")), null, null, 10), 1_700_000_000L,
                (i, json) -> got.add(json));
        assertEquals(List.of(e.json()), got);
        assertTrue(store.isHealthy());
        assertTrue(storage.cluster().isPresent(), "no JDBC URL configured: embedded cluster");
        // (DATA is computed again when Quarkus reloads this class: read back the configured value)
        Path configured = Path.of(ConfigProvider.getConfig().getValue("fleetmesh.data-dir", String.class));
        assertEquals(configured, storage.cluster().get().dataDir());
        assertTrue(Files.exists(configured.resolve("pg").resolve("PG_VERSION")), "cluster in the configured data dir");
    }
}
