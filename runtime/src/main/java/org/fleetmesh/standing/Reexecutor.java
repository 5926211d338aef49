package org.fleetmesh.standing;

import java.util.Optional;

import org.fleetmesh.compute.Commitment;
import org.fleetmesh.compute.JobSpec;

/**
 * Runs a deterministic job again so that {@code fleetmesh.reexecution} evidence can be checked by its result
 * (docs/spec/findings.md). Implemented over the node's compute sandbox; the verifier calls it only with bytes whose
 * SHA-256 equal the job's {@code module} and {@code input}.
 */
public interface Reexecutor {

    /**
     * The summary of the job's result here, or empty when this node does not run it (over its own limits, or the job
     * did not run to its end): the evidence then stays the observer's word.
     */
    Optional<Commitment.Summary> rerun(JobSpec job, byte[] module, byte[] input);
}
