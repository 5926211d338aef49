package org.fleetmesh.meshnode.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.ref.Reference;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import org.fleetmesh.negentropy.FingerprintTree;
import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Item;
import org.fleetmesh.negentropy.Negentropy;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.negentropy.Storage;

/**
 * In-process Negentropy reconciliations of two sets of N items (random ids, created_at spread over
 * 1,000,000 s, fixed seed) for several difference patterns, frame limits and storages: bytes each
 * way, round trips, CPU time per side and wall time. Both sides run on this thread in turn; each
 * side's CPU time is the thread CPU time spent inside its own calls. The vector and the tree must
 * produce the same messages; any difference is an error.
 *
 * <p>Options: {@code --n 1000000}, {@code --case all|identical|scattered-0.2|scattered-10|clustered-1},
 * {@code --storage both|vector|tree}, {@code --frame both|0|60000}, {@code --seed 1},
 * {@code --memory true|false} (heap per item of the storages, measured after GC).
 */
public final class NegentropyBench {
    private static final long TIME_BASE = 1_700_000_000L;
    private static final int TIME_SPREAD = 1_000_000;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private NegentropyBench() {
    }

    /** A difference pattern: the share of each side the other lacks, and whether it is clustered in time. */
    record Case(String name, double differPercent, boolean clustered) {
    }

    static final List<Case> CASES = List.of(
            new Case("identical", 0, false),
            new Case("scattered-0.2", 0.2, false),
            new Case("scattered-10", 10, false),
            new Case("clustered-1", 1, true));

    record Sides(Item[] a, Item[] b, int onlyA, int onlyB) {
    }

    record Result(String caseName, long frame, String storage, int rounds, long bytesUp, long bytesDown,
            long cpuClientNs, long cpuServerNs, long wallNs, int have, int need, String digest) {
    }

