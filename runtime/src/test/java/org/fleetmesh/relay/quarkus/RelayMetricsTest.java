package org.fleetmesh.relay.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The events counter's labels: the answer's prefix word, from a short fixed list. */
class RelayMetricsTest {

    static String reason(String message) {
        return RelayMetrics.REASONS.get(RelayMetrics.reason(message));
    }

    @Test
    void theReasonIsTheAnswersPrefixWord() {
        assertEquals("invalid", reason("invalid: bad signature"));
        assertEquals("rate-limited", reason("rate-limited: the relay is under load (write queue 60% full); ..."));
        assertEquals("duplicate", reason("duplicate: already have this event"));
        assertEquals("auth-required", reason("auth-required: this event is protected (NIP-70)"));
    }

    @Test
    void noPrefixIsNoneAndAnUnknownWordIsOther() {
        assertEquals("none", reason(""));
        assertEquals("none", reason("no colon here"));
        assertEquals("none", reason(": leading colon"));
        assertEquals("other", reason("surprising: words stay out of the labels"));
        assertEquals("other", reason("invalidated: not the word invalid"));
    }
}
