package org.fleetmesh.identity.capability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import org.junit.jupiter.api.Test;

class RightsTest {
    @Test
    void namesTheRightsAsTheSpecWritesThem() {
        assertEquals("compute:run admin:read admin:write relay:publish relay:read peer:sync",
                String.join(" ", java.util.Arrays.stream(Right.values()).map(Right::value).toList()));
        assertEquals(Optional.of(Right.PEER_SYNC), Right.parse("peer:sync"));
        assertEquals(Optional.empty(), Right.parse("peer:*"));
    }

    @Test
    void computeComesWithAFuelLimit() {
        Rights r = Rights.of(Right.RELAY_READ).andComputeRun(7);
        assertEquals(Set.of(Right.RELAY_READ, Right.COMPUTE_RUN), r.rights());
        assertEquals(OptionalLong.of(7), r.fuelLimit());
        assertEquals(OptionalLong.empty(), Rights.of(Right.RELAY_READ).fuelLimit());
        assertTrue(Rights.computeRun(1).and(Right.ADMIN_READ).grants(Right.COMPUTE_RUN));
    }

    @Test
    void refusesComputeWithoutAFuelLimit() {
        assertThrows(IllegalArgumentException.class, () -> Rights.of(Right.COMPUTE_RUN));
        assertThrows(IllegalArgumentException.class, () -> Rights.of(Right.RELAY_READ, Right.COMPUTE_RUN));
        assertThrows(IllegalArgumentException.class, () -> Rights.computeRun(0));
        assertThrows(IllegalArgumentException.class, () -> Rights.computeRun(5).andComputeRun(6));
    }
}
