package org.fleetmesh.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

class OperatorSettingsTest {
    @Test
    void pairsAreParsedInOrder() {
        assertEquals(Map.of("shared_buffers", "256MB", "max_wal_size", "1GB"),
                EmbeddedCluster.operatorSettings(" shared_buffers=256MB, max_wal_size = 1GB"));
        assertTrue(EmbeddedCluster.operatorSettings("").isEmpty());
        assertTrue(EmbeddedCluster.operatorSettings(null).isEmpty());
    }

    @Test
    void malformedOrFixedSettingsAreRefusedWithTheReason() {
        for (String bad : new String[] { "shared_buffers", "=1", "a=", "Shared=1", "work_mem=1MB;drop", "x='1'" }) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EmbeddedCluster.operatorSettings(bad));
            assertTrue(e.getMessage().startsWith("FLEETMESH_PG_SETTINGS: expected"), e.getMessage());
        }
        for (String fixed : new String[] { "fsync=off", "listen_addresses=0.0.0.0", "synchronous_commit=off" }) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EmbeddedCluster.operatorSettings(fixed));
            assertTrue(e.getMessage().contains("is fixed by the node"), e.getMessage());
        }
    }
}
