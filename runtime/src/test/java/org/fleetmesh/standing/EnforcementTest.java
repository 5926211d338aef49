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
        assertEquals(List.of(Step.REINSTATE), e.steps("x", Action.DEMOTE), "recovered above suspend-below");
        assertEquals(List.of(), e.steps("x", Action.NONE));
        assertTrue(e.acted().isEmpty());
    }

    @Test
    void aQuarantineTakesThePlaceOfASuspension() {
        Enforcement e = new Enforcement(16);
        assertEquals(List.of(Step.DEMOTE, Step.QUARANTINE), e.steps("x", Action.QUARANTINE));
        assertEquals(List.of(), e.steps("x", Action.QUARANTINE), "once per crossing: its end lets the peer back");
        assertEquals(List.of(Step.SUSPEND), e.steps("x", Action.SUSPEND), "climbing into the suspension range");
        assertEquals(List.of(Step.QUARANTINE), e.steps("x", Action.QUARANTINE), "a new crossing");
        assertEquals(List.of(), e.steps("x", Action.NONE), "nothing is suspended after a quarantine");
        Enforcement f = new Enforcement(16);
        f.steps("y", Action.SUSPEND);
        assertEquals(List.of(Step.QUARANTINE), f.steps("y", Action.QUARANTINE), "a suspended peer sinks further");
        assertEquals(List.of(), f.steps("y", Action.DEMOTE));
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
