package org.fleetmesh.settlement.cashu.quarkus;

import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.settlement.cashu.mint.HttpMintClient;
import org.fleetmesh.settlement.cashu.rail.CashuRail;
import org.fleetmesh.settlement.cashu.rail.Units;
import org.fleetmesh.settlement.cashu.store.MemoryCashuStore;
import org.fleetmesh.settlement.cashu.wallet.Mints;
import org.fleetmesh.settlement.cashu.wallet.Seed;
import org.fleetmesh.settlement.cashu.wallet.Wallet;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementException.Reason;
import org.fleetmesh.spi.settlement.cashu.CashuStore;
import org.jboss.logging.Logger;

import io.quarkus.arc.lookup.LookupIfProperty;

/** Makes the {@link CashuRail} bean when {@code fleetmesh.cashu.enabled=true}, over the node's {@link CashuStore}. */
@ApplicationScoped
public class CashuRailProducer {
    private static final Logger LOG = Logger.getLogger(CashuRailProducer.class);
    static final String PAY_PATH = "/cashu/v1/pay";

    @ConfigProperty(name = "fleetmesh.data-dir", defaultValue = "./data")
    Path dataDir;

    @ConfigProperty(name = "fleetmesh.relay.url")
    Optional<URI> relayUrl;

    @Produces
    @Singleton
    @LookupIfProperty(name = "fleetmesh.cashu.enabled", stringValue = "true")
    CashuRail rail(CashuConfig config, Instance<CashuStore> stores) {
        String mintUrl = Mints.normalize(config.mintUrl().orElseThrow(() -> new SettlementException(
                Reason.RAIL_UNAVAILABLE, "fleetmesh.cashu.mint-url is required when fleetmesh.cashu.enabled=true")));
        try {
            Units.of(config.unit());
        } catch (IllegalArgumentException e) {
            throw new SettlementException(Reason.RAIL_UNAVAILABLE, "fleetmesh.cashu.unit: " + e.getMessage());
        }
        CashuStore store;
        if (stores.isResolvable()) {
            store = stores.get();
        } else {
            LOG.warn("cashu: no database store for the wallet in this build; proofs are kept in memory and lost on exit");
            store = new MemoryCashuStore();
        }
        byte[] seed = seed(config, dataDir);
        HttpClient http = HttpClient.newBuilder().connectTimeout(config.callTimeout()).build();
        Wallet wallet = new Wallet(mintUrl, config.unit(), new HttpMintClient(URI.create(mintUrl), config.callTimeout(), http),
                store, seed, Clock.systemUTC(), new Wallet.Options(config.requireDleq(), 100, 3));
        CashuRail.Settings settings = new CashuRail.Settings(config.claimWindow(), config.claimMargin(),
                config.maxLocktime(), config.payTimeout(), config.poll(), config.callTimeout(), config.tick());
        CashuRail rail = new CashuRail(wallet, store, seed, () -> receiveUrl(config), settings, Clock.systemUTC());
        Wallet.Recovery r = rail.start();
        for (String line : r.lines()) {
            LOG.infof("cashu recovery: %s", line);
        }
        LOG.infof("cashu rail %s (unit %s), this node's Cashu key %s", rail.id(), config.unit(), rail.payeeKey());
        return rail;
    }

    void close(@Disposes CashuRail rail) {
        rail.close();
    }

    public static byte[] seed(CashuConfig config, Path dataDir) {
        return Seed.load(config.mnemonic(), config.seed(), config.seedFile(), dataDir);
    }

    private String receiveUrl(CashuConfig config) {
        if (config.receiveUrl().isPresent()) {
            return config.receiveUrl().get();
        }
        if (relayUrl.isPresent()) {
            URI u = relayUrl.get();
            String scheme = "wss".equalsIgnoreCase(u.getScheme()) ? "https" : "http";
            return scheme + "://" + u.getRawAuthority() + PAY_PATH;
        }
        int port = ConfigProvider.getConfig().getOptionalValue("quarkus.http.port", Integer.class).orElse(7777);
        return "http://127.0.0.1:" + port + PAY_PATH;
    }
}
