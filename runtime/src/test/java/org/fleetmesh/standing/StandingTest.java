package org.fleetmesh.standing;

import static org.fleetmesh.standing.Records.DAY_S;
import static org.fleetmesh.standing.Records.NOW_MS;
import static org.fleetmesh.standing.Records.peer;
import static org.fleetmesh.standing.Records.rec;
import static org.fleetmesh.standing.Records.self;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

import org.fleetmesh.spi.standing.FindingRecord;
import org.junit.jupiter.api.Test;

/** docs/spec/standing.md: what counts, by how much, and what moves nothing. */
class StandingTest {
    static final double EPS = 1e-12;
    static final StandingPolicy P = StandingPolicy.defaults();
    /** Every observer is a tier 1 peer. */
    static final ToIntFunction<String> TIER1 = o -> 1;

    static Views views(List<FindingRecord> rs) {
        return Standing.compute(rs, P, TIER1, NOW_MS);
    }

    @Test
    void decayHalvesTheWeightAtEachHalfLife() {
        long halfLife = P.halfLife().toSeconds();
        assertEquals(1 - 0.5, views(List.of(self("e", "did:x", "S2"))).transit("did:x"), EPS);
        FindingRecord aged = rec("e", "did:me", "did:x", "S2", "transit", "d", "VERIFIED", true,
                NOW_MS / 1000 - halfLife);
        assertEquals(1 - 0.25, views(List.of(aged)).transit("did:x"), EPS);
        FindingRecord twice = rec("e", "did:me", "did:x", "S2", "transit", "d", "VERIFIED", true,
                NOW_MS / 1000 - 2 * halfLife);
        assertEquals(1 - 0.125, views(List.of(twice)).transit("did:x"), EPS);
        FindingRecord future = rec("e", "did:me", "did:x", "S2", "transit", "d", "VERIFIED", true,
                NOW_MS / 1000 + halfLife);
        assertEquals(1 - 0.5, views(List.of(future)).transit("did:x"), EPS, "a future created_at counts as age 0");
    }

    @Test
    void aComputeFindingLeavesTransitAtOneAndTheReverse() {
        FindingRecord compute = rec("c", "did:me", "did:x", "S2", "compute", "dc", "VERIFIED", true, NOW_MS / 1000);
        Views v = views(List.of(compute));
        assertEquals(1.0, v.transit("did:x"));
        assertEquals(0.5, v.compute("did:x"), EPS);
        Views t = views(List.of(self("t", "did:x", "S3")));
        assertEquals(0.0, t.transit("did:x"));
        assertEquals(1.0, t.compute("did:x"));
    }

