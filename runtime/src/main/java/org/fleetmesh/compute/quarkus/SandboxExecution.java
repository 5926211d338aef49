package org.fleetmesh.compute.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.market.Execution;

/** The market runs jobs on the node's sandbox ({@link SandboxRuntime}). */
@ApplicationScoped
public class SandboxExecution {

    @Produces
    @Singleton
    Execution execution(SandboxRuntime sandboxes) {
        return new Execution() {
            @Override
            public String runtime() {
                return sandboxes.sandbox().runtime().id();
            }

            @Override
            public JobResult run(byte[] module, byte[] input, JobSpec spec) throws JobFailure {
                return sandboxes.sandbox().run(module, input, spec);
            }
        };
    }
}
