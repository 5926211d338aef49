package org.fleetmesh.compute.quarkus;

import java.time.Duration;
import java.util.List;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The compute market ({@code fleetmesh.compute.market.*}, docs/spec/compute.md, docs/OPERATING.md): what this node
 * offers and charges as a worker, and how it buys: price limits, sampling, the standing it requires of workers, and
 * the bounds of its queues and stores.
 */
@ConfigMapping(prefix = "fleetmesh.compute.market")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface MarketConfig {

    /** Whether this node sells compute (publishes an offer and takes requests). Buying works either way. */
    @WithDefault("true")
    boolean sell();

    /** The offer's {@code d}. */
    @WithDefault("default")
    String offerId();

    /** Price, msat per 1000 fuel units (integer). 0 and {@code min-price} 0: a free offer (no invoice). */
    @WithDefault("1")
    long pricePerKfuel();

    /** The least a job costs, msat. */
    @WithDefault("1000")
    long minPrice();

    /** The largest fuel limit a request may name. */
    @WithDefault("1000000000")
    long maxFuel();

    /** The largest memory cap a request may name, in 64 KiB pages. */
    @WithDefault("256")
    int maxMemoryPages();

    /** The largest module or input this node stores or fetches, bytes. */
    @WithDefault("4194304")
    long maxModuleBytes();

    /** All blobs (modules and inputs) together, bytes. */
    @WithDefault("67108864")
    long blobStoreBytes();

    /** How long an unused blob is kept when room is needed. */
    @WithDefault("1h")
    Duration blobTtl();

    /** Bytes of raw data per {@code blob} message (at most 262144). */
    @WithDefault("49152")
    int chunkBytes();

    /** Requests waiting to run (or fetching) at most; more are refused {@code busy}. */
    @WithDefault("16")
    int queue();

    /** Jobs this node is buying at once at most; more are refused with 429. */
    @WithDefault("64")
    int maxOpenPurchases();

    /** How long a hold invoice (and the buyer's wait for a sealed result) lasts. */
    @WithDefault("10m")
    Duration invoiceExpiry();

    /**
     * A bought job waiting on its worker ({@code requested}, {@code fetching}, a free job {@code sealed} without its
     * key) with nothing sent to it or heard from it this long has the request sent again (the worker answers a
     * repeated request with its last answer); 0 sends again only when the worker's link opens again.
     */
    @WithDefault("30s")
    Duration requestResend();

    /** The most the buyer spends on routing fees per payment, msat. */
    @WithDefault("10000")
    long maxFeeMsat();

    /** The fraction of bought jobs re-executed here (0..1). */
    @WithDefault("0.1")
    double sampleRate();

    /** Whether jobs of Tier 0 workers (fresh peers) are always re-executed. */
    @WithDefault("true")
    boolean alwaysSampleTier0();

    /** Workers whose view_compute is below this are always re-executed. */
    @WithDefault("0.5")
    double alwaysSampleBelow();

    /** Workers whose view_compute is below this are not bought from ("any" skips them, a named one is refused). */
    @WithDefault("0")
    double minViewCompute();

    /** Whether a request must carry a capability token granting {@code compute:run} within its fuel limit. */
    @WithDefault("false")
    boolean requireToken();

    /** Root DIDs whose tokens this worker honours (empty: any root the token names and proves). */
    java.util.Optional<List<String>> tokenRoots();

    /**
     * TEST SWITCH, never in production: the fraction of jobs this worker falsifies (a flipped output byte) to test
     * buyers' sampling. 0 off.
     */
    @WithDefault("0")
    double testCheatRate();

    /** TEST SWITCH: this worker never releases k (fault tests). */
    @WithDefault("false")
    boolean testWithholdKey();

    /** TEST SWITCH: this buyer never pays (fault tests). */
    @WithDefault("false")
    boolean testNeverPay();
}
