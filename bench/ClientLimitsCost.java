import java.util.List;
import org.fleetmesh.peering.grant.Tier;
import org.fleetmesh.peering.grant.TierPolicy;
import org.fleetmesh.relay.limits.ClientLimits;

/** ns per EVENT check (address + pubkey buckets, 200 authors, one address), 1 and 2 threads. */
public class ClientLimitsCost {
    public static void main(String[] a) throws Exception {
        TierPolicy big = new TierPolicy(List.of(new Tier(0, 60_000_000_000L, 60_000_000_000L, 60_000_000_000L, 1_000_000)), 60, 10);
        ClientLimits l = new ClientLimits(big, 100_000);
        String[] pks = new String[200];
        for (int i = 0; i < pks.length; i++) pks[i] = String.format("%064x", i * 7919L + 1);
        for (int threads : new int[] {1, 2, 1, 2}) {
            int n = 4_000_000;
            Thread[] ts = new Thread[threads];
            long t0 = System.nanoTime();
            for (int t = 0; t < threads; t++) {
                int off = t;
                ts[t] = new Thread(() -> {
                    for (int i = 0; i < n; i++) {
                        if (l.event("127.0.0.1", pks[(i + off) % 200], 400, () -> true, System.nanoTime()).refusal() != null) throw new AssertionError();
                    }
                });
                ts[t].start();
            }
            for (Thread t : ts) t.join();
            long dt = System.nanoTime() - t0;
            System.out.printf("%d thread(s): %.0f ns per check (wall / checks per thread)%n", threads, dt / (double) n);
        }
    }
}
