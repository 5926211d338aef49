import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.fleetmesh.negentropy.FingerprintTree;
import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.Item;

/**
 * Bytes allocated and time taken to add N items to a FingerprintTree of START items one at a time ({@code insert}; and
 * {@code insertAll} of one item, a commit of one event, printed as batch -1) and in batches of B (as a commit of B events
 * is applied to a live index), for items after every stored one (live traffic) and for items at random times (an
 * import). No snapshot is taken meanwhile. docs/BENCHMARKS.md, issue 17, eighteenth session and after.
 *
 * java -cp runtime/target/classes bench/TreeBatch.java START N B
 */
public class TreeBatch {
    public static void main(String[] a) {
        int start = Integer.parseInt(a[0]), n = Integer.parseInt(a[1]), b = Integer.parseInt(a[2]);
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 3; round++) {
            for (boolean ascending : new boolean[] {true, false}) {
                for (int batch : new int[] {1, -1, b}) {
                    Random r = new Random(7);
                    List<Item> base = new ArrayList<>();
                    for (int i = 0; i < start; i++) {
                        base.add(item(r, 1_000_000L + i));
                    }
                    base.sort(null);
                    FingerprintTree t = FingerprintTree.fromSorted(base);
                    List<Item> adds = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        adds.add(item(r, ascending ? 1_000_000L + start + i : 1_000_000L + r.nextInt(start + n)));
                    }
                    long bytes0 = mx.getCurrentThreadAllocatedBytes();
                    long t0 = System.nanoTime();
                    for (int i = 0; i < n; i += Math.abs(batch)) {
                        List<Item> chunk = adds.subList(i, Math.min(n, i + Math.abs(batch)));
                        if (batch == 1) {
                            t.insert(chunk.get(0));
                        } else {
                            t.insertAll(chunk);
                        }
                    }
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    long kb = (mx.getCurrentThreadAllocatedBytes() - bytes0) / n;
                    if (round == 2) {
                        System.out.printf("%s, batch %d: %d bytes allocated per item, %d ms for %d items (tree of %d)%n",
                                ascending ? "ascending" : "random times", batch, kb, ms, n, t.size());
                    }
                }
            }
        }
    }

    static Item item(Random r, long ts) {
        byte[] id = new byte[32];
        r.nextBytes(id);
        return new Item(ts, Id.of(id));
    }
}
