package org.fleetmesh.peering.quarkus;

import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;

import org.fleetmesh.spi.peers.Evidence;
import org.fleetmesh.spi.peers.LinkLedger;
import org.fleetmesh.spi.peers.PeerRecord;
import org.jboss.logging.Logger;

/**
 * The node's {@link LinkLedger} as its mechanisms write it (link budgets, custody, sampling): each evidence record,
 * once stored, is also fired as a CDI event with its id, so that standing can turn it into a signed finding. Typed to
 * itself only: the storage adapter's ledger stays the one {@code LinkLedger} bean.
 */
@ApplicationScoped
@Typed(EvidenceLedger.class)
public class EvidenceLedger implements LinkLedger {
    private static final Logger LOG = Logger.getLogger(EvidenceLedger.class);

    @Inject
    LinkLedger ledger;

    @Inject
    Event<Evidence> recorded;

    @Override
    public Optional<PeerRecord> load(String peer) {
        return ledger.load(peer);
    }

    @Override
    public void save(PeerRecord record) {
        ledger.save(record);
    }

    @Override
    public long addEvidence(Evidence evidence) {
        long id = ledger.addEvidence(evidence);
        try {
            recorded.fire(evidence.withId(id));
        } catch (RuntimeException e) {
            // the record is stored; only the finding is missing
            LOG.warnf("an observer of the evidence about %s failed: %s", evidence.peer(), e.toString());
        }
        return id;
    }

    @Override
    public List<Evidence> evidence(String peer, int limit) {
        return ledger.evidence(peer, limit);
    }
}
