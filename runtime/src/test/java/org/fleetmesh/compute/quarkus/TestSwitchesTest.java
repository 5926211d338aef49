package org.fleetmesh.compute.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The compute test switches that are on, as MarketRuntime names them in a WARN each at start (the WARN itself is not checked here). */
class TestSwitchesTest {
    static MarketConfig config(Map<String, Object> values) {
        return (MarketConfig) Proxy.newProxyInstance(MarketConfig.class.getClassLoader(), new Class<?>[] {MarketConfig.class},
                (p, m, a) -> {
                    if (!values.containsKey(m.getName())) {
                        throw new UnsupportedOperationException(m.getName());
                    }
                    return values.get(m.getName());
                });
    }

    @Test
    void everySwitchOnIsNamed() {
        assertEquals(List.of(), MarketRuntime.testSwitchesOn(
                config(Map.of("testCheatRate", 0.0, "testWithholdKey", false, "testNeverPay", false))));
        List<String> on = MarketRuntime.testSwitchesOn(
                config(Map.of("testCheatRate", 0.5, "testWithholdKey", true, "testNeverPay", true)));
        assertEquals(3, on.size(), on.toString());
        assertTrue(on.get(0).startsWith("fleetmesh.compute.market.test-cheat-rate=0.5"), on.get(0));
        assertTrue(on.get(1).startsWith("fleetmesh.compute.market.test-withhold-key"), on.get(1));
        assertTrue(on.get(2).startsWith("fleetmesh.compute.market.test-never-pay"), on.get(2));
    }
}
