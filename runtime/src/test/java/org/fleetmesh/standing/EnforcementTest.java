package org.fleetmesh.standing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.fleetmesh.standing.Enforcement.Step;
import org.junit.jupiter.api.Test;

class EnforcementTest {

    @Test
    void aViewCrossingBelowDemoteDemotesOncePerCrossing() {
        Enforcement e = new Enforcement(16);
        assertEquals(List.of(Step.DEMOTE), e.steps("x", Action.DEMOTE));
        assertEquals(List.of(), e.steps("x", Action.DEMOTE), "still below: no second demotion");
        assertEquals(List.of(), e.steps("x", Action.NONE));
        assertEquals(List.of(Step.DEMOTE), e.steps("x", Action.DEMOTE), "a new crossing");
    }

    @Test
    void suspensionLastsWhileTheViewIsBelowAndIsLiftedWhenItRecovers() {
        Enforcement e = new Enforcement(16);
        assertEquals(List.of(Step.DEMOTE, Step.SUSPEND), e.steps("x", Action.SUSPEND));
        assertEquals(List.of(), e.steps("x", Action.SUSPEND));
        assertEquals(List.of(Step.QUARANTINE), e.steps("x", Action.QUARANTINE), "already suspended");
        assertEquals(List.of(), e.steps("x", Action.QUARANTINE));
        assertEquals(List.of(Step.REINSTATE), e.steps("x", Action.DEMOTE), "recovered above suspend-below");
        assertEquals(List.of(), e.steps("x", Action.NONE));
        assertTrue(e.acted().isEmpty());
    }

    @Test
    void straightToQuarantine() {
        Enforcement e = new Enforcement(16);
        assertEquals(List.of(Step.DEMOTE, Step.SUSPEND, Step.QUARANTINE), e.steps("x", Action.QUARANTINE));
        assertEquals(List.of(Step.REINSTATE), e.steps("x", Action.NONE));
    }

    @Test
    void peersRememberedAreBounded() {
        Enforcement e = new Enforcement(2);
        e.steps("a", Action.SUSPEND);
        e.steps("b", Action.SUSPEND);
        e.steps("c", Action.SUSPEND);
        assertEquals(2, e.acted().size());
    }
}
