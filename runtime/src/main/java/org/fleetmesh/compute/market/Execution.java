package org.fleetmesh.compute.market;

import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;

/** How the market runs a job here: the node's sandbox, behind one call (so the protocol is tested without it). */
public interface Execution {

    /** The engine id the job records name ({@code chicory}, {@code wasmtime}). */
    String runtime();

    JobResult run(byte[] module, byte[] input, JobSpec spec) throws JobFailure;
}
