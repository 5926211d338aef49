package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The heap trim (docs/OPERATING.md "Memory and disk") in a real node on Java 25's serial collector, as the launcher
 * runs it: under a burst of writes the garbage promoted past the busy bound is collected while the node is still busy
 * (the busy trim), and once the node is quiet a full collection gives the rest back (the idle trim); the busy trims
 * collect, and the node loses nothing. Small bounds and short windows so that 40,000 events show both. Without a
 * Java 25 the node runs on the tests' Java 17, whose serial collector runs full collections itself: only the
 * no-loss part is checked then.
 */
class HeapTrimIT {
    private static final Pattern TRIM = Pattern.compile(
            "heap trim \\((quiet|busy)[^)]*\\): old generation (\\d+) -> (\\d+) MiB, heap committed (\\d+) -> (\\d+) MiB");

    /** Java 25, where the launcher prefers it: its serial collector grows the old generation instead of collecting. */
    private static final Path JAVA_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
    private static final double MIB = 1024 * 1024;

    @Test
    void quietAndBusyTrimsCollectTheOldGeneration() throws Exception {
        boolean on25 = Files.isExecutable(JAVA_25);
        try (MeshnodeProcess node = MeshnodeProcess.start("heaptrim", Map.of(
                "MESHNODE_JAVA", on25 ? JAVA_25.toString() : Path.of(System.getProperty("java.home"), "bin", "java")
                        .toString(),
                "JAVA_TOOL_OPTIONS", "-XX:+UseSerialGC -XX:-ShrinkHeapInSteps -Xms48m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30",
                "FLEETMESH_MEMORY_HEAP_TRIM_INTERVAL", "500ms",
                "FLEETMESH_MEMORY_HEAP_TRIM_QUIET", "2s",
                // any growth: so that the idle trim after the burst does not hang on how much the burst promoted after its
                // last busy trim (under a millisecond of writes, in a CI run); the growth rule is HeapTrimTest's
                "FLEETMESH_MEMORY_HEAP_TRIM_IDLE_GROWTH_MIB", "0",
                "FLEETMESH_MEMORY_HEAP_TRIM_FLOOR_MIB", "0",
                "FLEETMESH_MEMORY_HEAP_TRIM_IDLE_SPACING", "1s",
                "FLEETMESH_MEMORY_HEAP_TRIM_BUSY_GROWTH_MIB", "4"))) {
            // 1. a burst of writes: promotion past the 4 MiB busy bound is collected while the writes go on
            int before = trims(node).size();
            Launcher.Run ingest = Launcher.runIn(MeshnodeProcess.projectRoot(), Map.of(), null, "bench", "ingest",
                    "--url", node.wsUri().toString(), "--events", "40000", "--connections", "8", "--inflight", "200");
            assertEquals(0, ingest.exit(), ingest.stderr());
            assertTrue(ingest.stdout().contains("\"ok_true\":40000"), "every event stored: " + ingest.stdout());
            List<Trim> during = trims(node).subList(before, trims(node).size());
            if (on25) {
                // (a start that ran its own full collections leaves nothing for an idle trim before the burst)
                assertTrue(during.stream().anyMatch(t -> t.why().equals("busy")),
                        "a busy trim during the burst: " + during + "\n" + node.logTail(30));
            } else {
                // Java 17's serial collector runs full collections itself when the old generation fills
                System.out.println("HeapTrimIT: no Java 25 at " + JAVA_25 + "; busy trims seen on 17: " + during);
            }
            // what the busy trims freed, together (a serial full collection also moves the young generation's live
            // objects into the old one, so a single trim may free less than it moves)
            long freed = during.stream().filter(t -> t.why().equals("busy")).mapToLong(t -> t.oldBefore() - t.oldAfter())
                    .sum();
            assertTrue(!on25 || freed > 0, "the busy trims collected the old generation: " + during);

            // 2. quiet again: what the burst promoted after its last busy trim goes too
            if (on25) {
                List<Trim> all = awaitTrims(node, "quiet", before + during.size() + 1, Duration.ofSeconds(60));
                // the counters at /q/metrics agree with the log
                Metrics metrics = Metrics.scrape(node);
                assertEquals(all.stream().filter(t -> t.why().equals("busy")).count(),
                        (long) metrics.value("fleetmesh_memory_heap_trims_total", "reason", "busy"), metrics.text());
                assertTrue(metrics.value("fleetmesh_memory_heap_trims_total", "reason", "idle") >= 1, metrics.text());
                assertTrue(metrics.text().lines().anyMatch(l -> l.startsWith("jvm_gc_pause_seconds_count")
                        && l.contains("cause=\"System.gc()\"")), "the trims' pauses in jvm_gc_pause_seconds");
            }
            try (NostrClient client = NostrClient.connect(node.wsUri())) {
                assertEquals(40000, client.countNow("n", FilterSpec.of().kinds(1)), "nothing lost");
            }
        }
    }

