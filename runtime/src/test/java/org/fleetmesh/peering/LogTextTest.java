package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LogTextTest {
    @Test
    void aPeersTextCannotStartALineOfItsOwn() {
        assertEquals("x0\\n22:00:00.000 ERROR [fake] injected\\r\\u0000\\u2028end",
                LogText.of("x0\n22:00:00.000 ERROR [fake] injected\r\u0000\u2028end"));
    }

    @Test
    void aLongTextIsClippedWithTheCountLeftOut() {
        String s = "y".repeat(150_000);
        assertEquals("y".repeat(LogText.MAX) + "... (" + (150_000 - LogText.MAX) + " more characters)", LogText.of(s));
        assertEquals("short", LogText.of("short"));
        assertEquals("", LogText.of(null));
    }
}
