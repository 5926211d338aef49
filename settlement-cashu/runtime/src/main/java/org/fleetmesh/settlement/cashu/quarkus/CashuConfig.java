package org.fleetmesh.settlement.cashu.quarkus;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The Cashu rail: which mint, which unit, and the escrow's timing ({@code fleetmesh.cashu.*}). */
@ConfigMapping(prefix = "fleetmesh.cashu")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface CashuConfig {

    /** Whether this node settles in Cashu ecash; when false no mint is contacted. */
    @WithDefault("false")
    boolean enabled();

    /** The mint (http(s)://host[:port][/path]); required when enabled. The rail's id is {@code cashu:<mint-url>}. */
    Optional<String> mintUrl();

    /** The mint's unit to hold: {@code sat} (1000 msat) or {@code msat}. */
    @WithDefault("sat")
    String unit();

    /**
     * A BIP-39 mnemonic for the wallet's seed (NUT-13), so that another wallet, or this one on a new machine, restores
     * the proofs; by default the seed is 32 random bytes in {@code seed-file}.
     */
    Optional<String> mnemonic();

    /** The seed as hex (instead of the file). */
    Optional<String> seed();

    /** The seed file (hex, mode 0600); default {@code <data-dir>/keys/cashu-seed.key}, created if missing. */
    Optional<Path> seedFile();

    /** Refuse a mint's signature without a valid DLEQ proof (NUT-12); received tokens are checked when they carry one. */
    @WithDefault("true")
    boolean requireDleq();

    /**
     * Where payers POST their proofs for this node's requests (NUT-18 transport); by default derived from
     * {@code fleetmesh.relay.url} (ws→http, wss→https) or {@code http://127.0.0.1:<port>}, plus {@code /cashu/v1/pay}.
     */
    Optional<String> receiveUrl();

    /** How long after a request's expiry its HTLC must stay locked, for our claim. */
    @WithDefault("30m")
    Duration claimWindow();

    /** An accepted payment not settled this long before its locktime is given up. */
    @WithDefault("5m")
    Duration claimMargin();

    /** The latest locktime this node locks its own proofs to, from now. */
    @WithDefault("2d")
    Duration maxLocktime();

    /** How long a payment waits for the payee's claim before answering pending (it is followed after that). */
    @WithDefault("30s")
    Duration payTimeout();

    /** How often the mint is asked while waiting for a claim. */
    @WithDefault("500ms")
    Duration poll();

    /** Deadline of a call to the mint or a payee. */
    @WithDefault("10s")
    Duration callTimeout();

    /** How often unfinished payments and expiries are looked at. */
    @WithDefault("2s")
    Duration tick();

    /** At most this many payment bodies are processed at once; more get 503. */
    @WithDefault("16")
    int maxConcurrentPayments();
}
