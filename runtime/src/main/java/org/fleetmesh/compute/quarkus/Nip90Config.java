package org.fleetmesh.compute.quarkus;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The NIP-90 bridge ({@code fleetmesh.compute.nip90.*}, {@code FLEETMESH_COMPUTE_NIP90_*}; docs/spec/compute-agent.md):
 * whether this node answers kind 5600 job requests, where it runs them, what they may ask for and cost.
 */
@ConfigMapping(prefix = "fleetmesh.compute.nip90")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface Nip90Config {

    /** Answer kind 5600 requests that clients publish to this relay. Off by default: it sells the node's CPU. */
    @WithDefault("false")
    boolean enabled();

    /** Where jobs run: {@code local}, {@code any} (the cheapest acceptable peer offer) or a peer's DID. */
    @WithDefault("local")
    String worker();

    /** Fuel of a request without {@code ["param", "fuel", N]}. */
    @WithDefault("100000000")
    long fuel();

    /** The most fuel a request may ask for. */
    @WithDefault("1000000000")
    long maxFuel();

    /** Memory cap of a request without {@code ["param", "memory_pages", N]} (64 KiB pages). */
    @WithDefault("256")
    int memoryPages();

    /** The most a request's {@code time} (milliseconds to the result) may be. */
    @WithDefault("10m")
    Duration maxTime();

    /** The most a job on a remote worker may cost (a request's {@code bid} lowers it), msat. */
    @WithDefault("100000")
    long maxPriceMsat();

    /** What a local run costs the customer, msat per 1000 fuel (rounded up); 0: free. */
    @WithDefault("0")
    long pricePerKfuel();

    /** Requests being worked on at once; past it a request gets {@code error} "busy". */
    @WithDefault("16")
    int maxPending();

    /** Requests a customer pubkey may make per minute; past it they are dropped unanswered. */
    @WithDefault("10")
    int ratePerMinute();

    /** Pubkeys whose rate is tracked at once (the least recently seen is forgotten). */
    @WithDefault("4096")
    int rateKeys();

    /** How long a {@code payment-required} bolt11 stays payable. */
    @WithDefault("10m")
    Duration billExpiry();

    /**
     * How long an unpaid bill holds its request's place while {@code max-pending} requests wait and another comes;
     * past it, the newcomer takes the place and the unpaid request ends ({@code error}, its bill canceled).
     */
    @WithDefault("60s")
    Duration billYield();

    /** Hosts a module may be fetched from by its {@code url} (exact names); none: only stored modules run. */
    Optional<List<String>> fetchHosts();

    /** The largest module fetched from a url, bytes. */
    @WithDefault("8388608")
    int fetchMaxBytes();

    /** How long fetching a module may take. */
    @WithDefault("10s")
    Duration fetchTimeout();

    /** How often pending requests are moved on. */
    @WithDefault("250ms")
    Duration tick();
}
