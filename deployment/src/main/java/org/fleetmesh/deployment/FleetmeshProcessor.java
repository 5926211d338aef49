package org.fleetmesh.deployment;

import org.fleetmesh.relay.RelayEndpoint;
import org.fleetmesh.relay.RelayInfoRoute;
import org.fleetmesh.relay.RelayReadiness;
import org.fleetmesh.relay.RelayRuntime;

import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.ValidationPhaseBuildItem.ValidationErrorBuildItem;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.FeatureBuildItem;

/** Build steps of the fleetmesh core extension. */
class FleetmeshProcessor {
    private static final String FEATURE = "fleetmesh";

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep
    AdditionalBeanBuildItem relayBeans() {
        return AdditionalBeanBuildItem.builder()
                .addBeanClasses(RelayRuntime.class, RelayEndpoint.class, RelayInfoRoute.class, RelayReadiness.class)
                .setUnremovable()
                .build();
    }

    /** The core needs exactly one storage backend; say so at build time, not at first write. */
    @BuildStep
    void requireStorage(Capabilities capabilities, BuildProducer<ValidationErrorBuildItem> errors) {
        if (!capabilities.isPresent("org.fleetmesh.storage")) {
            errors.produce(new ValidationErrorBuildItem(new IllegalStateException(
                    "fleetmesh needs a storage extension (e.g. fleetmesh-storage-postgres) on the classpath")));
        }
    }
}
