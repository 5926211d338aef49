package org.fleetmesh.identity.capability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;

import org.fleetmesh.identity.capability.CapabilityException.Reason;
import org.junit.jupiter.api.Test;

class VocabularyTest {
    @Test
    void findsThePredicatesOfAPrintedCheckButNotMethodsOrStrings() {
        assertEquals(Set.of("operation"), Vocabulary.predicatesOf(
                "check if operation($op), [\"time(x)\", \"fuel(\"].contains($op)"));
        assertEquals(Set.of("fuel", "fuel_limit"), Vocabulary.predicatesOf("check if fuel($f), fuel_limit($l), $f <= $l"));
    }

    @Test
    void namesTheRefusalByWhatTheCheckQueries() {
        assertEquals(Reason.EXPIRED, Vocabulary.reasonFor("check if time($t), operation($o), $t <= 2026-01-01T00:00:00Z"));
        assertEquals(Reason.WRONG_HOLDER, Vocabulary.reasonFor("check if holder($h), subject($h)"));
        assertEquals(Reason.RIGHT_NOT_GRANTED, Vocabulary.reasonFor("check if operation(\"relay:read\")"));
        assertEquals(Reason.FUEL_OVER_LIMIT, Vocabulary.reasonFor("check if fuel($f), $f <= 5"));
        assertEquals(Reason.CHECK_FAILED, Vocabulary.reasonFor("check if resource(\"time(\")"));
    }
}
