package org.fleetmesh.settlement.lightning.deployment;

import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.FeatureBuildItem;

/** Build steps of the Lightning settlement extension. */
class LightningSettlementProcessor {

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem("fleetmesh-settlement-lightning");
    }
}
