package org.fleetmesh.settlement.lightning.l402;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** L402 paid export ({@code fleetmesh.l402.*}, or {@code FLEETMESH_L402_*} in the environment). */
@ConfigMapping(prefix = "fleetmesh.l402")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface L402Config {

    /** Serve the paid export endpoint. */
    @WithDefault("false")
    boolean enabled();

    /** HTTP path of the export. */
    @WithDefault("/l402/export")
    String path();

    /** Price of one exported event, in millisatoshis. */
    @WithDefault("1000")
    long priceMsatPerEvent();

    /** Least price of an export (also when nothing matches), in millisatoshis; at least 1. */
    @WithDefault("1000")
    long minPriceMsat();

    /** How long a token stays usable after it is issued. */
    @WithDefault("PT1H")
    Duration tokenLifetime();

    /** How long the invoice of a challenge can be paid. */
    @WithDefault("PT10M")
    Duration invoiceExpiry();

    /**
     * Challenges (each counts matching events and opens an invoice the Lightning node keeps) made a minute for one
     * client address at most; one more is 429 {@code rate_limited} with {@code Retry-After}.
     */
    @WithDefault("30")
    int challengesPerMinute();

    /** Challenges made a minute node-wide at most, whatever the addresses; one more is 429 {@code rate_limited}. */
    @WithDefault("600")
    int challengesPerMinuteTotal();

    /** Location hint written into issued macaroons. */
    @WithDefault("fleetmesh")
    String location();

    /** The macaroon root key as 64 hex characters (e.g. from a secret store); wins over the file. */
    Optional<String> rootKey();

    /** A file holding the root key as hex (mode 0600); default {@code <data-dir>/keys/l402-root.key}, created if missing. */
    Optional<Path> rootKeyFile();
}
