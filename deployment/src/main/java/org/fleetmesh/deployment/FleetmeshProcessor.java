package org.fleetmesh.deployment;

import org.fleetmesh.identity.quarkus.DidWellKnownRoute;
import org.fleetmesh.identity.quarkus.NodeIdentity;
import org.fleetmesh.relay.quarkus.RelayEndpoint;
import org.fleetmesh.relay.quarkus.RelayInfoRoute;
import org.fleetmesh.relay.quarkus.RelayReadiness;
import org.fleetmesh.relay.quarkus.RelayRuntime;

import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.SystemPropertyBuildItem;

/** Build steps of the fleetmesh core extension. */
class FleetmeshProcessor {
    private static final String FEATURE = "fleetmesh";
    private static final String STORAGE = "org.fleetmesh.storage";

    /** The core needs exactly one storage backend; say so at build time, not at first write. */
    @BuildStep
    FeatureBuildItem feature(Capabilities capabilities) {
        if (!capabilities.isPresent(STORAGE)) {
            throw new IllegalStateException("fleetmesh needs a storage extension (capability " + STORAGE
                    + ", e.g. fleetmesh-storage-postgres) on the classpath");
        }
        return new FeatureBuildItem(FEATURE);
    }

    /**
     * The fleetmesh extensions this build carries, for {@link org.fleetmesh.adapters.BuiltAdapters}: a node whose
     * settings switch on an adapter left out at build time refuses to start, saying which.
     */
    @BuildStep
    SystemPropertyBuildItem builtAdapters(Capabilities capabilities) {
        String built = capabilities.getCapabilities().stream().filter(c -> c.startsWith("org.fleetmesh."))
                .sorted().collect(java.util.stream.Collectors.joining(","));
        return new SystemPropertyBuildItem(org.fleetmesh.adapters.BuiltAdapters.PROPERTY, built);
    }

    /** Clients are told the relay is going away while their connections are still open. */
    @BuildStep
    io.quarkus.deployment.builditem.ShutdownListenerBuildItem goingAway() {
        return new io.quarkus.deployment.builditem.ShutdownListenerBuildItem(
                new org.fleetmesh.relay.quarkus.GoingAwayListener());
    }

    @BuildStep
    AdditionalBeanBuildItem relayBeans() {
        return AdditionalBeanBuildItem.builder()
                .addBeanClasses(RelayRuntime.class, RelayEndpoint.class, RelayInfoRoute.class, RelayReadiness.class,
                        org.fleetmesh.peering.quarkus.MeshEndpoint.class,
                        org.fleetmesh.peering.quarkus.MeshUpgradeCheck.class,
                        org.fleetmesh.peering.quarkus.HandshakeWorkers.class,
                        NodeIdentity.class, DidWellKnownRoute.class,
                        org.fleetmesh.identity.quarkus.NodeAddress.class,
                        org.fleetmesh.identity.quarkus.EndpointAnnouncer.class,
                        org.fleetmesh.adapters.quarkus.AdapterCheck.class,
                        org.fleetmesh.relay.quarkus.WebSocketDeflate.class)
                .setUnremovable()
                .build();
    }
}
