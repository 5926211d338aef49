package org.fleetmesh.compute.market;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.fleetmesh.compute.JobSpec;
import org.junit.jupiter.api.Test;

/** Worker choice: the cheapest fitting offer, view_compute breaking ties and keeping low-standing workers out. */
class WorkerChoiceTest {
    static final String Z = "0".repeat(64);
    static final JobSpec JOB = new JobSpec(Z, Z, List.of(), 1_000_000, 16, 0, Z);

    static WorkerChoice.Candidate offer(String did, long perKfuel, long min, double view, boolean linked) {
        return new WorkerChoice.Candidate(new Offer("default", did, List.of("chicory"), perKfuel, min, 1_000_000_000L,
                256, 1 << 20, List.of("ln"), ""), view, linked);
    }

    static String chosen(List<WorkerChoice.Candidate> all, double minView) {
        return WorkerChoice.cheapest(all, JOB, 1_000_000, "ln", minView).chosen().map(c -> c.offer().did())
                .orElse("none");
    }

    @Test
    void theCheapestAtTheFuelLimitWins() {
        assertEquals("b", chosen(List.of(offer("a", 10, 1000, 1.0, true), offer("b", 2, 1000, 0.9, true)), 0));
    }

    @Test
    void atEqualPriceTheBetterComputeStandingWins() {
        assertEquals("b", chosen(List.of(offer("a", 2, 1000, 0.7, true), offer("b", 2, 1000, 0.9, true)), 0));
    }

    @Test
    void aWorkerBelowMinViewComputeIsSkippedEvenWhenCheapest() {
        assertEquals("a", chosen(List.of(offer("a", 10, 1000, 0.9, true), offer("b", 1, 1000, 0.3, true)), 0.5));
        WorkerChoice.Choice none = WorkerChoice.cheapest(List.of(offer("b", 1, 1000, 0.3, true)), JOB, 1_000_000,
                "ln", 0.5);
        assertTrue(none.chosen().isEmpty());
        assertEquals("worker b: view_compute 0.3 is below min-view-compute 0.5", none.reason());
    }

    @Test
    void unlinkedOverLimitsOtherRailsAndTooDearAreSkipped() {
        WorkerChoice.Candidate unlinked = offer("u", 0, 0, 1, false);
        WorkerChoice.Candidate dear = offer("d", 1, 2_000_000, 1, true);
        assertEquals("none", chosen(List.of(unlinked, dear), 0));
        assertTrue(WorkerChoice.unfit(dear, JOB, 1_000_000, "ln", 0).contains("min_price"));
        assertTrue(WorkerChoice.unfit(offer("r", 1, 1, 1, true), JOB, 1_000_000, "", 0).contains("no rail"));
        JobSpec big = new JobSpec(Z, Z, List.of(), 2_000_000_000L, 16, 0, Z);
        assertTrue(WorkerChoice.unfit(offer("l", 1, 1, 1, true), big, 1_000_000, "ln", 0).contains("limits"));
        // a free offer needs no rail
        assertEquals(null, WorkerChoice.unfit(offer("f", 0, 0, 1, true), JOB, 0, "", 0));
    }

    static final String CASHU = "cashu:http://mint";

    static WorkerChoice.Candidate railsOffer(String did, long perKfuel, List<String> rails) {
        return new WorkerChoice.Candidate(new Offer("default", did, List.of("chicory"), perKfuel, 1000, 1_000_000_000L,
                256, 1 << 20, rails, ""), 1.0, true);
    }

    @Test
    void aWorkerTakingOnlyLnIsUnfitForABuyerPayingOnlyWithCashu() {
        assertEquals("worker ln-only: it takes [ln]; this node pays with [cashu:http://mint]",
                WorkerChoice.unfit(railsOffer("ln-only", 1, List.of("ln")), JOB, 1_000_000, List.of(CASHU), 0));
    }

    @Test
    void aWorkerSharingOneRailWithTheBuyerIsFit() {
        assertEquals(null, WorkerChoice.unfit(railsOffer("both", 1, List.of("ln", CASHU)), JOB, 1_000_000,
                List.of(CASHU), 0));
        assertEquals(null, WorkerChoice.unfit(railsOffer("cashu-only", 1, List.of(CASHU)), JOB, 1_000_000,
                List.of("ln", CASHU), 0));
    }

    @Test
    void aCashuOnlyBuyerSkipsACheaperLnOnlyWorkerAndPaysTheOtherWithCashu() {
        WorkerChoice.Choice c = WorkerChoice.cheapest(List.of(railsOffer("ln-only", 1, List.of("ln")),
                railsOffer("both", 5, List.of("ln", CASHU))), JOB, 1_000_000, List.of(CASHU), 0);
        assertEquals("both", c.chosen().orElseThrow().offer().did());
        assertEquals(java.util.Optional.of(CASHU), WorkerChoice.rail(c.chosen().get().offer(), List.of(CASHU)));
    }

    @Test
    void theBuyerPaysWithItsMostPreferredRailThatTheOfferLists() {
        Offer both = railsOffer("both", 1, List.of(CASHU, "ln")).offer();
        assertEquals(java.util.Optional.of("ln"), WorkerChoice.rail(both, List.of("ln", CASHU)));
        assertEquals(java.util.Optional.of(CASHU), WorkerChoice.rail(both, List.of(CASHU, "ln")));
        assertEquals(java.util.Optional.empty(), WorkerChoice.rail(railsOffer("l", 1, List.of("ln")).offer(),
                List.of(CASHU)));
    }
}
