// What PostgreSQL spends on a fetch of 100 scattered events by seq, by what the statement reads: an index-only
// variant (`1`, `e.seq`) against variants that visit the heap; the backend's CPU from /proc, over the local socket.
// usage (docs/BENCHMARKS.md "Sixteenth session"): a running node's DATA dir, e.g. one holding 1,000,000 events:
//   L=meshnode-app/target/quarkus-app/lib/main
//   java -cp $L/org.postgresql.postgresql-42.7.10.jar:$L/org.fleetmesh.fleetmesh-storage-postgres-0.1.0-SNAPSHOT.jar bench/PgHeapFetch.java DATA 2000 "e.seq|e.seq, e.created_at|1"
import java.nio.file.*; import java.sql.*; import java.util.*;
public class PgHeapFetch {
  static long ticks(int pid) throws Exception { String s = Files.readString(Path.of("/proc/" + pid + "/stat")); String[] f = s.substring(s.lastIndexOf(')') + 2).split(" "); return Long.parseLong(f[11]) + Long.parseLong(f[12]); }
  public static void main(String[] a) throws Exception {
    Path d = Path.of(a[0]); int n = Integer.parseInt(a[1]);
    String pw = Files.readString(d.resolve("postgres.key")).trim();
    List<String> pid = Files.readAllLines(d.resolve("pg/postmaster.pid")); int port = Integer.parseInt(pid.get(3).trim());
    String url = "jdbc:postgresql://localhost:" + port + "/postgres?socketFactory=org.fleetmesh.storage.postgres.LocalSocketFactory&socketFactoryArg=" + pid.get(4).trim() + "/.s.PGSQL." + port;
    Properties p = new Properties(); p.setProperty("user", "postgres"); p.setProperty("password", pw);
    Connection c = DriverManager.getConnection(url, p);
    int bp; try (ResultSet rs = c.createStatement().executeQuery("select pg_backend_pid()")) { rs.next(); bp = rs.getInt(1); }
    long maxSeq; try (ResultSet rs = c.createStatement().executeQuery("select max(seq) from event")) { rs.next(); maxSeq = rs.getLong(1); }
    String[] variants = a[2].split("\\|");
    Random r = new Random(2);
    for (int pass = 0; pass < 2; pass++)
    for (String v : variants) {
      String sql = "select " + v + " from event e where e.seq = any(?)";
      PreparedStatement ps = c.prepareStatement(sql);
      long p0 = 0; long t0 = 0;
      for (int q = -200; q < n; q++) {
        if (q == 0) { p0 = ticks(bp); t0 = System.nanoTime(); }
        Long[] seqs = new Long[100]; for (int k = 0; k < 100; k++) seqs[k] = 1 + (long) (r.nextDouble() * maxSeq);
        ps.setArray(1, c.createArrayOf("int8", seqs));
        try (ResultSet rs = ps.executeQuery()) { while (rs.next()) rs.getBytes(1); }
      }
      if (pass == 1) System.out.printf("%-60s wall/q=%.3f ms pg_cpu/q=%.3f ms%n", v, (System.nanoTime() - t0) / 1e6 / n, (ticks(bp) - p0) * 10.0 / n);
    }
  }
}
