package org.fleetmesh.compute.verify;

import java.util.Optional;

import org.fleetmesh.compute.Commitment;
import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.Sandbox;
import org.fleetmesh.standing.Reexecutor;

/**
 * Re-execution over this node's sandbox (docs/spec/compute-runtimes.md, "Re-execution"): what a buyer runs on a sampled
 * job and what {@link org.fleetmesh.standing.FindingVerifier#reexecuting} runs on {@code fleetmesh.reexecution}
 * evidence. The sandbox's limits bound what a stranger's evidence can make this node spend: a job over them is not
 * re-run.
 */
public final class Reexecution implements Reexecutor {
    private final Sandbox sandbox;

    public Reexecution(Sandbox sandbox) {
        this.sandbox = sandbox;
    }

    /** The summary of the job run here; empty when it does not run to its end here (over the limits, or it failed). */
    @Override
    public Optional<Commitment.Summary> rerun(JobSpec job, byte[] module, byte[] input) {
        try {
            return Optional.of(Commitment.Summary.of(sandbox.run(module, input, job)));
        } catch (JobFailure | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Whether a worker's result stands: the same summary (exit code, fuel_used, stdout and stderr digests). */
    public static boolean matches(JobResult claimed, Commitment.Summary observed) {
        return Commitment.Summary.of(claimed).equals(observed);
    }
}
