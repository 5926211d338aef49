package org.fleetmesh.peering.quarkus;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.fleetmesh.peering.budget.Direction;
import org.fleetmesh.peering.link.EventLinks;
import org.fleetmesh.peering.link.PeerAccount;
import org.fleetmesh.peering.link.StrainLedger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;

/**
 * Per-peer link figures at {@code /q/metrics} (docs/OPERATING.md): budget granted and used, tier, violations,
 * quarantine and strain, one row per peer held in memory, refreshed every few seconds.
 */
final class LinkMeters {
    private final EventLinks links;
    private final MultiGauge granted;
    private final MultiGauge used;
    private final MultiGauge tier;
    private final MultiGauge violations;
    private final MultiGauge quarantined;
    private final MultiGauge strain;

    LinkMeters(EventLinks links, MeterRegistry registry) {
        this.links = links;
        granted = MultiGauge.builder("fleetmesh.link.budget.granted")
                .description("what this node grants the peer per window (inbound)").register(registry);
        used = MultiGauge.builder("fleetmesh.link.budget.used")
                .description("inbound budget spent and not yet refilled").register(registry);
        tier = MultiGauge.builder("fleetmesh.link.tier").description("the peer's tier at this node").register(registry);
        violations = MultiGauge.builder("fleetmesh.link.violations")
                .description("budget violations counted for the peer").register(registry);
        quarantined = MultiGauge.builder("fleetmesh.link.quarantined")
                .description("1 while the peer is quarantined").register(registry);
        strain = MultiGauge.builder("fleetmesh.link.strain")
                .description("decayed consumption per direction and measure").register(registry);
    }

    void refresh() {
        List<MultiGauge.Row<?>> g = new ArrayList<>(), u = new ArrayList<>(), t = new ArrayList<>(),
                v = new ArrayList<>(), q = new ArrayList<>(), s = new ArrayList<>();
        long now = System.nanoTime();
        for (PeerAccount a : links.accounts()) {
            Tags peer = Tags.of("peer", a.peer());
            var in = a.inbound();
            long[] spent = a.used();
            g.add(MultiGauge.Row.of(peer.and("resource", "bytes"), in.bytes()));
            g.add(MultiGauge.Row.of(peer.and("resource", "events"), in.events()));
            u.add(MultiGauge.Row.of(peer.and("resource", "bytes"), spent[0]));
            u.add(MultiGauge.Row.of(peer.and("resource", "events"), spent[1]));
            t.add(MultiGauge.Row.of(peer, a.tier().level()));
            v.add(MultiGauge.Row.of(peer, a.violationsTotal()));
            q.add(MultiGauge.Row.of(peer, a.quarantinedUntil().isPresent() ? 1 : 0));
            for (Direction d : Direction.values()) {
                for (StrainLedger.Measure m : StrainLedger.Measure.values()) {
                    s.add(MultiGauge.Row.of(peer.and("direction", d.name().toLowerCase(Locale.ROOT), "measure",
                            m.name().toLowerCase(Locale.ROOT)), a.strain().get(d, m, now)));
                }
            }
        }
        granted.register(g, true);
        used.register(u, true);
        tier.register(t, true);
        violations.register(v, true);
        quarantined.register(q, true);
        strain.register(s, true);
    }
}
