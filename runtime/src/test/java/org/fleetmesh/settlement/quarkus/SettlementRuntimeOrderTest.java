package org.fleetmesh.settlement.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;

import org.fleetmesh.settlement.EscrowAgentRailsTest;
import org.fleetmesh.spi.settlement.SettlementRail;
import org.junit.jupiter.api.Test;

/** The node's rails in the order of {@code fleetmesh.settlement.rails}: ids or id prefixes, the rest by id. */
class SettlementRuntimeOrderTest {
    static final SettlementRail LN = EscrowAgentRailsTest.rail("ln");
    static final SettlementRail MINT_B = EscrowAgentRailsTest.rail("cashu:https://b.example");
    static final SettlementRail MINT_A = EscrowAgentRailsTest.rail("cashu:https://a.example");

    static List<String> ids(List<SettlementRail> made, List<String> preference) {
        return List.copyOf(SettlementRuntime.ordered(made, preference).keySet());
    }

    @Test
    void withoutAPreferenceTheRailsAreOrderedById() {
        assertEquals(List.of("cashu:https://a.example", "cashu:https://b.example", "ln"),
                ids(List.of(LN, MINT_B, MINT_A), List.of()));
    }

    @Test
    void aPrefixUpToAColonPrefersEveryRailItStarts() {
        assertEquals(List.of("ln", "cashu:https://a.example", "cashu:https://b.example"),
                ids(List.of(MINT_B, MINT_A, LN), List.of("ln", "cashu")));
        assertEquals(List.of("cashu:https://a.example", "cashu:https://b.example", "ln"),
                ids(List.of(LN, MINT_B, MINT_A), List.of("cashu", "ln")));
    }

    @Test
    void anExactIdComesBeforeThoseNotNamed() {
        assertEquals(List.of("cashu:https://b.example", "cashu:https://a.example", "ln"),
                ids(List.of(LN, MINT_A, MINT_B), List.of("cashu:https://b.example")));
    }

    @Test
    void aPrefixMatchesOnlyAtAColon() {
        SettlementRail lnurl = EscrowAgentRailsTest.rail("lnurl");
        assertEquals(List.of("ln", "cashu:https://a.example", "lnurl"),
                ids(List.of(lnurl, MINT_A, LN), List.of("ln", "cashu")), "ln does not name lnurl");
    }

    @Test
    void aRepeatedIdKeepsTheFirstRail() {
        SettlementRail other = EscrowAgentRailsTest.rail("ln");
        Map<String, SettlementRail> m = SettlementRuntime.ordered(List.of(LN, other), List.of());
        assertEquals(1, m.size());
        assertSame(LN, m.get("ln"));
    }
}
