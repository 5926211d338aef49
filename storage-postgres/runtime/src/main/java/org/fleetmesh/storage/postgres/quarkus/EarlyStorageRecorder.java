package org.fleetmesh.storage.postgres.quarkus;

import io.quarkus.runtime.ShutdownContext;
import io.quarkus.runtime.annotations.Recorder;

/** Runtime-init hook: starts opening the storage before CDI's start-up observers run ({@link EarlyStorage}). */
@Recorder
public class EarlyStorageRecorder {
    public void begin(ShutdownContext shutdown) {
        EarlyStorage.begin();
        shutdown.addShutdownTask(EarlyStorage::closeUntaken);
    }
}
