package org.fleetmesh.adapters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

class BuiltAdaptersTest {
    private static final String FULL = "org.fleetmesh.compute.wasmtime,org.fleetmesh.core,org.fleetmesh.settlement.cashu,"
            + "org.fleetmesh.settlement.lightning,org.fleetmesh.storage";

    @Test
    void aFullBuildRunsEverySetting() {
        BuiltAdapters built = BuiltAdapters.parse(FULL);
        Map<String, String> settings = Map.of("fleetmesh.lightning.enabled", "true", "fleetmesh.cashu.enabled", "true",
                "fleetmesh.compute.sandbox.runtime", "wasmtime");
        assertEquals(List.of(), built.problems(k -> Optional.ofNullable(settings.get(k))));
    }

    @Test
    void aLeanBuildRefusesTheRailsItLeftOutAndOnlyThose() {
        BuiltAdapters built = BuiltAdapters.parse(" org.fleetmesh.core, org.fleetmesh.storage ,");
        assertEquals(Set.of("org.fleetmesh.core", "org.fleetmesh.storage"), built.capabilities());
        List<String> problems = built.problems(k -> Optional.ofNullable(Map.of("fleetmesh.cashu.enabled", "TRUE",
                "fleetmesh.lightning.enabled", "false", "fleetmesh.compute.sandbox.runtime", "chicory").get(k)));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("fleetmesh.cashu.enabled=true needs the adapter org.fleetmesh.settlement.cashu"),
                problems.get(0));
        assertTrue(problems.get(0).contains("-Dno-cashu"), problems.get(0));
        assertEquals(2, built.problems(k -> Optional.ofNullable(Map.of("fleetmesh.lightning.enabled", "true",
                "fleetmesh.compute.sandbox.runtime", "wasmtime").get(k))).size());
        assertTrue(built.problems(k -> Optional.empty()).isEmpty());
    }

    @Test
    void noPropertyMeansNoAdapters() {
        assertTrue(BuiltAdapters.parse(null).capabilities().isEmpty());
        assertEquals(1, BuiltAdapters.parse(null).problems(k -> k.equals("fleetmesh.lightning.enabled")
                ? Optional.of("true") : Optional.empty()).size());
    }
}
