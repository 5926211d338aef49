package org.fleetmesh.settlement.lightning.bolt11;

import java.util.List;

/** One {@code r} field: an ordered private route from a public node to the payee. */
public record RouteHint(List<RouteHop> hops) {
    public RouteHint {
        hops = List.copyOf(hops);
        if (hops.isEmpty()) {
            throw new IllegalArgumentException("an r field holds one or more hops");
        }
    }
}
