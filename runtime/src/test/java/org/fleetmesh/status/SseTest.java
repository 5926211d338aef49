package org.fleetmesh.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SseTest {
    @Test
    void oneDataLinePerLineAndAnEmptyLineAtTheEnd() {
        assertEquals("event: status\ndata: {\"a\":1}\n\n", Sse.event("status", "{\"a\":1}"));
        assertEquals("data: x\n\n", Sse.event(null, "x"));
        assertEquals("data: \n\n", Sse.event(null, ""));
    }

    @Test
    void lineBreaksInTheDataCannotEndTheEventOrForgeAnother() {
        assertEquals("data: a\ndata: \ndata: event: evil\ndata: b\n\n", Sse.event(null, "a\n\nevent: evil\nb"));
        assertEquals("data: a\ndata: b\ndata: c\n\n", Sse.event(null, "a\r\nb\rc"));
    }

    @Test
    void eventNamesAreOneLine() {
        assertThrows(IllegalArgumentException.class, () -> Sse.event("a\nb", "x"));
        assertThrows(IllegalArgumentException.class, () -> Sse.event("", "x"));
    }

    @Test
    void commentsStayOnOneLine() {
        assertEquals(": a b\n\n", Sse.comment("a\nb"));
    }
}
