package org.fleetmesh.settlement.cashu.deployment;

import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.FeatureBuildItem;

/** Build steps of the Cashu settlement extension. */
class CashuSettlementProcessor {

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem("fleetmesh-settlement-cashu");
    }
}
