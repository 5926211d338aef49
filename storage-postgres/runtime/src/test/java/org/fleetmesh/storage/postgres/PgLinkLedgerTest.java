package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.fleetmesh.spi.peers.Evidence;
import org.fleetmesh.spi.peers.PeerRecord;
import org.fleetmesh.storage.postgres.peers.PgLinkLedger;
import org.junit.jupiter.api.Test;

class PgLinkLedgerTest extends PgFixture {

    @Test
    void aRecordIsWrittenOverAndReadBack() {
        PgLinkLedger ledger = new PgLinkLedger(store.dataSource());
        assertTrue(ledger.load("did:peer:4zQmNew").isEmpty());
        PeerRecord first = new PeerRecord("did:peer:4zQmA", 0, 3, 1, 0, PeerRecord.Strain.ZERO, 1000);
        ledger.save(first);
        assertEquals(first, ledger.load("did:peer:4zQmA").orElseThrow());
        PeerRecord later = new PeerRecord("did:peer:4zQmA", 2, 0, 17, 99_000,
                new PeerRecord.Strain(1, 2, 3, 4, 5, 6, 7, Long.MAX_VALUE), 2000);
        ledger.save(later);
        assertEquals(later, ledger.load("did:peer:4zQmA").orElseThrow());
    }

    @Test
    void evidenceIsAppendedAndListedOldestFirstPerPeer() {
        PgLinkLedger ledger = new PgLinkLedger(store.dataSource());
        Evidence a = new Evidence(0, "did:peer:4zQmE", "S3", "quarantined: 16 violations in 60 s", 16, 10, 20, 3_600_020,
                "ab", "{\"kind\":30801}", "{\"refused_frames\":16}");
        long id1 = ledger.addEvidence(a);
        long id2 = ledger.addEvidence(a);
        ledger.addEvidence(new Evidence(0, "did:peer:4zQmOther", "S3", "x", 1, 1, 1, 1, "", "", "{}"));
        List<Evidence> got = ledger.evidence("did:peer:4zQmE", 10);
        assertEquals(List.of(a.withId(id1), a.withId(id2)), got);
        assertEquals(1, ledger.evidence("did:peer:4zQmE", 1).size());
    }
}
