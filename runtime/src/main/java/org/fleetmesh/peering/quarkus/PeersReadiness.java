package org.fleetmesh.peering.quarkus;

import java.util.EnumMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.fleetmesh.peering.PeerLinks;

/**
 * A summary of the mesh links: declared peers, and how many of them are up, connecting, down or quarantined, plus
 * links other nodes opened to this one. Always UP: readiness says whether THIS node can serve its clients, and a
 * peer that is down (or a stranger this node quarantined) does not stop it from doing so; taking the node out of a
 * load balancer because a peer is away would spread one outage over the mesh. The numbers are for the operator and
 * for alerting on {@code /q/health/ready}'s data, and {@code /mesh/status} has each link.
 */
@Readiness
@ApplicationScoped
public class PeersReadiness implements HealthCheck {
    @Inject
    MeshPeers peers;

    @Override
    public HealthCheckResponse call() {
        Map<PeerLinks.State, Integer> declared = new EnumMap<>(PeerLinks.State.class);
        int declaredCount = 0;
        int acceptedUp = 0;
        for (PeerLinks.View v : peers.links().view()) {
            if (v.declared()) {
                declaredCount++;
                declared.merge(v.state(), 1, Integer::sum);
            } else if (v.state() == PeerLinks.State.UP) {
                acceptedUp++;
            }
        }
        var r = HealthCheckResponse.named("peers").up().withData("declared", declaredCount);
        for (PeerLinks.State s : PeerLinks.State.values()) {
            r.withData(s.word(), declared.getOrDefault(s, 0));
        }
        return r.withData("undeclared_up", acceptedUp).build();
    }
}