    public static void main(String[] args) throws Exception {
        Args a = new Args(args, "--n", "--seed", "--case", "--storage", "--frame", "--memory");
        int n = a.getInt("--n", 1_000_000);
        long seed = a.getLong("--seed", 1);
        String caseOpt = a.get("--case", "all");
        String storageOpt = a.get("--storage", "both");
        String frameOpt = a.get("--frame", "both");
        boolean memory = a.getBoolean("--memory", true);

        List<Case> cases = CASES.stream().filter(c -> caseOpt.equals("all") || c.name().equals(caseOpt)).toList();
        if (cases.isEmpty()) {
            throw new IllegalArgumentException("unknown --case " + caseOpt + " (all, identical, scattered-0.2, scattered-10, clustered-1)");
        }
        List<String> storages = switch (storageOpt) {
            case "both" -> List.of("vector", "tree");
            case "vector", "tree" -> List.of(storageOpt);
            default -> throw new IllegalArgumentException("unknown --storage " + storageOpt + " (both, vector, tree)");
        };
        List<Long> frames = frameOpt.equals("both") ? List.of(0L, 60_000L) : List.of(Long.parseLong(frameOpt));
        if (!THREADS.isCurrentThreadCpuTimeSupported()) {
            throw new IllegalStateException("this JVM cannot measure thread CPU time");
        }

        String memoryJson = memory ? measureMemory(Math.min(n, 1_000_000), seed) : "null";

        // warm up the JIT on a smaller set, every case and storage, so the first row is not the coldest
        int warm = Math.min(n, 50_000);
        for (Case c : cases) {
            Sides sides = generate(c, warm, seed + 1000);
            for (long frame : frames) {
                for (String storage : storages) {
                    run(c, sides, frame, storage);
                }
            }
        }

        List<Result> results = new ArrayList<>();
        System.out.printf(Locale.ROOT, "negentropy reconciliation, N=%,d items per side, seed %d%n", n, seed);
        String header = String.format(Locale.ROOT, "%-14s %6s %-7s %6s %13s %13s %11s %11s %10s %8s %8s",
                "case", "frame", "storage", "rounds", "bytes_up", "bytes_down", "cpu_init_ms", "cpu_resp_ms", "wall_ms", "have", "need");
        System.out.println(header);
        System.out.println("-".repeat(header.length()));
        for (Case c : cases) {
            Sides sides = generate(c, n, seed);
            for (long frame : frames) {
                Result first = null;
                for (String storage : storages) {
                    Result r = run(c, sides, frame, storage);
                    if (r.have() != sides.onlyA() || r.need() != sides.onlyB()) {
                        throw new IllegalStateException("wrong result " + r + ": expected have " + sides.onlyA() + ", need " + sides.onlyB());
                    }
                    if (first != null && (first.rounds() != r.rounds() || first.bytesUp() != r.bytesUp()
                            || first.bytesDown() != r.bytesDown() || !first.digest().equals(r.digest()))) {
                        throw new IllegalStateException("storages disagree:\n  " + first + "\n  " + r);
                    }
                    first = first == null ? r : first;
                    results.add(r);
                    System.out.printf(Locale.ROOT, "%-14s %6d %-7s %6d %,13d %,13d %11.1f %11.1f %10.1f %8d %8d%n",
                            r.caseName(), r.frame(), r.storage(), r.rounds(), r.bytesUp(), r.bytesDown(),
                            r.cpuClientNs() / 1e6, r.cpuServerNs() / 1e6, r.wallNs() / 1e6, r.have(), r.need());
                }
            }
        }
        if (storages.size() == 2) {
            System.out.println("vector and tree sent identical messages (SHA-256 of all messages) in every row");
        }

        StringBuilder json = new StringBuilder();
        json.append("{\"bench\":\"negentropy\",\"n\":").append(n).append(",\"seed\":").append(seed)
                .append(",\"memory\":").append(memoryJson).append(",\"results\":[");
        for (int i = 0; i < results.size(); i++) {
            Result r = results.get(i);
            json.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"case\":\"%s\",\"frame\":%d,\"storage\":\"%s\",\"rounds\":%d,\"bytes_up\":%d,\"bytes_down\":%d,"
                            + "\"cpu_initiator_ms\":%.1f,\"cpu_responder_ms\":%.1f,\"wall_ms\":%.1f,\"have\":%d,\"need\":%d}",
                    r.caseName(), r.frame(), r.storage(), r.rounds(), r.bytesUp(), r.bytesDown(),
                    r.cpuClientNs() / 1e6, r.cpuServerNs() / 1e6, r.wallNs() / 1e6, r.have(), r.need()));
        }
        System.out.println(json.append("]}"));
    }

    /** Side A and side B, each sorted: shared items plus those only one side has. */
    static Sides generate(Case c, int n, long seed) {
        Random r = new Random(seed * 31 + c.name().hashCode());
        int differ = (int) Math.round(n * c.differPercent() / 100);
        int shared = n - differ;
        Item[] a = new Item[n];
        Item[] b = new Item[n];
        for (int i = 0; i < shared; i++) {
            a[i] = b[i] = randomItem(r, 0, TIME_SPREAD);
        }
        // clustered: the differences all fall in 1% of the time span, in its middle
        int from = c.clustered() ? TIME_SPREAD / 2 : 0;
        int spread = c.clustered() ? TIME_SPREAD / 100 : TIME_SPREAD;
        for (int i = shared; i < n; i++) {
            a[i] = randomItem(r, from, spread);
            b[i] = randomItem(r, from, spread);
        }
        Arrays.sort(a);
        Arrays.sort(b);
        return new Sides(a, b, differ, differ);
    }

    private static Item randomItem(Random r, int from, int spread) {
        byte[] id = new byte[Id.SIZE];
        r.nextBytes(id);
        return new Item(TIME_BASE + from + r.nextInt(spread), Id.of(id));
    }

    static Storage build(String storage, Item[] sorted) {
        if (storage.equals("tree")) {
            return FingerprintTree.fromSorted(Arrays.asList(sorted)).snapshot();
        }
        SortedVector.Builder builder = SortedVector.builder();
        for (Item item : sorted) {
            builder.insert(item);
        }
        return builder.seal();
    }

    static Result run(Case c, Sides sides, long frame, String storage) throws Exception {
        Storage a = build(storage, sides.a());
        Storage b = build(storage, sides.b());
        Negentropy initiator = new Negentropy(a, frame);
        Negentropy responder = new Negentropy(b, frame);
        List<byte[]> messages = new ArrayList<>();
        System.gc(); // the previous run's garbage is not this run's pause
        long up = 0;
        long down = 0;
        int rounds = 0;
        long cpuInit = 0;
        long cpuResp = 0;

        long wallStart = System.nanoTime();
        long t0 = THREADS.getCurrentThreadCpuTime();
        byte[] message = initiator.initiate();
        cpuInit += THREADS.getCurrentThreadCpuTime() - t0;
        while (message != null) {
            rounds++;
            up += message.length;
            messages.add(message);
            t0 = THREADS.getCurrentThreadCpuTime();
            byte[] reply = responder.reconcile(message);
            long t1 = THREADS.getCurrentThreadCpuTime();
            cpuResp += t1 - t0;
            down += reply.length;
            messages.add(reply);
            message = initiator.reconcile(reply);
            cpuInit += THREADS.getCurrentThreadCpuTime() - t1;
        }
        long wall = System.nanoTime() - wallStart;
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        for (byte[] m : messages) {
            digest.update(m);
        }
        return new Result(c.name(), frame, storage, rounds, up, down, cpuInit, cpuResp, wall,
                initiator.haveIds().size(), initiator.needIds().size(), HexFormat.of().formatHex(digest.digest()));
    }

    // Memory: heap in use after GC, before and after building, divided by the item count.

    private static String measureMemory(int n, long seed) {
        long base = usedAfterGc();
        Sides sides = generate(new Case("memory", 0, false), n, seed + 7);
        long withItems = usedAfterGc();
        Item[] items = sides.a();
        double perItem = (withItems - base) / (double) n; // both arrays of refs count here too: 8 bytes an item
        long before = usedAfterGc();
        Storage vector = build("vector", items);
        double vectorPerItem = (usedAfterGc() - before) / (double) n;
        Reference.reachabilityFence(vector);
        vector = null;

        before = usedAfterGc();
        FingerprintTree bulk = FingerprintTree.fromSorted(Arrays.asList(items));
        double bulkPerItem = (usedAfterGc() - before) / (double) n;
        Reference.reachabilityFence(bulk);
        bulk = null;

        Item[] shuffled = items.clone();
        Random r = new Random(seed);
        for (int i = shuffled.length - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            Item t = shuffled[i];
            shuffled[i] = shuffled[j];
            shuffled[j] = t;
        }
        before = usedAfterGc();
        FingerprintTree grown = new FingerprintTree();
        long t0 = System.nanoTime();
        for (Item item : shuffled) {
            grown.insert(item);
        }
        double insertNs = (System.nanoTime() - t0) / (double) n;
        double grownPerItem = (usedAfterGc() - before) / (double) n;
        if (grown.size() != n) {
            throw new IllegalStateException("tree lost items: " + grown.size() + " of " + n);
        }
        Reference.reachabilityFence(grown);
        Reference.reachabilityFence(sides);

        System.out.printf(Locale.ROOT, "heap per item at N=%,d (after GC, rough): item objects (Item+Id+byte[32]) and two ref arrays %.0f B;"
                + "%n  vector structure %.0f B, tree structure bulk-built %.0f B, tree grown by %,d single inserts %.0f B"
                + " (%.2f us an insert, random order)%n", n, perItem, vectorPerItem, bulkPerItem, n, grownPerItem, insertNs / 1000);
        return String.format(Locale.ROOT, "{\"n\":%d,\"items_and_two_ref_arrays_b\":%.1f,\"vector_structure_b\":%.1f,"
                + "\"tree_bulk_structure_b\":%.1f,\"tree_inserted_structure_b\":%.1f,\"tree_insert_us\":%.3f}",
                n, perItem, vectorPerItem, bulkPerItem, grownPerItem, insertNs / 1000);
    }

    private static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }
}
