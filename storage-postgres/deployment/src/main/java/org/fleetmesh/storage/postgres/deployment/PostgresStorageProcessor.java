package org.fleetmesh.storage.postgres.deployment;

import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.storage.postgres.Migrations;
import org.fleetmesh.storage.postgres.PostgresStorage;
import org.fleetmesh.storage.postgres.quarkus.EarlyStorageRecorder;
import org.fleetmesh.storage.postgres.quarkus.PostgresStorageProducer;

import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.UnremovableBeanBuildItem;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.ShutdownContextBuildItem;
import io.quarkus.deployment.builditem.nativeimage.NativeImageResourceBuildItem;

/** Build steps of the PostgreSQL storage adapter. */
class PostgresStorageProcessor {
    static final String FEATURE = "fleetmesh-storage-postgres";

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep
    AdditionalBeanBuildItem producer() {
        return AdditionalBeanBuildItem.unremovableOf(PostgresStorageProducer.class);
    }

    /** The relay looks the store up by type; keep it even when nothing injects it directly. */
    @BuildStep
    UnremovableBeanBuildItem unremovableStore() {
        return UnremovableBeanBuildItem.beanTypes(EventStore.class, PostgresStorage.class);
    }

    /** Flyway reads the migrations by name from the class path (no scanning): ship them in native images. */
    @BuildStep
    NativeImageResourceBuildItem migrations() {
        return new NativeImageResourceBuildItem(Migrations.resourcePaths());
    }

    /**
     * The database starts in parallel with the rest of the boot: at runtime init, as soon as the configuration is
     * read, before CDI's start-up observers ask for the store.
     */
    @BuildStep
    @Record(ExecutionTime.RUNTIME_INIT)
    void openStorageEarly(EarlyStorageRecorder recorder, ShutdownContextBuildItem shutdown) {
        recorder.begin(shutdown);
    }
}
