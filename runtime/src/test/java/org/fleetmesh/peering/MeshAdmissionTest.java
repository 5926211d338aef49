package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

class MeshAdmissionTest {

    @Test
    void theTotalCapRefusesTheNextConnectionBusy() {
        MeshAdmission caps = new MeshAdmission(2, 8);
        assertEquals(Optional.empty(), caps.admit("10.0.0.1"));
        assertEquals(Optional.empty(), caps.admit("10.0.0.2"));
        Refusal busy = caps.admit("10.0.0.3").orElseThrow();
        assertEquals("busy: this node holds 2 /mesh connections, its limit; try again later", busy.reason());
        caps.release("10.0.0.1");
        assertEquals(Optional.empty(), caps.admit("10.0.0.3"), "a closed connection gives its place back");
        assertEquals(2, caps.total());
    }

    @Test
    void onePlaceCannotTakeMoreThanItsShare() {
        MeshAdmission caps = new MeshAdmission(100, 2);
        caps.admit("10.0.0.1");
        caps.admit("10.0.0.1");
        assertEquals("busy: this node holds 2 /mesh connections from your address, its limit per address",
                caps.admit("10.0.0.1").orElseThrow().reason());
        assertTrue(caps.admit("10.0.0.2").isEmpty(), "other addresses still get in");
        assertEquals(3, caps.total(), "a refused connection takes no place");
    }

    @Test
    void releasingWhatWasNeverAdmittedIsABug() {
        assertThrows(IllegalStateException.class, () -> new MeshAdmission(1, 1).release("10.0.0.1"));
    }

    @Test
    void strangersHoldAtMostThePlacesNotKeptForKnownPeers() {
        MeshAdmission caps = new MeshAdmission(4, 8, 2);
        for (int i = 1; i <= 4; i++) {
            assertEquals(Optional.empty(), caps.admit("10.0.0." + i), "every connection gets in to handshake");
        }
        assertEquals(Optional.empty(), caps.stranger());
        assertEquals(Optional.empty(), caps.stranger());
        assertEquals("busy: this node keeps 2 of its 4 /mesh places for peers it declared or trusts; new peers hold the"
                + " rest; try again later", caps.stranger().orElseThrow().reason());
        assertEquals(2, caps.strangers(), "a refused stranger takes no place");
        caps.strangerLeft();
        assertEquals(Optional.empty(), caps.stranger(), "a stranger's closed link gives its place back");
        assertThrows(IllegalStateException.class, () -> {
            MeshAdmission none = new MeshAdmission(4, 8, 2);
            none.strangerLeft();
        });
    }

    @Test
    void theReservationLeavesStrangersAPlace() {
        assertThrows(IllegalArgumentException.class, () -> new MeshAdmission(4, 8, 4));
        assertThrows(IllegalArgumentException.class, () -> new MeshAdmission(4, 8, -1));
        assertTrue(new MeshAdmission(4, 8, 3).stranger().isEmpty());
    }
}
