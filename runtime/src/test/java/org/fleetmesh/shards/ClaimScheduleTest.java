package org.fleetmesh.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.nostr.Filter;
import org.junit.jupiter.api.Test;

class ClaimScheduleTest {
    static final long T = ClaimTest.T0;
    static final Shard S = ClaimTest.SHARD;
    final ClaimSchedule schedule = new ClaimSchedule(Duration.ofSeconds(10));

    static byte[] fp(int b) {
        byte[] f = new byte[16];
        f[0] = (byte) b;
        return f;
    }

    static Claim claim(Shard s, long count, byte[] fp, long at) throws ClaimException {
        return Claim.read(Claim.sign(s, new ShardFigures(count, fp, new byte[32]), at, ClaimTest.SECRET));
    }

    @Test
    void aShardWithoutAClaimIsDueAtOnce() {
        assertTrue(schedule.due(S, 0, fp(0), T));
        assertEquals(java.util.Optional.empty(), schedule.last(S.id()));
    }

    @Test
    void unchangedFiguresAreNeverDue() throws Exception {
        schedule.published(claim(S, 5, fp(1), T));
        assertFalse(schedule.due(S, 5, fp(1), T + 1000));
    }

    @Test
    void changedFiguresWaitForTheInterval() throws Exception {
        schedule.published(claim(S, 5, fp(1), T));
        assertFalse(schedule.due(S, 6, fp(2), T + 9), "within the interval");
        assertTrue(schedule.due(S, 6, fp(2), T + 10));
        assertTrue(schedule.due(S, 5, fp(3), T + 10), "the same count with another fingerprint is a change too");
    }

    @Test
    void anotherFilterOrModeIsDueAtOnceButNeverInTheSameSecond() throws Exception {
        schedule.published(claim(S, 5, fp(1), T));
        Shard otherFilter = new Shard(S.id(), new Filter(null, null, Set.of(1), Map.of(), null, null, null), S.mode());
        Shard otherMode = new Shard(S.id(), S.filter(), Shard.Mode.REPLICATED);
        assertFalse(schedule.due(otherFilter, 5, fp(1), T), "created_at must grow");
        assertTrue(schedule.due(otherFilter, 5, fp(1), T + 1));
        assertTrue(schedule.due(otherMode, 5, fp(1), T + 1));
    }

    @Test
    void aZeroIntervalStillNeedsALaterSecond() throws Exception {
        ClaimSchedule eager = new ClaimSchedule(Duration.ZERO);
        eager.published(claim(S, 5, fp(1), T));
        assertFalse(eager.due(S, 6, fp(2), T));
        assertTrue(eager.due(S, 6, fp(2), T + 1));
    }

    @Test
    void anOlderClaimDoesNotReplaceTheLast() throws Exception {
        Claim newer = claim(S, 6, fp(2), T + 20);
        schedule.published(newer);
        schedule.published(claim(S, 5, fp(1), T));
        assertEquals(newer, schedule.last(S.id()).orElseThrow());
    }

    @Test
    void aWithdrawnShardIsDueAgainOnlyAfterTheDeletion() throws Exception {
        schedule.published(claim(S, 5, fp(1), T));
        schedule.withdrawn(S.id(), T + 30);
        assertEquals(java.util.Optional.empty(), schedule.last(S.id()));
        assertFalse(schedule.due(S, 5, fp(1), T + 30), "a claim at the deletion's second would be refused");
        assertTrue(schedule.due(S, 5, fp(1), T + 31));
    }
}
