import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The database's share of a REQ (issue 17, docs/BENCHMARKS.md "Fifth session"): times the statements the relay sends
 * for a one-author and a one-{@code #e} REQ with limit 100 (as {@code SqlFilter} writes them for an unauthenticated reader, with the one-round-trip
 * statement_timeout prefix of {@code EventReader}), straight over JDBC against a running node's embedded PostgreSQL,
 * with the event JSON rebuilt in SQL (what the relay reads) and with one small column instead, on the calling thread
 * and handed to a worker thread and back (the relay's hop); and {@code select 1}, the bare round trip.
 *
 * <p>usage: java -cp "meshnode-app/target/quarkus-app/lib/main/*" bench/StoreReads.java DATA_DIR CORPUS.jsonl [N]
 * (the node running on DATA_DIR; CORPUS: the events it holds, for authors and e-tag values).
 */
public class StoreReads {
    static final String JSON = "coalesce(e.json, '{\"id\":\"' || encode(e.id, 'hex') || '\",\"pubkey\":\"' || encode(e.pubkey, 'hex')"
            + " || '\",\"created_at\":' || e.created_at || ',\"kind\":' || e.kind || ',\"tags\":' || e.body || ',\"sig\":\"'"
            + " || encode(e.sig, 'hex') || '\"}')";
    static final String COLUMNS = "e.json, e.pubkey, e.created_at, e.kind, e.body, e.sig";
    static final String PREFIX = "select set_config('statement_timeout', '10000ms', true);\n";
    static final String VISIBLE = " and (e.expires_at is null or e.expires_at > ?) and e.kind <> all(?)";

    record Shape(String name, String sql, boolean tag, List<String> values) {
    }

    public static void main(String[] a) throws Exception {
        Path dir = Path.of(a[0]);
        int n = a.length > 2 ? Integer.parseInt(a[2]) : 2000;
        String port = Files.readAllLines(dir.resolve("pg/postmaster.pid")).get(3).trim();
        Properties p = new Properties();
        p.setProperty("user", "postgres");
        p.setProperty("password", Files.readString(dir.resolve("postgres.key")).trim());
        List<String> authors = new ArrayList<>(), eTags = new ArrayList<>(), pTags = new ArrayList<>();
        try (var r = Files.newBufferedReader(Path.of(a[1]))) {
            for (String l; (l = r.readLine()) != null && authors.size() < 20000;) {
                int i = l.indexOf("\"pubkey\":\"");
                authors.add(l.substring(i + 10, i + 74));
                int j = l.indexOf("[\"e\",\"");
                if (j > 0) {
                    eTags.add(l.substring(j + 6, j + 70));
                }
                int k = l.indexOf("[\"p\",\"");
                if (k > 0) {
                    pTags.add(l.substring(k + 6, k + 70));
                }
            }
        }
        List<Shape> shapes = new ArrayList<>();
        for (String sel : List.of(JSON, COLUMNS, "e.kind::text")) {
            String what = sel.equals(JSON) ? "event JSON" : sel.equals(COLUMNS) ? "columns, JSON built in Java" : "one column";
            shapes.add(new Shape("authors, limit 100, " + what, "select e.id, " + sel + " from event e where e.pubkey = ?"
                    + VISIBLE + " order by e.created_at desc, e.id limit ?", false, authors));
            shapes.add(new Shape("#e, limit 100, " + what, "select e.id, " + sel + " from tag t join event e on e.seq = t.event_seq"
                    + " where t.name = 'e' and t.value = ?" + VISIBLE + " order by t.created_at desc, e.id limit ?", true, eTags));
            shapes.add(new Shape("#p, limit 100, " + what, "select e.id, " + sel + " from tag t join event e on e.seq = t.event_seq"
                    + " where t.name = 'p' and t.value = ?" + VISIBLE + " order by t.created_at desc, e.id limit ?", true, pTags));
        }
        long now = System.currentTimeMillis() / 1000;
        ExecutorService worker = Executors.newSingleThreadExecutor();
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://localhost:" + port + "/postgres", p)) {
            Random rnd = new Random(1);
            long[] t = new long[n];
            try (PreparedStatement ps = c.prepareStatement("select 1")) {
                for (int i = 0; i < n; i++) {
                    long s = System.nanoTime();
                    ps.executeQuery().close();
                    t[i] = System.nanoTime() - s;
                }
            }
            print("select 1", t, 0);
            for (Shape sh : shapes) {
                try (PreparedStatement ps = c.prepareStatement(PREFIX + sh.sql)) {
                    for (boolean hop : new boolean[] {false, true}) {
                        long rows = 0;
                        for (int i = 0; i < n; i++) {
                            String v = sh.values.get(rnd.nextInt(sh.values.size()));
                            long s = System.nanoTime();
                            rows += hop ? worker.submit(() -> run(c, ps, sh, v, now)).get() : run(c, ps, sh, v, now);
                            t[i] = System.nanoTime() - s;
                        }
                        print(sh.name + (hop ? ", via a worker thread" : ", calling thread"), t, (double) rows / n);
                    }
                }
            }
        } finally {
            worker.shutdown();
        }
    }

    static long run(Connection c, PreparedStatement ps, Shape sh, String hex, long now) throws SQLException {
        byte[] raw = HexFormat.of().parseHex(hex);
        if (sh.tag) {
            byte[] v = new byte[33]; // TextKeys.valueBytes: a 64-hex value as 0x01 and its 32 bytes
            v[0] = 1;
            System.arraycopy(raw, 0, v, 1, 32);
            raw = v;
        }
        ps.setBytes(1, raw);
        ps.setLong(2, now);
        ps.setArray(3, c.createArrayOf("int4", new Integer[] {4, 13, 1059}));
        ps.setInt(4, 100);
        ps.execute();
        ps.getMoreResults(); // past set_config's row
        long rows = 0;
        try (ResultSet rs = ps.getResultSet()) {
            boolean columns = rs.getMetaData().getColumnCount() > 2;
            while (rs.next()) {
                byte[] id = rs.getBytes(1);
                String json = rs.getString(2);
                if (columns && json == null) {
                    json = json(id, rs.getBytes(3), rs.getLong(4), rs.getInt(5), rs.getString(6), rs.getBytes(7));
                }
                rows++;
            }
        }
        return rows;
    }

    static final HexFormat HEX = HexFormat.of();

    /** The event's JSON from its columns, by the SQL rule of docs/spec/storage.md ("Compact rows"). */
    static String json(byte[] id, byte[] pubkey, long createdAt, int kind, String body, byte[] sig) {
        StringBuilder b = new StringBuilder(body.length() + 300);
        b.append("{\"id\":\"");
        HEX.formatHex(b, id);
        b.append("\",\"pubkey\":\"");
        HEX.formatHex(b, pubkey);
        b.append("\",\"created_at\":").append(createdAt).append(",\"kind\":").append(kind).append(",\"tags\":").append(body)
                .append(",\"sig\":\"");
        HEX.formatHex(b, sig);
        return b.append("\"}").toString();
    }

    static void print(String name, long[] ns, double rows) {
        long[] s = ns.clone();
        Arrays.sort(s);
        System.out.printf("{\"statement\":\"%s\",\"n\":%d,\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,\"rows\":%.1f}%n",
                name.replace("\"", "\\\""), s.length, s[s.length / 2] / 1e6, s[s.length * 9 / 10] / 1e6, s[s.length * 99 / 100] / 1e6, rows);
    }
}
