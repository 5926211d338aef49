package org.fleetmesh.relay.quarkus;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.fleetmesh.peering.grant.Tier;
import org.fleetmesh.peering.grant.TierPolicy;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The budgets plain clients are held to ({@code fleetmesh.clients.*}, {@code FLEETMESH_CLIENTS_*}); the switch is
 * {@code fleetmesh.client-limits} ({@code FLEETMESH_CLIENT_LIMITS}, on by default).
 */
@ConfigMapping(prefix = "fleetmesh.clients")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface ClientLimitsConfig {

    /**
     * The tiers, 0 first, comma-separated, each {@code bytes/events/reqs/subscriptions} per window
     * (docs/spec/relay.md, "Client limits"). Tier 0 is roomier than a peer's: an ordinary client opens about ten
     * subscriptions and a few dozen REQs when it starts, and an honest newcomer must not be locked out.
     */
    @WithDefault("1048576/120/120/16,4194304/600/600/32,33554432/6000/2400/64,268435456/60000/12000/256")
    String tiers();

    /** The window every tier's budget is counted over (whole seconds, 1 s to 1 day). */
    @WithDefault("60s")
    java.time.Duration window();

    /** Clean windows in a row that climb one tier. */
    @WithDefault("10")
    int climbAfter();

    /**
     * Source addresses, and separately pubkeys, remembered; the least recently seen is forgotten past it. Unset: as
     * many as a sixth of the heap holds ({@link #defaultMaxKeys}), at most 100,000.
     */
    Optional<Integer> maxKeys();

    /** What one address and one pubkey remembered cost together, measured (a 100,000 pair fill: 814 bytes). */
    long BYTES_PER_KEY_PAIR = 800;

    /** The most keys of each kind remembered when {@link #maxKeys()} is unset. */
    int MAX_KEYS_CEILING = 100_000;

    /** The fewest keys of each kind remembered when {@link #maxKeys()} is unset, whatever the heap. */
    int MAX_KEYS_FLOOR = 1_000;

    /**
     * The default bound for a heap of {@code maxHeapBytes}: a sixth of it for both maps, 100,000 keys each from a heap of
     * 512 MiB (the launcher's), fewer below: about 54,000 at -Xmx256m, 27,000 at -Xmx128m (the heap the JVM reports
     * leaves out a survivor space); at least 1,000.
     */
    static int defaultMaxKeys(long maxHeapBytes) {
        long fit = maxHeapBytes / 6 / BYTES_PER_KEY_PAIR;
        return (int) Math.max(MAX_KEYS_FLOOR, Math.min(MAX_KEYS_CEILING, fit));
    }

    /** The bound in force: the setting, else {@link #defaultMaxKeys} of this JVM's heap. */
    default int effectiveMaxKeys() {
        int k = maxKeys().orElseGet(() -> defaultMaxKeys(Runtime.getRuntime().maxMemory()));
        if (k < 1) {
            throw new IllegalArgumentException("fleetmesh.clients.max-keys must be at least 1, was " + k);
        }
        return k;
    }

    /**
     * Client WebSocket connections open at once from one source address (an IPv6 address by its /64, as the budgets
     * key it); one more is told why and closed as it opens (docs/spec/relay.md, "Connections"). Applies while client
     * limits are on.
     */
    @WithDefault("64")
    int maxConnectionsPerAddress();

    /** IP addresses of reverse proxies whose {@link #proxyHeader()} names the client; none by default. */
    Optional<List<String>> trustedProxies();

    /** The header a trusted proxy puts the client's address in (X-Forwarded-For style: proxies append). */
    @WithDefault("X-Forwarded-For")
    String proxyHeader();

    default TierPolicy policy() {
        long seconds = window().getSeconds();
        if (window().getNano() != 0 || seconds < 1) {
            throw new IllegalArgumentException("fleetmesh.clients.window must be whole seconds, was " + window());
        }
        List<Tier> list = new ArrayList<>();
        String[] parts = tiers().split(",");
        for (int i = 0; i < parts.length; i++) {
            String[] f = parts[i].trim().split("/");
            if (f.length != 4) {
                throw new IllegalArgumentException("fleetmesh.clients.tiers: tier " + i
                        + " must be bytes/events/reqs/subscriptions, was \"" + parts[i].trim() + "\"");
            }
            try {
                list.add(new Tier(i, Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3])));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("fleetmesh.clients.tiers: tier " + i + " has a figure that is not a number: \""
                        + parts[i].trim() + "\"");
            }
        }
        return new TierPolicy(list, seconds, climbAfter());
    }
}
