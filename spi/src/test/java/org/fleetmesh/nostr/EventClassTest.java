package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** NIP-01 kind ranges, at each boundary. */
class EventClassTest {

    @ParameterizedTest(name = "kind {0} is {1}")
    @CsvSource({
            "0, REPLACEABLE",
            "1, REGULAR",
            "2, REGULAR",
            "3, REPLACEABLE",
            "4, REGULAR",
            "9999, REGULAR",
            "10000, REPLACEABLE",
            "19999, REPLACEABLE",
            "20000, EPHEMERAL",
            "29999, EPHEMERAL",
            "30000, ADDRESSABLE",
            "39999, ADDRESSABLE",
            "40000, REGULAR",
            "65535, REGULAR" })
    void kindBoundaries(int kind, EventClass expected) {
        assertEquals(expected, EventClass.of(kind));
    }

    @Test
    void eventReportsTheClassOfItsKind() {
        assertEquals(EventClass.ADDRESSABLE, TestEvents.event(1L, 30023, List.of()).eventClass());
        assertEquals(EventClass.REPLACEABLE, TestEvents.event(1L, 0, List.of()).eventClass());
    }
}
