package org.fleetmesh.settlement.lightning.lnd;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** The Lightning rail: which LND to use and how ({@code fleetmesh.lightning.*}). */
@ConfigMapping(prefix = "fleetmesh.lightning")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface LightningConfig {

    /** Whether this node settles over Lightning; when false no LND connection is opened. */
    @WithDefault("false")
    boolean enabled();

    /** The LND node. */
    Lnd lnd();

    interface Lnd {
        /** gRPC host of LND. */
        @WithDefault("localhost")
        String host();

        /** gRPC port of LND ({@code rpclisten}). */
        @WithDefault("10009")
        int port();

        /** LND's {@code tls.cert}: the only certificate trusted for this connection. Required when enabled. */
        Optional<Path> tlsCertPath();

        /**
         * The macaroon file (binary, as LND writes it, or hex). Use the least privilege that works: a node
         * that only sells needs {@code invoice.macaroon}; one that also buys needs offchain read/write too.
         */
        Optional<Path> macaroonPath();

        /** Deadline of each unary call. */
        @WithDefault("30s")
        Duration callTimeout();

        /** How long LND may search for routes when paying. */
        @WithDefault("60s")
        Duration paymentTimeout();

        /** {@code cltv_expiry} of hold invoices, in blocks. */
        @WithDefault("80")
        int holdCltvExpiry();

        /** Expected chain (mainnet, testnet, signet, regtest, simnet); by default GetInfo decides. */
        Optional<String> network();

        /** gRPC keep-alive ping interval; 0 disables. */
        @WithDefault("60s")
        Duration keepAlive();
    }
}
