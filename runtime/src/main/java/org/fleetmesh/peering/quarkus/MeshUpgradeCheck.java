package org.fleetmesh.peering.quarkus;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.websockets.next.HttpUpgradeCheck;
import io.smallrye.mutiny.Uni;

/**
 * Keeps each {@code /mesh} connection's HTTP connection beside it, the only handle that can drop the TCP connection
 * of a peer that stops reading (its close frame then never leaves the send queue). Admits every upgrade: the caps are
 * checked on open, where a refusal can say why in MESH-ERR.
 */
@ApplicationScoped
public class MeshUpgradeCheck implements HttpUpgradeCheck {

    @Override
    public boolean appliesTo(String endpointId) {
        return MeshEndpoint.ID.equals(endpointId);
    }

    @Override
    public Uni<CheckResult> perform(HttpUpgradeContext context) {
        context.userData().put(MeshEndpoint.HTTP_CONNECTION, context.httpRequest().connection());
        return CheckResult.permitUpgrade();
    }
}
