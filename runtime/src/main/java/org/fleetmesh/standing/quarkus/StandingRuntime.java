package org.fleetmesh.standing.quarkus;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.peering.link.EventLinks;
import org.fleetmesh.peering.quarkus.GrantedLinkSessions;
import org.fleetmesh.spi.schedule.Repeating;
import org.fleetmesh.spi.standing.FindingRecord;
import org.fleetmesh.spi.standing.StandingBook;
import org.fleetmesh.standing.Action;
import org.fleetmesh.standing.Enforcement;
import org.fleetmesh.standing.Standing;
import org.fleetmesh.standing.StandingPolicy;
import org.fleetmesh.standing.Views;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/**
 * This node's views of every subject (docs/spec/standing.md): recomputed from the standing book every
 * {@code recompute-interval} and soon after a finding that counts, with the node's own policy; each linked peer's
 * {@code view_transit} then drives its actions (demote, suspend, quarantine) through the event links. Compute views
 * drive nothing yet. One thread of its own: a recompute reads at most {@code max-findings} records.
 */
@ApplicationScoped
public class StandingRuntime {
    private static final Logger LOG = Logger.getLogger(StandingRuntime.class);
    /** How soon after a counted finding the views are recomputed (findings arriving together share it). */
    private static final long SOON_MILLIS = 200;

    @Inject
    StandingConfig config;

    @Inject
    StandingBook book;

    @Inject
    GrantedLinkSessions sessions;

    @Inject
    NodeIdentity identity;

    private final Enforcement enforcement = new Enforcement(10_000);
    private final AtomicBoolean soon = new AtomicBoolean();
    private volatile StandingPolicy policy;
    private volatile Views views = Views.NONE;
    private volatile String self;
    private ScheduledExecutorService clock;

    /** Checks the policy (a bad setting stops the start with its reason), then recomputes on a clock. */
    void onStart(@Observes StartupEvent e) {
        StandingPolicy p = policy();
        long every = Math.max(100, config.recomputeInterval().toMillis());
        clock = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleetmesh-standing");
            t.setDaemon(true);
            return t;
        });
        clock.scheduleWithFixedDelay(Repeating.surviving("recomputing the standing views", this::recompute), every, every, TimeUnit.MILLISECONDS);
        LOG.infof("standing: S1/S2/S3 weigh %s/%s/%s, self %s, peers %s, attested %s; half life %s; demote below %s,"
                + " suspend below %s, quarantine below %s; observers from tier %d", p.s1(), p.s2(), p.s3(), p.self(),
                p.peer(), p.attested(), p.halfLife(), p.demoteBelow(), p.suspendBelow(), p.quarantineBelow(),
                p.minObserverTier());
    }

    /** The node's policy from {@code fleetmesh.standing.*}. */
    public StandingPolicy policy() {
        StandingPolicy p = policy;
        if (p == null) {
            StandingConfig.Weight w = config.weight();
            try {
                p = new StandingPolicy(w.s1(), w.s2(), w.s3(), w.self(), w.peer(), w.attested(),
                        config.minObserverTier(), config.halfLife(), config.demoteBelow(), config.suspendBelow(),
                        config.quarantineBelow(), config.iterations());
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("fleetmesh.standing: " + ex.getMessage(), ex);
            }
            if (config.maxFindings() < 1) {
                throw new IllegalArgumentException("fleetmesh.standing.max-findings is at least 1");
            }
            policy = p;
        }
        return p;
    }

    /** A finding that counts was recorded: the views are recomputed soon. */
    public void changed() {
        ScheduledExecutorService c = clock;
        if (c != null && soon.compareAndSet(false, true)) {
            try {
                c.schedule(() -> {
                    soon.set(false);
                    recompute();
                }, SOON_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) {
                soon.set(false); // stopping
            }
        }
    }

    /** The views from the book as it is now (not acted on). */
    public Views current() {
        List<FindingRecord> records = book.summaries(config.maxFindings()); // the views need no event JSON
        return Standing.compute(records, policy(), this::tier, System.currentTimeMillis());
    }

    /** The views of the last recompute. */
    public Views views() {
        return views;
    }

    /** The peer's two views, for its {@code /mesh/status} entry. */
    public void describe(String peer, Map<String, Object> into) {
        Views v = views;
        into.put("view_transit", v.transit(peer));
        into.put("view_compute", v.compute(peer));
    }

    /** Trims the book, recomputes the views, and acts on every peer whose action changed. */
    void recompute() {
        try {
            int dropped = book.trim(config.maxFindings());
            if (dropped > 0) {
                LOG.debugf("standing: %d findings that count for nothing dropped (max-findings %d)", dropped,
                        config.maxFindings());
            }
            Views v = current();
            views = v;
            act(v);
        } catch (RuntimeException e) {
            LOG.error("recomputing the views failed", e);
        }
    }

    private void act(Views v) {
        EventLinks links = sessions.links();
        StandingPolicy p = policy();
        Set<String> peers = new TreeSet<>(v.subjects().keySet());
        peers.addAll(enforcement.acted());
        peers.remove(self());
        for (String peer : peers) {
            if (links.known(peer).isEmpty()) {
                continue; // never linked since the start: acted on when it links
            }
            double transit = v.transit(peer);
            Action action = Standing.action(transit, p);
            for (Enforcement.Step step : enforcement.steps(peer, action)) {
                String why = String.format(Locale.ROOT, "view_transit %.3f", transit);
                switch (step) {
                    case DEMOTE -> links.demote(peer, why + " below demote-below " + p.demoteBelow());
                    case SUSPEND -> links.suspend(peer, why + " below suspend-below " + p.suspendBelow());
                    case QUARANTINE -> links.quarantine(peer, why + " below quarantine-below " + p.quarantineBelow());
                    case REINSTATE -> links.reinstate(peer);
                    default -> throw new IllegalStateException(step.name());
                }
            }
        }
    }

    /** An observer's tier at this node: its link account's, 0 when it has none (a stranger weighs nothing). */
    int tier(String observer) {
        if (observer.equals(self())) {
            return Integer.MAX_VALUE;
        }
        return sessions.links().known(observer).map(a -> a.tier().level()).orElse(0);
    }

    String self() {
        String s = self;
        if (s == null) {
            // the DID depends on the keys only: any endpoints give the same one
            s = NodeDidDocument.of(identity.secrets().publicKeys(),
                    NodeEndpoints.of("ws://localhost/", "ws://localhost/mesh", "http://localhost/didcomm")).shortForm();
            self = s;
        }
        return s;
    }

    @PreDestroy
    void stop() {
        if (clock != null) {
            clock.shutdownNow();
        }
    }
}
