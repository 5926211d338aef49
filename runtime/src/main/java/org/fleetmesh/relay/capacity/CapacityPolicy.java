package org.fleetmesh.relay.capacity;

import java.time.Duration;

/**
 * How the relay reads its pressure and sheds work. Each source of the signal has a high mark
 * (pressure 1.0 at the mark); each tier is shed from a pressure level, the lowest tier from the
 * lowest level, and restored once the pressure has stayed below {@code restoreRatio} times its
 * level for {@code restoreHold}.
 *
 * @param enabled false: nothing is ever shed (the signal is still read, for metrics)
 * @param writeQueueHigh the write queue's fill (0..1] that is pressure 1.0
 * @param commitLatencyHigh the commit latency that is pressure 1.0
 * @param heapHigh the heap's fill after collection (0..1] that is pressure 1.0
 * @param heapFloor the heap's fill that is pressure 0 (a heap always holds some live data)
 * @param queryQueueHigh the query queue's fill (0..1] that is pressure 1.0
 * @param backfillLevel pressure from which NIP-77 sessions and bulk syncs are shed
 * @param peerSyncLevel pressure from which peer traffic is shed
 * @param clientReqLevel pressure from which client REQ and COUNT are shed
 * @param clientEventLevel pressure from which client EVENTs to be stored are shed
 * @param restoreRatio a shed tier comes back below this share of its level (hysteresis)
 * @param restoreHold ... after the pressure stayed there this long
 * @param sampleEvery the signal is read at most this often (0: at every check)
 */
public record CapacityPolicy(boolean enabled, double writeQueueHigh, Duration commitLatencyHigh, double heapHigh,
        double heapFloor, double queryQueueHigh, double backfillLevel, double peerSyncLevel, double clientReqLevel, double clientEventLevel,
        double restoreRatio, Duration restoreHold, Duration sampleEvery) {

    public static final CapacityPolicy DEFAULT = new CapacityPolicy(true, 0.5, Duration.ofSeconds(4), 0.95, 0.5, 0.5, 0.5,
            0.7, 0.85, 1.0, 0.75, Duration.ofSeconds(2), Duration.ofMillis(100));

    /** Reads the signal but never sheds (the relay core's default when it is built without a policy). */
    public static final CapacityPolicy OFF = DEFAULT.withEnabled(false);

    public CapacityPolicy {
        if (!(writeQueueHigh > 0 && writeQueueHigh <= 1) || !(heapHigh > 0 && heapHigh <= 1)
                || !(queryQueueHigh > 0 && queryQueueHigh <= 1)) {
            throw new IllegalArgumentException("capacity: write-queue-high, heap-high and query-queue-high are fractions in (0, 1]: "
                    + writeQueueHigh + ", " + heapHigh + ", " + queryQueueHigh);
        }
        if (!(heapFloor >= 0 && heapFloor < heapHigh)) {
            throw new IllegalArgumentException("capacity: heap-floor must be at least 0 and below heap-high: " + heapFloor);
        }
        if (commitLatencyHigh.isNegative() || commitLatencyHigh.isZero()) {
            throw new IllegalArgumentException("capacity: commit-latency-high must be positive: " + commitLatencyHigh);
        }
        if (!(backfillLevel > 0) || !(backfillLevel <= peerSyncLevel) || !(peerSyncLevel <= clientReqLevel)
                || !(clientReqLevel <= clientEventLevel)) {
            throw new IllegalArgumentException("capacity: the shed levels must be positive and rise with priority "
                    + "(backfill <= peer-sync <= client-req <= client-event): " + backfillLevel + ", " + peerSyncLevel + ", "
                    + clientReqLevel + ", " + clientEventLevel);
        }
        if (!(restoreRatio > 0 && restoreRatio <= 1)) {
            throw new IllegalArgumentException("capacity: restore-ratio is a fraction in (0, 1]: " + restoreRatio);
        }
        if (restoreHold.isNegative() || sampleEvery.isNegative()) {
            throw new IllegalArgumentException("capacity: restore-hold and sample-every may not be negative");
        }
    }

    /** The pressure from which {@code p} is shed; live routing never is. */
    public double shedLevel(Priority p) {
        switch (p) {
        case BACKFILL:
            return backfillLevel;
        case PEER_SYNC:
            return peerSyncLevel;
        case CLIENT_REQ:
            return clientReqLevel;
        case CLIENT_EVENT:
            return clientEventLevel;
        default:
            return Double.POSITIVE_INFINITY;
        }
    }

    public CapacityPolicy withEnabled(boolean on) {
        return new CapacityPolicy(on, writeQueueHigh, commitLatencyHigh, heapHigh, heapFloor, queryQueueHigh, backfillLevel, peerSyncLevel,
                clientReqLevel, clientEventLevel, restoreRatio, restoreHold, sampleEvery);
    }
}
