package org.fleetmesh.shards.quarkus;

import java.time.Duration;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Shard replication over the mesh links ({@code fleetmesh.replication.*}, {@code FLEETMESH_REPLICATION_*};
 * docs/spec/replication.md): how often each shard is reconciled with each peer, and how much a pull may ask for and
 * wait for at once.
 */
@ConfigMapping(prefix = "fleetmesh.replication")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface ReplicationConfig {

    /** Each shard is reconciled with each linked peer this often (and at link open, and after a shard change). */
    @WithDefault("30s")
    Duration interval();

    /** Ids one {@code MESH-WANT} this node sends holds at most (1..1000). */
    @WithDefault("1000")
    int wantBatch();

    /** Ids this node waits for from one peer at once (all shards), at most; a peer may queue twice as many here. */
    @WithDefault("10000")
    int maxPending();

    /** The largest Negentropy message this node sends, in bytes before hex (4096..262144). */
    @WithDefault("60000")
    int frameBytes();

    /**
     * The most characters of MESH-NEG-REPLY one link's responder sessions may draw in a minute (refilled at that rate;
     * past it a session is refused {@code rate-limited}); 0: no bound. The default, 16 MiB, is several times what a
     * peer rebuilding a shard from this node needs (66 bytes an id); a stranger's 49-byte opens drew 120 kB each.
     */
    @WithDefault("16777216")
    long replyBytesPerMinute();

    /** A pull that receives none of the ids it asked for in this long gives up on them until the next pass. */
    @WithDefault("60s")
    Duration wantTimeout();

    /**
     * An id found missing is asked for only after this long (0 or more, below want-timeout): live forwarding brings
     * most of what a pass finds while events are being written, and what arrives meanwhile is not asked for.
     */
    @WithDefault("2s")
    Duration grace();

    /**
     * After a start, an asserted shard's claims wait at most this long for a first pass with a declared peer (a
     * restored node must not assert a half-empty set); a pass that is pulling holds them until it ends. 0: no wait.
     */
    @WithDefault("30s")
    Duration claimHold();
}
