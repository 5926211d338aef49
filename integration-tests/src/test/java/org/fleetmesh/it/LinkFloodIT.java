package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.fleetmesh.peering.link.EventFrame;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.vertx.core.Vertx;

/**
 * The flood figures (docs/BENCHMARKS.md): one packaged node, an honest peer publishing 20 one-event frames a second,
 * and a rogue peer (real handshake, fresh keys) offering 200 ten-event frames a second, about 67 times its grant of
 * 300 events per 10 s. The flooder is held to its grant within 5% over a minute; the honest peer keeps its throughput
 * within 10%, its p50 answer latency within 2x of its baseline without the flood and its p99 within 2x or 60 ms of it.
 * The violation threshold is raised out of reach here, so the flood runs the whole minute (LinkGrantsIT shows the
 * quarantine).
 */
class LinkFloodIT {
    static final int GRANT_EVENTS = 300;
    static final int WINDOW_SECONDS = 10;
    static final int FLOOD_SECONDS = 60;
    static final int BASELINE_SECONDS = 20;
    static final int FLOOD_FRAME = 10;
    static final int FLOOD_FRAMES_PER_SECOND = 200;
    static final int HONEST_FRAMES_PER_SECOND = 20;
    static MeshnodeProcess node;
    static Vertx vertx;

