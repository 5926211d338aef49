package org.fleetmesh.compute.wasmtime.deployment;

import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ServiceProviderBuildItem;

/** Build steps of the wasmtime compute runtime extension: the engine is found through ServiceLoader, nothing else. */
class WasmtimeProcessor {

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem("fleetmesh-compute-wasmtime");
    }

    @BuildStep
    ServiceProviderBuildItem engine() {
        return new ServiceProviderBuildItem("org.fleetmesh.spi.compute.ComputeRuntime",
                "org.fleetmesh.compute.wasmtime.WasmtimeRuntime");
    }
}
