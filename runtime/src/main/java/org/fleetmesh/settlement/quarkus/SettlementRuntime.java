package org.fleetmesh.settlement.quarkus;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * the configured rails (every {@link SettlementRail} bean: the LND rail with {@code fleetmesh.lightning.enabled=true},
 * Cashu rails), keyed by {@link SettlementRail#id()} in the order of {@code fleetmesh.settlement.rails}, and one
 * {@link EscrowAgent} per rail. Whoever sells (the compute market) listens to the escrows' steps.
 */
@ApplicationScoped
public class SettlementRuntime {
    private static final Logger LOG = Logger.getLogger(SettlementRuntime.class);

    @Inject
    LedgerStore ledger;

    @Inject
    Instance<SettlementRail> railBeans;

    /** Rail ids or id prefixes (e.g. {@code ln,cashu}), most preferred first; the rest follow by id. */
    @ConfigProperty(name = "fleetmesh.settlement.rails")
    Optional<List<String>> preference;

    @ConfigProperty(name = "fleetmesh.compute.market.invoice-expiry", defaultValue = "10m")
    Duration invoiceExpiry;

    private final List<Consumer<Escrow>> listeners = new CopyOnWriteArrayList<>();
    private volatile EscrowBook book;
    private volatile Map<String, SettlementRail> rails;
    private volatile Map<String, EscrowAgent> agents;

    public LedgerStore ledger() {
        return ledger;
    }

    public synchronized EscrowBook book() {
        if (book == null) {
            book = new EscrowBook(ledger, Clock.systemUTC());
        }
        return book;
    }

    /**
     * Every rail that could be made, by id, preferred first (made once: a rail bean whose creation fails is logged
     * and left out, as is a second rail with an id already taken).
     */
    public synchronized Map<String, SettlementRail> rails() {
        if (rails == null) {
            List<SettlementRail> made = new ArrayList<>();
            for (Instance.Handle<SettlementRail> h : railBeans.handles()) {
                try {
                    SettlementRail r = h.get();
                    r.id(); // a client proxy makes the bean here
                    made.add(r);
                } catch (RuntimeException e) {
                    LOG.errorf("a settlement rail (%s) could not be made: %s", h.getBean().getBeanClass().getName(),
                            e.getMessage());
                }
            }
            rails = ordered(made, preference.orElse(List.of()));
        }
        return rails;
    }

    /**
     * {@code made} keyed by id: those matching an entry of {@code preference} first, in its order (an entry matches
     * the id it equals, and the ids it is a prefix of up to a {@code ':'}: {@code cashu} matches
     * {@code cashu:https://mint}), then by id; a repeated id keeps the first rail.
     */
    static Map<String, SettlementRail> ordered(Collection<SettlementRail> made, List<String> preference) {
        List<SettlementRail> sorted = new ArrayList<>(made);
        sorted.sort(Comparator.comparingInt((SettlementRail r) -> rank(r.id(), preference))
                .thenComparing(SettlementRail::id));
        Map<String, SettlementRail> out = new LinkedHashMap<>();
        for (SettlementRail r : sorted) {
            if (out.putIfAbsent(r.id(), r) != null) {
                LOG.errorf("two settlement rails have the id %s; only the first is used", r.id());
            }
        }
        return Collections.unmodifiableMap(out);
    }

    private static int rank(String id, List<String> preference) {
        for (int i = 0; i < preference.size(); i++) {
            String p = preference.get(i).trim();
            if (!p.isEmpty() && (id.equals(p) || id.startsWith(p)
                    && (p.endsWith(":") || id.charAt(p.length()) == ':'))) {
                return i;
            }
        }
        return preference.size();
    }

    /** The rail with this id, when it is configured. */
    public Optional<SettlementRail> rail(String id) {
        return Optional.ofNullable(rails().get(id));
    }

    /** The preferred rail (the first of {@link #rails()}), when one is configured. */
    public Optional<SettlementRail> rail() {
        return rails().values().stream().findFirst();
    }

    /** One escrow agent per rail, keyed like {@link #rails()}. */
    public synchronized Map<String, EscrowAgent> agents() {
        if (agents == null) {
            Map<String, EscrowAgent> m = new LinkedHashMap<>();
            for (SettlementRail r : rails().values()) {
                m.put(r.id(), new EscrowAgent(book(), r, invoiceExpiry, this::changed));
            }
            agents = Collections.unmodifiableMap(m);
        }
        return agents;
    }

    /** The escrow agent over the rail with this id, when it is configured. */
    public Optional<EscrowAgent> agent(String railId) {
        return Optional.ofNullable(agents().get(railId));
    }

    /** The escrow agent over the preferred rail, when there is one. */
    public Optional<EscrowAgent> agent() {
        return agents().values().stream().findFirst();
    }

    /** Tells {@code l} of every step the rails' reports move an escrow to (on the rail's thread). */
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

    /**
     * Finishes what the ledger recorded but a rail may not have done (at start): every escrow on the agent of its own
     * rail; one whose rail is not configured now is reported with an error.
     */
    public List<EscrowAgent.Resumed> resume(Function<PaymentHash, Optional<Preimage>> keys) {
        return EscrowAgent.resumeAll(book(), agents(), keys);
    }

    /**
     * Records the rails' reports the ledger could not record when they came (its store failing), on every agent; the
     * caller runs it now and then (the compute market's release retry). Returns how many were tried.
     */
    public int retryUnrecorded() {
        int n = 0;
        for (EscrowAgent a : agents().values()) {
            n += a.retryUnrecorded();
        }
        return n;
    }
}
