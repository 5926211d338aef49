// What the thread hops of a relay read cost beside PostgreSQL's own round trip: a point read by event id (the `ids`
// shape's statement) run in closed loop four ways, blocks alternating, one JVM:
//   direct   one thread: the statement over the embedded cluster's Unix-domain socket (LocalSocketFactory)
//   hop      as the relay does: a Vert.x event loop hands the read to a parked worker (LockSupport.unpark), the worker
//            runs the statement and hands the rows back to the loop (Context.runOnContext); timed on the loop
//   hop-only the same two hand-overs around nothing (what the hops alone cost)
//   spin     the same hand-overs, the worker waiting by spinning instead of parking (a wake-up fewer per read)
// Per variant: latency p50 / p90 / p99 and the JVM's and the backend's CPU per read (/proc ticks).
// usage (docs/BENCHMARKS.md "Seventeenth session"): a running node's DATA dir holding events, then
//   L=meshnode-app/target/quarkus-app/lib/main
//   java -cp "$L/*" bench/PgHops.java DATA 10 500 [direct,hop,hop-only,spin]
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.nio.file.*;
import java.sql.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import java.util.concurrent.locks.LockSupport;

public class PgHops {
    static long ticks(long pid) throws Exception {
        String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** One worker thread: parks (or spins) until handed a task. */
    static final class Worker extends Thread {
        final AtomicReference<Runnable> slot = new AtomicReference<>();
        volatile boolean spin;
        Worker() { super("hops-worker"); setDaemon(true); }
        void hand(Runnable r) { slot.set(r); if (!spin) LockSupport.unpark(this); }
        @Override public void run() {
            while (true) {
                Runnable r = slot.getAndSet(null);
                if (r != null) { r.run(); continue; }
                if (spin) Thread.onSpinWait(); else LockSupport.park(this);
            }
        }
    }

    public static void main(String[] a) throws Exception {
        Path d = Path.of(a[0]);
        int rounds = Integer.parseInt(a[1]), block = Integer.parseInt(a[2]);
        String pw = Files.readString(d.resolve("postgres.key")).trim();
        List<String> pid = Files.readAllLines(d.resolve("pg/postmaster.pid"));
        int port = Integer.parseInt(pid.get(3).trim());
        String url = "jdbc:postgresql://localhost:" + port + "/postgres?socketFactory=org.fleetmesh.storage.postgres.LocalSocketFactory&socketFactoryArg="
                + pid.get(4).trim() + "/.s.PGSQL." + port;
        Properties p = new Properties();
        p.setProperty("user", "postgres");
        p.setProperty("password", pw);
        Connection c = DriverManager.getConnection(url, p);
        long backend;
        try (ResultSet rs = c.createStatement().executeQuery("select pg_backend_pid()")) { rs.next(); backend = rs.getLong(1); }
        List<byte[]> ids = new ArrayList<>();
        try (ResultSet rs = c.createStatement().executeQuery("select id from event order by random() limit 20000")) {
            while (rs.next()) ids.add(rs.getBytes(1));
        }
        if (ids.isEmpty()) throw new IllegalStateException("no events in " + d);
        PreparedStatement ps = c.prepareStatement("select e.seq, e.created_at, e.body from event e where e.id = ?");
        Random r = new Random(1);
        AtomicLong sink = new AtomicLong();
        Runnable read = () -> {
            try {
                ps.setBytes(1, ids.get(r.nextInt(ids.size())));
                try (ResultSet rs = ps.executeQuery()) { while (rs.next()) sink.addAndGet(rs.getBytes(3).length); }
            } catch (SQLException e) { throw new RuntimeException(e); }
        };
        Runnable nothing = () -> sink.incrementAndGet();

        Vertx vertx = Vertx.vertx();
        Context loop = vertx.getOrCreateContext();
        Worker w = new Worker();
        w.start();
        String[] names = a.length > 3 ? a[3].split(",") : new String[] { "direct", "hop", "hop-only", "spin" };
        Map<String, List<Long>> lat = new LinkedHashMap<>();
        Map<String, long[]> cpu = new LinkedHashMap<>(); // jvm ticks, backend ticks
        for (String n : names) { lat.put(n, new ArrayList<>()); cpu.put(n, new long[2]); }
        long self = ProcessHandle.current().pid();
        for (int round = -3; round < rounds; round++) {
            for (int k = 0; k < names.length; k++) {
                String n = names[(k + Math.max(round, 0)) % names.length];
                long j0 = ticks(self), b0 = ticks(backend);
                long[] ns = new long[block];
                if (n.equals("direct")) {
                    for (int q = 0; q < block; q++) { long t0 = System.nanoTime(); read.run(); ns[q] = System.nanoTime() - t0; }
                } else {
                    w.spin = n.equals("spin");
                    LockSupport.unpark(w); // a parked worker must see the switch to spinning
                    Runnable task = n.equals("hop-only") ? nothing : read;
                    CompletableFuture<Void> done = new CompletableFuture<>();
                    int[] i = { 0 };
                    long[] t0 = { 0 };
                    Runnable[] next = new Runnable[1];
                    next[0] = () -> { // on the event loop
                        if (i[0] > 0) ns[i[0] - 1] = System.nanoTime() - t0[0];
                        if (i[0] == block) { done.complete(null); return; }
                        i[0]++;
                        t0[0] = System.nanoTime();
                        w.hand(() -> { task.run(); loop.runOnContext(v -> next[0].run()); });
                    };
                    loop.runOnContext(v -> next[0].run());
                    done.get();
                    w.spin = false;
                    LockSupport.unpark(w);
                }
                if (round >= 0) {
                    for (long x : ns) lat.get(n).add(x);
                    cpu.get(n)[0] += ticks(self) - j0;
                    cpu.get(n)[1] += ticks(backend) - b0;
                }
            }
        }
        System.out.printf("machine: %d cores; %d ids; %d rounds of %d per variant%n", Runtime.getRuntime().availableProcessors(), ids.size(), rounds, block);
        for (String n : names) {
            List<Long> l = lat.get(n);
            Collections.sort(l);
            int m = l.size();
            System.out.printf("%-8s n=%d p50=%.3f p90=%.3f p99=%.3f ms  jvm_cpu/read=%.3f ms  pg_cpu/read=%.3f ms%n", n, m,
                    l.get(m / 2) / 1e6, l.get(m * 9 / 10) / 1e6, l.get(m * 99 / 100) / 1e6, cpu.get(n)[0] * 10.0 / m, cpu.get(n)[1] * 10.0 / m);
        }
        vertx.close();
        System.exit(sink.get() > 0 ? 0 : 1);
    }
}