    @BeforeAll
    static void start() {
        node = MeshnodeProcess.start("link-flood", Map.of(
                "FLEETMESH_DELIVERY_RECEIPTS", "false",
                "FLEETMESH_GRANTS_WINDOW", WINDOW_SECONDS + "s",
                "FLEETMESH_GRANTS_TIER_BYTES", "16777216,33554432",
                "FLEETMESH_GRANTS_TIER_EVENTS", GRANT_EVENTS + ",600",
                "FLEETMESH_GRANTS_CLIMB_AFTER", "1000",
                "FLEETMESH_GRANTS_VIOLATION_THRESHOLD", "1000000000",
                "FLEETMESH_GRANTS_VIOLATION_TOLERANCE", "0"));
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() throws Exception {
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        if (node != null) {
            node.close();
        }
    }

    /** A peer sending frames on a fixed rate and timing each frame's answer. */
    static final class Sender {
        final MeshPeer peer;
        final Map<Long, Long> sentAt = new ConcurrentHashMap<>();
        final List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
        final AtomicLong admittedEvents = new AtomicLong();
        final AtomicLong acceptedEvents = new AtomicLong();
        final AtomicLong refusedFrames = new AtomicLong();
        final AtomicLong seq = new AtomicLong();

        Sender(MeshPeer peer) {
            this.peer = peer;
            peer.listener = this::answer;
        }

        void answer(String m) {
            long now = System.nanoTime();
            if (m.startsWith("[\"" + EventFrame.EVENTS_OK + "\"")) {
                JsonNode a = MeshPeer.json(m);
                Long at = sentAt.remove(a.get(1).get("seq").asLong());
                if (at != null) {
                    latencies.add(now - at);
                }
                admittedEvents.addAndGet(a.get(2).size());
                for (JsonNode row : a.get(2)) {
                    if (row.get(1).asBoolean()) {
                        acceptedEvents.incrementAndGet();
                    }
                }
            } else if (m.startsWith("[\"" + EventFrame.REFUSED + "\"")) {
                sentAt.remove(MeshPeer.json(m).get(1).get("seq").asLong());
                refusedFrames.incrementAndGet();
            }
        }

        void send(List<String> events) {
            long s = seq.incrementAndGet();
            sentAt.put(s, System.nanoTime());
            peer.send(peer.frame(s, events));
        }

        void reset() {
            latencies.clear();
            admittedEvents.set(0);
            acceptedEvents.set(0);
            refusedFrames.set(0);
        }

        /** The answer latencies so far, and a fresh start. */
        List<Long> takeLatencies() {
            synchronized (latencies) {
                List<Long> l = new ArrayList<>(latencies);
                latencies.clear();
                return l;
            }
        }
    }

    static long percentileMicros(List<Long> nanos, double p) {
        List<Long> l = new ArrayList<>(nanos);
        Collections.sort(l);
        return l.isEmpty() ? -1 : l.get((int) Math.ceil(l.size() * p) - 1) / 1000;
    }

    @Test
    void theFlooderIsHeldToItsGrantAndTheHonestPeerIsNotSlowed() throws Exception {
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
        try (MeshPeer honestPeer = new MeshPeer(vertx, "honest"); MeshPeer rogue = new MeshPeer(vertx, "rogue")) {
            honestPeer.link(node);
            honestPeer.exchange();
            rogue.link(node);
            rogue.exchange();
            Sender honest = new Sender(honestPeer);
            Sender flooder = new Sender(rogue);
            List<String> honestNotes = honestPeer.notes((BASELINE_SECONDS + FLOOD_SECONDS + 10) * HONEST_FRAMES_PER_SECOND, 0);
            List<String> ring = rogue.notes(4000, 0);
            AtomicLong honestNext = new AtomicLong();
            AtomicLong floodNext = new AtomicLong();

            // the honest peer publishes throughout: alone for half the baseline, beside the flood, alone again; the
            // baseline pools both quiet halves, so load elsewhere on the machine weighs on both figures alike
            var honestTask = timers.scheduleAtFixedRate(() -> honest.send(List.of(honestNotes.get(
                    (int) honestNext.getAndIncrement()))), 0, 1000 / HONEST_FRAMES_PER_SECOND, TimeUnit.MILLISECONDS);
            Thread.sleep(2000); // warm-up, not counted
            honest.reset();
            Thread.sleep(BASELINE_SECONDS * 500L);
            List<Long> baselineLatencies = honest.takeLatencies();
            long baselineAccepted = honest.acceptedEvents.getAndSet(0);

            long floodStart = System.nanoTime();
            var floodTask = timers.scheduleAtFixedRate(() -> {
                if (System.nanoTime() - floodStart >= TimeUnit.SECONDS.toNanos(FLOOD_SECONDS)) {
                    return;
                }
                int from = (int) (floodNext.getAndIncrement() * FLOOD_FRAME % (ring.size() - FLOOD_FRAME));
                flooder.send(ring.subList(from, from + FLOOD_FRAME));
            }, 0, 1_000_000 / FLOOD_FRAMES_PER_SECOND, TimeUnit.MICROSECONDS);
            Thread.sleep(FLOOD_SECONDS * 1000L);
            floodTask.cancel(false);
            List<Long> floodLatencies = honest.takeLatencies();
            long honestAcceptedDuringFlood = honest.acceptedEvents.getAndSet(0);
            Thread.sleep(1000); // the flood's last answers, not counted for the honest peer
            honest.takeLatencies();
            honest.acceptedEvents.set(0);
            Thread.sleep(BASELINE_SECONDS * 500L);
            honestTask.cancel(false);
            baselineLatencies.addAll(honest.takeLatencies());
            baselineAccepted += honest.acceptedEvents.get();
            long admitted = flooder.admittedEvents.get();
            long offered = floodNext.get() * FLOOD_FRAME;
            long baselineP50 = percentileMicros(baselineLatencies, 0.50);
            long baselineP99 = percentileMicros(baselineLatencies, 0.99);
            long floodP50 = percentileMicros(floodLatencies, 0.50);
            long floodP99 = percentileMicros(floodLatencies, 0.99);

            long expected = GRANT_EVENTS + (long) FLOOD_SECONDS * GRANT_EVENTS / WINDOW_SECONDS;
            double baselineRate = baselineAccepted / (double) BASELINE_SECONDS;
            double floodRate = honestAcceptedDuringFlood / (double) FLOOD_SECONDS;
            String figures = String.format(java.util.Locale.ROOT,
                    "grant: %d events per %d s (%d in %d s from a full bucket)%n"
                            + "flooder: offered %d events in %d frames, admitted %d (%.2f%% of the grant), %d frames"
                            + " refused rate-limited%n"
                            + "honest, baseline %d s (half before, half after): %.1f events/s, p50 %d us, p99 %d us%n"
                            + "honest, during the flood %d s: %.1f events/s, p50 %d us, p99 %d us%n",
                    GRANT_EVENTS, WINDOW_SECONDS, expected, FLOOD_SECONDS, offered, floodNext.get(), admitted,
                    100.0 * admitted / expected, flooder.refusedFrames.get(), BASELINE_SECONDS, baselineRate,
                    baselineP50, baselineP99, FLOOD_SECONDS, floodRate, floodP50, floodP99);
            System.out.print(figures);
            Files.writeString(MeshnodeProcess.targetDir().resolve("link-flood-figures.txt"), figures);

            assertTrue(Math.abs(admitted - expected) <= expected * 0.05, figures);
            assertTrue(floodRate >= baselineRate * 0.9 && floodRate <= baselineRate * 1.1, figures);
            // The p50 is what the node's own work moves: within 2x of the baseline. The p99 of 1,200 answers is what
            // the machine's load moves (docs/BENCHMARKS.md): 27.8 -> 77.0 ms and 26.7 -> 76.0 ms in runs beside other
            // builds, 9.8 -> 7.2 ms alone; so it is held to 2x the baseline or the baseline plus 60 ms, whichever is more.
            assertTrue(floodP50 <= 2 * baselineP50, figures);
            assertTrue(floodP99 <= Math.max(2 * baselineP99, baselineP99 + 60_000), figures);
            assertEquals(0, honest.refusedFrames.get(), figures);
            assertTrue(node.isAlive());
        } finally {
            timers.shutdownNow();
        }
    }
}
