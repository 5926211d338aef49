package org.fleetmesh.settlement.quarkus;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.fleetmesh.settlement.EscrowAgent;
import org.fleetmesh.settlement.EscrowBook;
import org.fleetmesh.spi.settlement.Escrow;
import org.fleetmesh.spi.settlement.LedgerStore;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementRail;
import org.jboss.logging.Logger;

import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The node's settlement: the ledger ({@link LedgerStore} bean: memory, or the database's), the escrow book over it,
 * and, when a rail is configured (the LND rail with {@code fleetmesh.lightning.enabled=true}), the {@link EscrowAgent}
 * that drives it. Whoever sells (the compute market) listens to the escrows' steps.
 */
@ApplicationScoped
public class SettlementRuntime {
    private static final Logger LOG = Logger.getLogger(SettlementRuntime.class);

    @Inject
    LedgerStore ledger;

    @Inject
    Instance<SettlementRail> rails;

    @ConfigProperty(name = "fleetmesh.compute.market.invoice-expiry", defaultValue = "10m")
    Duration invoiceExpiry;

    private final List<Consumer<Escrow>> listeners = new CopyOnWriteArrayList<>();
    private volatile EscrowBook book;
    private volatile Optional<EscrowAgent> agent;

    public LedgerStore ledger() {
        return ledger;
    }

    public synchronized EscrowBook book() {
        if (book == null) {
            book = new EscrowBook(ledger, Clock.systemUTC());
        }
        return book;
    }

    /** The rail, when one is configured. */
    public Optional<SettlementRail> rail() {
        if (rails.isUnsatisfied()) {
            return Optional.empty();
        }
        try {
            return Optional.of(rails.get());
        } catch (RuntimeException e) {
            LOG.errorf("the settlement rail could not be made: %s", e.getMessage());
            return Optional.empty();
        }
    }

    /** The escrow agent over the rail, when there is one. */
    public synchronized Optional<EscrowAgent> agent() {
        if (agent == null) {
            agent = rail().map(r -> new EscrowAgent(book(), r, invoiceExpiry, this::changed));
        }
        return agent;
    }

    /** Tells {@code l} of every step the rail's reports move an escrow to (on the rail's thread). */
    public void listen(Consumer<Escrow> l) {
        listeners.add(l);
    }

    private void changed(Escrow e) {
        for (Consumer<Escrow> l : listeners) {
            try {
                l.accept(e);
            } catch (RuntimeException ex) {
                LOG.errorf(ex, "an escrow listener failed on %s", e.paymentHash());
            }
        }
    }

    /** Finishes what the ledger recorded but the rail may not have done (at start). */
    public List<EscrowAgent.Resumed> resume(Function<PaymentHash, Optional<Preimage>> keys) {
        return agent().map(a -> a.resume(keys)).orElse(List.of());
    }
}
