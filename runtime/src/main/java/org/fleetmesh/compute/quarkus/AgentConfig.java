package org.fleetmesh.compute.quarkus;

import java.util.List;
import java.util.Optional;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The agent API ({@code fleetmesh.compute.agent.*}, {@code FLEETMESH_COMPUTE_AGENT_*}; docs/spec/compute-agent.md):
 * who may call it and what one caller may make the node hold.
 */
@ConfigMapping(prefix = "fleetmesh.compute.agent")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface AgentConfig {

    /** Serve {@code /mesh/compute/*}; off: no such routes (404). */
    @WithDefault("true")
    boolean enabled();

    /** DIDs (did:key, did:peer:2, did:peer:4 long form) whose capability tokens are taken as well as this node's. */
    Optional<List<String>> trustedRoots();

    /** The largest module or input {@code PUT /mesh/compute/blobs} takes, bytes (413 past it). */
    @WithDefault("8388608")
    int maxBlobBytes();

    /** The largest JSON body {@code POST /mesh/compute/jobs} takes, bytes (413 past it). */
    @WithDefault("65536")
    int maxBodyBytes();

    /** Jobs that have not ended per token (429 past it). */
    @WithDefault("8")
    int activeJobsPerToken();

    /** Jobs whose submitting token is remembered (the oldest is forgotten, and with it the job's visibility here). */
    @WithDefault("10000")
    int rememberedJobs();

    /** The most jobs {@code GET /mesh/compute/jobs} lists. */
    @WithDefault("100")
    int listLimit();

    /** {@code memory_pages} of a submission that names none (64 KiB pages). */
    @WithDefault("256")
    int defaultMemoryPages();
}
