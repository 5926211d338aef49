package org.fleetmesh.relay.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Optional;

import org.fleetmesh.peering.grant.Tier;
import org.fleetmesh.peering.grant.TierPolicy;
import org.fleetmesh.relay.RelayLimits;
import org.fleetmesh.relay.limits.ClientLimits;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The NIP-11 document's limitation says what the relay enforces. */
class RelayInfoTest {
    static final ObjectMapper JSON = new ObjectMapper();

    /** A RelayConfig with every value at a neutral default (the document reads only a few). */
    static RelayConfig config() {
        return (RelayConfig) Proxy.newProxyInstance(RelayInfoTest.class.getClassLoader(), new Class<?>[] { RelayConfig.class },
                (proxy, m, args) -> {
                    Class<?> t = m.getReturnType();
                    if (t == Optional.class) {
                        return Optional.empty();
                    }
                    if (t == boolean.class) {
                        return false;
                    }
                    if (t == String.class) {
                        return m.getName();
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }

    JsonNode limitation(ClientLimits clients) throws Exception {
        return JSON.readTree(RelayInfo.document(JSON, config(), RelayLimits.DEFAULT, clients, "ab".repeat(32), "1"))
                .path("limitation");
    }

    /**
     * NIP-11 max_subscriptions: "total number of subscriptions that may be active on a single websocket connection".
     * With client limits on, a fresh client holds at most tier 0's concurrent subscriptions (16 by default), not the
     * per-connection 32 (the 17th REQ is refused rate-limited: seen on a live node; here only the
     * advertised number is checked).
     */
    @Test
    void maxSubscriptionsIsWhatAFreshClientMayHold() throws Exception {
        TierPolicy policy = new TierPolicy(List.of(new Tier(0, 1 << 20, 120, 120, 16), new Tier(1, 4 << 20, 600, 600, 64)),
                60, 10);
        assertEquals(16, limitation(new ClientLimits(policy, 100)).path("max_subscriptions").asInt());
        assertEquals(RelayLimits.DEFAULT.maxSubscriptions(), limitation(ClientLimits.OFF).path("max_subscriptions").asInt());
        TierPolicy roomy = new TierPolicy(List.of(new Tier(0, 1 << 20, 120, 120, 100)), 60, 10);
        assertEquals(RelayLimits.DEFAULT.maxSubscriptions(),
                limitation(new ClientLimits(roomy, 100)).path("max_subscriptions").asInt());
    }
}
