// The same statements over loopback TCP and over the embedded cluster's Unix-domain socket (LocalSocketFactory), blocks
// alternating on one JVM thread; per statement: latency, the client thread's CPU and the backend's CPU (/proc ticks).
// usage (docs/BENCHMARKS.md "Sixteenth session"): a running node's DATA dir, e.g. one holding 1,000,000 events:
//   L=meshnode-app/target/quarkus-app/lib/main
//   java -cp $L/org.postgresql.postgresql-42.7.10.jar:$L/org.fleetmesh.fleetmesh-storage-postgres-0.1.0-SNAPSHOT.jar bench/PgTransport.java DATA 20 200
import java.nio.file.*; import java.sql.*; import java.util.*; import java.lang.management.*;
public class PgTransport {
  static long ticks(int pid) throws Exception { String s = Files.readString(Path.of("/proc/" + pid + "/stat")); String[] f = s.substring(s.lastIndexOf(')') + 2).split(" "); return Long.parseLong(f[11]) + Long.parseLong(f[12]); }
  public static void main(String[] a) throws Exception {
    Path d = Path.of(a[0]); int rounds = Integer.parseInt(a[1]), block = Integer.parseInt(a[2]);
    String pw = Files.readString(d.resolve("postgres.key")).trim();
    List<String> pid = Files.readAllLines(d.resolve("pg/postmaster.pid")); int port = Integer.parseInt(pid.get(3).trim());
    String tcp = "jdbc:postgresql://localhost:" + port + "/postgres";
    String unix = tcp + "?socketFactory=org.fleetmesh.storage.postgres.LocalSocketFactory&socketFactoryArg=" + pid.get(4).trim() + "/.s.PGSQL." + port;
    Properties p = new Properties(); p.setProperty("user", "postgres"); p.setProperty("password", pw);
    Connection[] c = { DriverManager.getConnection(tcp, p), DriverManager.getConnection(unix, p) };
    String[] name = {"tcp", "unix"}; int[] bpid = new int[2];
    long maxSeq;
    try (ResultSet rs = c[0].createStatement().executeQuery("select max(seq) from event")) { rs.next(); maxSeq = rs.getLong(1); }
    for (int i = 0; i < 2; i++) try (ResultSet rs = c[i].createStatement().executeQuery("select pg_backend_pid(), inet_client_addr() is null")) { rs.next(); bpid[i] = rs.getInt(1); System.out.println(name[i] + " backend " + bpid[i] + " unix=" + rs.getBoolean(2)); }
    String sql = "select e.seq, e.id, e.pubkey, e.created_at, e.kind, e.sig, e.body from event e where e.seq = any(?)";
    String sql2 = "select 1";
    PreparedStatement[] ps = { c[0].prepareStatement(sql), c[1].prepareStatement(sql) };
    PreparedStatement[] ps2 = { c[0].prepareStatement(sql2), c[1].prepareStatement(sql2) };
    ThreadMXBean tm = ManagementFactory.getThreadMXBean();
    Random r = new Random(1);
    for (String mode : new String[]{"fetch100", "select1"}) {
      long[][] ns = new long[2][]; long[] cpu = new long[2], pg = new long[2]; List<List<Long>> lat = List.of(new ArrayList<>(), new ArrayList<>());
      for (int round = -3; round < rounds; round++) {
        Long[][] seqs = new Long[block][100];
        for (int q = 0; q < block; q++) for (int k = 0; k < 100; k++) seqs[q][k] = 1 + (long) (r.nextDouble() * maxSeq);
        for (int oi = 0; oi < 2; oi++) { int i = (round & 1) == 0 ? oi : 1 - oi;
          long c0 = tm.getCurrentThreadCpuTime(), p0 = ticks(bpid[i]);
          for (int q = 0; q < block; q++) { long t0 = System.nanoTime();
            if (mode.equals("fetch100")) { ps[i].setArray(1, c[i].createArrayOf("int8", seqs[q])); try (ResultSet rs = ps[i].executeQuery()) { while (rs.next()) { rs.getBytes(2); rs.getBytes(7); } } }
            else try (ResultSet rs = ps2[i].executeQuery()) { rs.next(); }
            long t = System.nanoTime() - t0; if (round >= 0) lat.get(i).add(t); }
          if (round >= 0) { cpu[i] += tm.getCurrentThreadCpuTime() - c0; pg[i] += ticks(bpid[i]) - p0; }
        }
      }
      for (int i = 0; i < 2; i++) { List<Long> l = lat.get(i); Collections.sort(l); int n = l.size();
        System.out.printf("%s %s n=%d p50=%.3f p90=%.3f p99=%.3f ms client_cpu/q=%.3f ms pg_cpu/q=%.3f ms%n", mode, name[i], n, l.get(n/2)/1e6, l.get(n*9/10)/1e6, l.get(n*99/100)/1e6, cpu[i]/1e6/n, pg[i]*10.0/n); }
    }
  }
}
