package org.fleetmesh.storage.postgres;

import static org.fleetmesh.storage.postgres.Ev.ev;
import static org.fleetmesh.storage.postgres.Ev.tag;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.SaveOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** Ad-hoc throughput run, not part of the build: {@code mvn -o test -Dtest=InsertBench -Dfleetmesh.bench=true}. */
@EnabledIfSystemProperty(named = "fleetmesh.bench", matches = "true")
class InsertBench extends PgFixture {

    static List<List<Event>> batches(int n, int size, int kindMode) {
        List<PubKey> authors = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            authors.add(Ev.author());
        }
        List<List<Event>> out = new ArrayList<>();
        List<Event> cur = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            PubKey a = authors.get(i % authors.size());
            Event e = switch (kindMode) {
                case 0 -> ev(a, 1_600_000_000L + i, 1, "note number " + i + " " + "lorem ipsum ".repeat(15),
                        tag("e", Ev.author().hex()), tag("p", authors.get((i * 7) % 1000).hex()), tag("t", "t" + (i % 100)));
                default -> ev(a, 1_600_000_000L + i, 30000 + (i % 3), "list " + i, tag("d", "d" + (i % 50)),
                        tag("p", authors.get((i * 7) % 1000).hex()));
            };
            cur.add(e);
            if (cur.size() == size) {
                out.add(cur);
                cur = new ArrayList<>();
            }
        }
        return out;
    }

    static double run(List<List<Event>> bs, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long t0 = System.nanoTime();
        List<Future<?>> fs = new ArrayList<>();
        for (List<Event> b : bs) {
            fs.add(pool.submit(() -> {
                for (SaveOutcome o : store.save(b)) {
                    if (o == SaveOutcome.FAILED) {
                        throw new IllegalStateException("failed");
                    }
                }
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        pool.shutdown();
        double secs = (System.nanoTime() - t0) / 1e9;
        return bs.stream().mapToInt(List::size).sum() / secs;
    }

    @Test
    void bench() throws Exception {
        truncate();
        List<List<Event>> warm = batches(20_000, 500, 0);
        run(warm, 1);
        List<List<Event>> one = batches(100_000, 500, 0);
        System.out.printf("regular, 1 thread, batches of 500: %.0f events/s%n", run(one, 1));
        List<List<Event>> four = batches(100_000, 500, 0);
        System.out.printf("regular, 4 threads, batches of 500: %.0f events/s%n", run(four, 4));
        List<List<Event>> repl = batches(50_000, 500, 1);
        System.out.printf("addressable (many replacements), 1 thread: %.0f events/s%n", run(repl, 1));
        System.out.printf("duplicates, 1 thread: %.0f events/s%n", run(one, 1));
        sql("analyze event", "analyze tag");
        long total = store.count(Filter.ALL, NOW);
        System.out.println("rows: " + total);
        PubKey someone = one.get(3).get(7).pubkey();
        time("author, limit 100", new Filter(null, Set.of(someone), null, Map.of(), null, null, 100));
        List<PubKey> follows = one.get(5).stream().map(Event::pubkey).distinct().limit(300).toList();
        time("300 authors, limit 100", new Filter(null, Set.copyOf(follows), Set.of(1), Map.of(), null, null, 100));
        time("#t, limit 100", new Filter(null, null, null, Map.of("t", Set.of("t42")), null, null, 100));
        time("#p, limit 500", new Filter(null, null, null, Map.of("p", Set.of(someone.hex())), null, null, 500));
        time("latest 500", Filter.ALL.withLimit(500));
    }

    static void time(String what, Filter f) {
        for (int i = 0; i < 3; i++) {
            store.query(f, NOW, (id, j) -> true);
        }
        int n = 20;
        long t0 = System.nanoTime();
        int[] rows = { 0 };
        for (int i = 0; i < n; i++) {
            rows[0] = 0;
            store.query(f, NOW, (id, j) -> ++rows[0] > 0);
        }
        System.out.printf("query %-24s %6.2f ms (%d rows)%n", what, (System.nanoTime() - t0) / 1e6 / n, rows[0]);
    }
}