    @Test
    void computeFindingsNeverTouchAnyTransitViewEvenOfObservers() {
        // random findings of both scopes; dropping every compute finding leaves every transit view as it was
        java.util.Random rnd = new java.util.Random(14);
        String[] verdicts = { "VERIFIED", "VERIFIED", "ATTESTED", "FALSE", "MALFORMED" };
        for (int trial = 0; trial < 50; trial++) {
            List<FindingRecord> rs = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                boolean self = rnd.nextInt(4) == 0;
                rs.add(rec("e" + i, self ? "did:me" : "did:n" + rnd.nextInt(8), "did:n" + rnd.nextInt(8),
                        "S" + (1 + rnd.nextInt(3)), rnd.nextBoolean() ? "compute" : "transit", "d" + rnd.nextInt(40),
                        verdicts[rnd.nextInt(verdicts.length)], self, NOW_MS / 1000 - rnd.nextInt(30 * 86_400)));
            }
            ToIntFunction<String> tiers = o -> o.hashCode() & 1;
            Views all = Standing.compute(rs, P, tiers, NOW_MS);
            Views transitOnly = Standing.compute(rs.stream().filter(r -> r.scope().equals("transit")).toList(), P,
                    tiers, NOW_MS);
            for (SubjectView s : all.subjects().values()) {
                assertEquals(transitOnly.transit(s.subject()), s.transit(), "trial " + trial + " " + s.subject());
                assertTrue(s.transit() >= 0 && s.transit() <= 1 && s.compute() >= 0 && s.compute() <= 1);
            }
        }
    }

    @Test
    void aSwarmOfTierZeroObserversMovesNothing() {
        List<FindingRecord> swarm = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            swarm.add(peer("e" + i, "pubkey:fresh" + i, "did:honest", "S3"));
        }
        Map<String, Integer> asked = new HashMap<>();
        Views v = Standing.compute(swarm, P, o -> {
            asked.merge(o, 1, Integer::sum);
            return 0;
        }, NOW_MS);
        SubjectView honest = v.subjects().get("did:honest");
        assertEquals(1.0, honest.transit());
        assertEquals(1.0, honest.compute());
        assertEquals(List.of(), honest.counted());
        assertEquals(100, honest.ignored().size());
        assertTrue(honest.ignored().stream().allMatch(i -> i.why().equals("observer tier 0")), honest.ignored().toString());
        assertEquals(100, asked.size());
        assertTrue(asked.values().stream().allMatch(n -> n == 1), "each observer's tier is asked once");
        // the same findings from tier 1 observers would have sunk it: the tier is what holds the swarm off
        assertEquals(0.0, Standing.compute(swarm, P, TIER1, NOW_MS).transit("did:honest"));
    }

    @Test
    void aPeerObserverWithBadStandingCountsLess() {
        FindingRecord byO = peer("o1", "did:o", "did:x", "S2");
        assertEquals(1 - 0.5 * 0.5, views(List.of(byO)).transit("did:x"), EPS);
        // this node's own S2 against the observer halves its view, and so its weight
        Views v = views(List.of(byO, self("s1", "did:o", "S2")));
        assertEquals(0.5, v.transit("did:o"), EPS);
        assertEquals(1 - 0.5 * 0.5 * 0.5, v.transit("did:x"), EPS);
        assertEquals(0.125, v.subjects().get("did:x").counted().get(0).weight(), EPS);
        // an observer at view 0 weighs nothing at all
        Views sunk = views(List.of(byO, self("s3", "did:o", "S3")));
        assertEquals(1.0, sunk.transit("did:x"));
        assertEquals("observer view_transit is 0", sunk.subjects().get("did:x").ignored().get(0).why());
    }

    @Test
    void twoPoliciesGiveTwoViewsOfTheSameFindings() {
        List<FindingRecord> rs = List.of(peer("f", "did:a", "did:rogue", "S2"));
        double b = Standing.compute(rs, P.withS2(0.5), TIER1, NOW_MS).transit("did:rogue");
        double c = Standing.compute(rs, P.withS2(0.9), TIER1, NOW_MS).transit("did:rogue");
        assertEquals(1 - 0.5 * 0.5, b, EPS);
        assertEquals(1 - 0.9 * 0.5, c, EPS);
        assertNotEquals(b, c);
    }

    @Test
    void oneEvidenceCountsOncePerSubjectAndScopeWithItsHeaviestFinding() {
        FindingRecord mine = rec("mine", "did:me", "did:x", "S2", "transit", "same", "VERIFIED", true, NOW_MS / 1000);
        FindingRecord relayed = rec("theirs", "did:o", "did:x", "S2", "transit", "same", "VERIFIED", false,
                NOW_MS / 1000);
        FindingRecord again = rec("again", "did:p", "did:x", "S2", "transit", "same", "VERIFIED", false,
                NOW_MS / 1000);
        SubjectView x = views(List.of(relayed, mine, again)).subjects().get("did:x");
        assertEquals(0.5, x.transit(), EPS, "only this node's own (weight 0.5) counts, not 0.5 + 0.25 + 0.25");
        assertEquals(List.of("mine"), x.counted().stream().map(Counted::eventId).toList());
        assertEquals(List.of("again", "theirs"), x.ignored().stream().map(Ignored::eventId).sorted().toList());
        assertTrue(x.ignored().stream().allMatch(i -> i.why().equals("duplicate evidence")));
        // the same evidence about another subject is another matter
        FindingRecord other = rec("other", "did:me", "did:y", "S2", "transit", "same", "VERIFIED", true,
                NOW_MS / 1000);
        assertEquals(0.5, views(List.of(mine, other)).transit("did:y"), EPS);
    }

    @Test
    void onlyVerifiedAndAttestedFindingsWeighAndEveryOtherSaysWhy() {
        List<FindingRecord> rs = List.of(
                rec("false", "did:o", "did:x", "S2", "transit", "d1", "FALSE", false, NOW_MS / 1000),
                rec("malformed", "did:o", "did:x", "S2", "transit", "d2", "MALFORMED", false, NOW_MS / 1000 - 1),
                rec("unverifiable", "did:o", "did:x", "S2", "compute", "d3", "UNVERIFIABLE", false, NOW_MS / 1000 - 2),
                rec("attested", "did:o", "did:x", "S3", "transit", "d4", "ATTESTED", false, NOW_MS / 1000 - 3),
                rec("s0", "did:o", "did:x", "S0", "transit", "d5", "VERIFIED", false, NOW_MS / 1000 - 4),
                rec("scope", "did:o", "did:x", "S2", "storage", "d6", "VERIFIED", false, NOW_MS / 1000 - 5));
        SubjectView x = views(rs).subjects().get("did:x");
        assertEquals(1.0, x.transit());
        assertEquals(1.0, x.compute());
        assertEquals(List.of("verdict FALSE: said so", "verdict MALFORMED: said so", "verdict UNVERIFIABLE: said so",
                "attested only (the observer's word; weight.attested is 0)", "severity S0 is not S1, S2 or S3",
                "scope storage is neither transit nor compute"), x.ignored().stream().map(Ignored::why).toList());
        assertEquals("pk-did:x", x.pubkey());
    }

    @Test
    void anAttestedFindingCountsInFullFromThisNodeAndTimesWeightAttestedFromAPeer() {
        FindingRecord own = rec("own", "did:me", "did:x", "S3", "transit", "d1", "ATTESTED", true, NOW_MS / 1000);
        assertEquals(0.0, views(List.of(own)).transit("did:x"));
        FindingRecord theirs = rec("theirs", "did:o", "did:y", "S3", "transit", "d2", "ATTESTED", false,
                NOW_MS / 1000);
        StandingPolicy half = new StandingPolicy(0.1, 0.5, 1.0, 1.0, 0.5, 0.5, 1, P.halfLife(), 0.95, 0.6, 0.2, 4);
        assertEquals(1 - 1.0 * 0.5 * 0.5, Standing.compute(List.of(theirs), half, TIER1, NOW_MS).transit("did:y"),
                EPS);
    }

    @Test
    void theIterationIsExactForChainsAsLongAsItsRoundsAndThenStill() {
        // this node accuses o1; o1 accuses o2; o2 accuses o3; o3 accuses x: each view depends on the one before
        List<FindingRecord> chain = List.of(self("a", "did:o1", "S3"), peer("b", "did:o1", "did:o2", "S3"),
                peer("c", "did:o2", "did:o3", "S3"), peer("d", "did:o3", "did:x", "S3"));
        Map<Integer, Views> byRounds = new HashMap<>();
        for (int k = 1; k <= StandingPolicy.MAX_ITERATIONS; k++) {
            StandingPolicy p = new StandingPolicy(0.1, 0.5, 1.0, 1.0, 0.5, 0.0, 1, P.halfLife(), 0.95, 0.6, 0.2, k);
            byRounds.put(k, Standing.compute(chain, p, TIER1, NOW_MS));
        }
        // exact: o1 = 0 (own S3), o2 = 1 (o1 weighs 0), o3 = 1 - 0.5, x = 1 - 0.5 * 0.5
        Views exact = byRounds.get(4);
        assertEquals(0.0, exact.transit("did:o1"));
        assertEquals(1.0, exact.transit("did:o2"), EPS);
        assertEquals(0.5, exact.transit("did:o3"), EPS);
        assertEquals(0.75, exact.transit("did:x"), EPS);
        assertEquals(0.5, byRounds.get(1).transit("did:x"), EPS, "one round: every observer at full weight");
        for (int k = 4; k <= StandingPolicy.MAX_ITERATIONS; k++) {
            assertEquals(exact, byRounds.get(k), "more rounds change nothing after " + k);
        }
    }

    @Test
    void aCycleOfAccusersStaysInBoundsAndTheWorkIsBoundedByTheRounds() {
        // a and b hold verified evidence against each other: the views alternate between rounds but stay in [0, 1]
        List<FindingRecord> cycle = List.of(peer("ab", "did:a", "did:b", "S3"), peer("ba", "did:b", "did:a", "S3"),
                peer("ab2", "did:a", "did:b", "S3"), peer("ba2", "did:b", "did:a", "S3"));
        Map<String, Integer> asked = new HashMap<>();
        for (int k = 1; k <= StandingPolicy.MAX_ITERATIONS; k++) {
            StandingPolicy p = new StandingPolicy(0.1, 0.5, 1.0, 1.0, 0.5, 0.0, 1, P.halfLife(), 0.95, 0.6, 0.2, k);
            Views v = Standing.compute(cycle, p, o -> {
                asked.merge(o, 1, Integer::sum);
                return 1;
            }, NOW_MS);
            for (SubjectView s : v.subjects().values()) {
                assertTrue(s.transit() >= 0 && s.transit() <= 1, s.toString());
            }
        }
        assertEquals(Map.of("did:a", 16, "did:b", 16), asked, "tiers are asked once per computation");
    }

    @Test
    void aSubjectWithNoFindingsIsAbsentAndViewedAsOne() {
        Views v = views(List.of());
        assertTrue(v.subjects().isEmpty());
        assertEquals(1.0, v.transit("did:anyone"));
        assertEquals(1.0, v.compute("did:anyone"));
        assertFalse(views(List.of(self("e", "did:x", "S1"))).subjects().containsKey("did:y"));
    }

    @Test
    void theSameEventListedTwiceIsOneFinding() {
        FindingRecord f = self("e", "did:x", "S2");
        SubjectView x = views(List.of(f, f)).subjects().get("did:x");
        assertEquals(0.5, x.transit(), EPS);
        assertEquals(1, x.counted().size());
        assertEquals(0, x.ignored().size());
    }

    @Test
    void actionsFollowTheThresholds() {
        assertEquals(Action.NONE, Standing.action(1.0, P));
        assertEquals(Action.NONE, Standing.action(0.95, P));
        assertEquals(Action.DEMOTE, Standing.action(0.94, P));
        assertEquals(Action.DEMOTE, Standing.action(0.6, P));
        assertEquals(Action.SUSPEND, Standing.action(0.59, P));
        assertEquals(Action.SUSPEND, Standing.action(0.2, P));
        assertEquals(Action.QUARANTINE, Standing.action(0.19, P));
        assertEquals(Action.QUARANTINE, Standing.action(0.0, P));
    }

    /** The worked example of docs/spec/standing.md, number for number. */
    @Test
    void theWorkedExampleOfTheSpec() {
        long now = NOW_MS / 1000;
        List<FindingRecord> rs = List.of(
                rec("f1", "did:me", "did:r", "S2", "transit", "fork", "VERIFIED", true, now),
                rec("f2", "did:p", "did:r", "S2", "transit", "withheld", "VERIFIED", false, now - 7 * DAY_S),
                rec("f3", "did:me", "did:p", "S1", "transit", "reset", "VERIFIED", true, now),
                rec("f4", "did:p", "did:r", "S2", "transit", "fork", "VERIFIED", false, now),
                rec("f5", "pubkey:fresh", "did:r", "S3", "transit", "flood", "VERIFIED", false, now),
                rec("f6", "did:me", "did:r", "S2", "compute", "equivocation", "VERIFIED", true, now));
        Map<String, Integer> tiers = Map.of("did:p", 2);
        Views v = Standing.compute(rs, P, o -> tiers.getOrDefault(o, 0), NOW_MS);
        SubjectView r = v.subjects().get("did:r");
        assertEquals(0.3875, r.transit(), EPS);
        assertEquals(0.5, r.compute(), EPS);
        assertEquals(0.9, v.transit("did:p"), EPS);
        assertEquals(List.of("f1 0.5", "f6 0.5", "f2 0.1125"),
                r.counted().stream().map(c -> c.eventId() + " " + Math.round(c.weight() * 1e4) / 1e4).toList());
        assertEquals(List.of("f4 duplicate evidence", "f5 observer tier 0"),
                r.ignored().stream().map(i -> i.eventId() + " " + i.why()).sorted().toList());
        assertEquals(Action.SUSPEND, Standing.action(r.transit(), P));
        assertEquals(Action.DEMOTE, Standing.action(v.transit("did:p"), P));
    }

    /** MEASURE: compute() over 10,000 records (logged, not asserted). */
    @Test
    void measureComputeOverTenThousandRecords() {
        List<FindingRecord> rs = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            String subject = "did:s" + (i % 500);
            String observer = i % 3 == 0 ? "did:me" : "did:s" + ((i * 7) % 500);
            rs.add(rec("e" + i, observer, subject, i % 2 == 0 ? "S1" : "S2", i % 5 == 0 ? "compute" : "transit",
                    "d" + (i % 7000), i % 4 == 0 ? "FALSE" : "VERIFIED", i % 3 == 0, NOW_MS / 1000 - i * 60L));
        }
        Views v = null;
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long t0 = System.nanoTime();
            v = Standing.compute(rs, P, o -> 1, NOW_MS);
            best = Math.min(best, System.nanoTime() - t0);
        }
        System.out.printf("MEASURE standing compute over %d records, %d subjects, %d rounds: %.1f ms (best of 5)%n",
                rs.size(), v.subjects().size(), P.iterations(), best / 1e6);
        assertEquals(500, v.subjects().size());
    }
}