    /**
     * With the launcher's own JVM options and the default trim settings, an idle node does not keep what booting left in
     * its old generation: the first quiet reading after start-up runs one trim whatever the growth when the heap is
     * above the trim floor (24 MiB), and none when it is not. With the fast-jar packaging of the time, booting left
     * 20-25 MiB of garbage in a heap of about 40 that only this rule gave back; since the aot-jar packaging the boot
     * leaves a heap at about the floor, and either way the idle node ends with a small heap. Java 25 only (17's serial
     * collector collects the old generation itself).
     */
    @Test
    void anIdleNodeKeepsNoBootGarbage() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(JAVA_25), "no Java 25 at " + JAVA_25);
        Matcher flags = Pattern.compile("(?m)^RELAY_JVM=\"([^\"]+)\"")
                .matcher(Files.readString(MeshnodeProcess.projectRoot().resolve("meshnode")));
        assertTrue(flags.find(), "the launcher's RELAY_JVM line");
        long floorMib = 24; // MemoryConfig's default
        try (MeshnodeProcess node = MeshnodeProcess.start("heaptrim-boot", Map.of(
                "MESHNODE_JAVA", JAVA_25.toString(), "JAVA_TOOL_OPTIONS", flags.group(1)))) {
            long start = System.nanoTime();
            long deadline = start + Duration.ofSeconds(60).toNanos();
            // quiet after 10 s (the default window), readings every 2 s: a trim is due by about 12 s after ready
            long settled = start + Duration.ofSeconds(20).toNanos();
            double committedMib = Double.NaN;
            while (System.nanoTime() < deadline) {
                if (trims(node).stream().anyMatch(t -> t.why().equals("quiet"))) {
                    break;
                }
                if (System.nanoTime() > settled) {
                    committedMib = Metrics.scrape(node).value("jvm_memory_committed_bytes", "area=\"heap\"") / MIB;
                    if (committedMib <= floorMib) {
                        break; // at the floor: no trim is due, and none is needed
                    }
                }
                Thread.sleep(200);
            }
            List<Trim> quiet = trims(node).stream().filter(t -> t.why().equals("quiet")).toList();
            if (quiet.isEmpty()) {
                assertTrue(committedMib <= floorMib, "no quiet trim in 60 s, and the heap is above the floor: "
                        + committedMib + " MiB committed\n" + node.logTail(30));
            } else {
                // the old generation may read a MiB more after it (a serial full collection moves the young generation's
                // live objects there) and the heap grow a little (MinHeapFreeRatio=10): never to where booting left it
                Trim first = quiet.get(0);
                assertTrue(first.committedAfter() <= 32, "an idle heap after the first trim: " + first);
            }
        }
    }

    record Trim(String why, long oldBefore, long oldAfter, long committedBefore, long committedAfter) {
    }

    private static List<Trim> trims(MeshnodeProcess node) {
        List<Trim> out = new ArrayList<>();
        Matcher m = TRIM.matcher(node.logText());
        while (m.find()) {
            out.add(new Trim(m.group(1), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                    Long.parseLong(m.group(4)), Long.parseLong(m.group(5))));
        }
        return out;
    }

    /** Waits until the log holds at least {@code total} trims and the last is of kind {@code why}. */
    private static List<Trim> awaitTrims(MeshnodeProcess node, String why, int total, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            List<Trim> all = trims(node);
            if (all.size() >= total && all.get(all.size() - 1).why().equals(why)) {
                return all;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no " + why + " heap trim within " + timeout + ": " + trims(node) + "\n"
                + node.logTail(30));
    }
}
