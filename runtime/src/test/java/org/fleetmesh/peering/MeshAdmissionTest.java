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
}
