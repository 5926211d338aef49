package org.fleetmesh.meshnode.bench;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.relay.client.Dialer;
import org.fleetmesh.relay.client.OutboundConnection;

/**
 * REQ latency over a large store. {@code generate} writes a deterministic corpus as JSONL (for
 * {@code meshnode import}); {@code query} re-derives the corpus's authors and tag values from the
 * same seed and times REQ → EOSE for author, kind, #e, #p and time-range filters.
 */
public final class QueryBench {
    static final int AUTHORS = 1000;
    static final int ROOTS = 1000;
    static final long SPAN = 1_000_000;

    public static void main(String[] args) throws Exception {
        Args a = new Args(args);
        String mode = args.length > 0 ? args[0] : "query";
        long seed = a.getLong("--seed", 7);
        long base = a.getLong("--base", 1_700_000_000L);
        if (mode.equals("generate")) {
            generate(a.getInt("--events", 1_000_000), seed, base);
        } else {
            query(URI.create(a.get("--url", "ws://127.0.0.1:7777/")), a.getInt("--runs", 200), seed, base);
        }
    }

    static byte[] authorKey(long seed, int i) {
        return Events.sha256(("fleetmesh-bench-author-" + seed + "-" + i).getBytes(StandardCharsets.UTF_8));
    }

    static String root(long seed, int i) {
        return Hex.encode(Events.sha256(("fleetmesh-bench-root-" + seed + "-" + i).getBytes(StandardCharsets.UTF_8)));
    }

    static void generate(int total, long seed, long base) throws Exception {
        byte[][] keys = new byte[AUTHORS][];
        String[] pubs = new String[AUTHORS];
        for (int i = 0; i < AUTHORS; i++) {
            keys[i] = authorKey(seed, i);
            pubs[i] = Hex.encode(Schnorr.publicKey(keys[i]));
        }
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 20);
        int chunk = 50_000;
        for (int from = 0; from < total; from += chunk) {
            int start = from, end = Math.min(total, from + chunk);
            List<String> lines = IntStream.range(start, end).parallel().mapToObj(i -> {
                Random r = new Random(seed * 1_000_003L + i);
                int author = r.nextInt(AUTHORS);
                int kind = r.nextInt(100) < 85 ? 1 : 7;
                List<List<String>> tags = List.of(List.of("e", root(seed, r.nextInt(ROOTS))),
                        List.of("p", pubs[r.nextInt(AUTHORS)]));
                return Events.sign(keys[author], base + (long) (r.nextDouble() * SPAN), kind, tags,
                        IngestBench.randomText(r, 80)).json();
            }).toList();
            for (String l : lines) {
                out.write(l);
                out.write('\n');
            }
            System.err.printf("generated %,d%n", end);
        }
        out.flush();
    }

    static void query(URI url, int runs, long seed, long base) throws Exception {
        LinkedBlockingQueue<String> eose = new LinkedBlockingQueue<>();
        long[] received = { 0 };
        Dialer dialer = Dialer.standalone(2, Dialer.Options.DEFAULTS.withMaxMessageSize(64 << 20));
        OutboundConnection client = dialer.connect(url, msg -> {
            if (msg.startsWith("[\"EVENT\"")) {
                received[0]++;
            } else if (msg.startsWith("[\"EOSE\"") || msg.startsWith("[\"CLOSED\"")) {
                eose.offer(msg);
            }
        }).toCompletableFuture().get(10, TimeUnit.SECONDS);
        String[] pubs = new String[AUTHORS];
        for (int i = 0; i < AUTHORS; i++) {
            pubs[i] = Hex.encode(Schnorr.publicKey(authorKey(seed, i)));
        }
        Random r = new Random(42);
        Map<String, java.util.function.Supplier<String>> shapes = new LinkedHashMap<>();
        // baseline: a REQ that never touches the store, i.e. the WebSocket round trip itself
        shapes.put("limit 0 (baseline)", () -> "{\"kinds\":[1],\"limit\":0}");
        shapes.put("authors", () -> "{\"authors\":[\"" + pubs[r.nextInt(AUTHORS)] + "\"],\"limit\":100}");
        shapes.put("kinds", () -> "{\"kinds\":[7],\"limit\":100}");
        shapes.put("kinds+until", () -> "{\"kinds\":[7],\"until\":" + (base + r.nextInt((int) SPAN)) + ",\"limit\":100}");
        shapes.put("#e", () -> "{\"#e\":[\"" + root(seed, r.nextInt(ROOTS)) + "\"],\"limit\":100}");
        shapes.put("#p", () -> "{\"#p\":[\"" + pubs[r.nextInt(AUTHORS)] + "\"],\"limit\":100}");
        shapes.put("since/until 1h", () -> {
            long s = base + r.nextInt((int) SPAN - 3600);
            return "{\"since\":" + s + ",\"until\":" + (s + 3600) + ",\"limit\":500}";
        });
        shapes.put("authors+kinds", () -> "{\"authors\":[\"" + pubs[r.nextInt(AUTHORS)] + "\"],\"kinds\":[7],\"limit\":50}");
        StringBuilder json = new StringBuilder("{");
        int sub = 0;
        for (var shape : shapes.entrySet()) {
            for (int w = 0; w < 20; w++) { // warm-up
                client.send("[\"REQ\",\"w" + sub + "\"," + shape.getValue().get() + "]");
                eose.poll(30, TimeUnit.SECONDS);
                client.send("[\"CLOSE\",\"w" + sub++ + "\"]");
            }
            long[] nanos = new long[runs];
            long before = received[0];
            for (int i = 0; i < runs; i++) {
                String id = "q" + sub++;
                long t0 = System.nanoTime();
                client.send("[\"REQ\",\"" + id + "\"," + shape.getValue().get() + "]");
                String end = eose.poll(30, TimeUnit.SECONDS);
                nanos[i] = System.nanoTime() - t0;
                if (end == null || end.startsWith("[\"CLOSED\"")) {
                    throw new IllegalStateException("query failed: " + end);
                }
                client.send("[\"CLOSE\",\"" + id + "\"]");
            }
            Arrays.sort(nanos);
            double p50 = nanos[runs / 2] / 1e6, p99 = nanos[(int) Math.min(runs - 1, Math.ceil(runs * 0.99) - 1)] / 1e6;
            double avgEvents = (received[0] - before) / (double) runs;
            System.err.printf("%-16s p50 %7.2f ms  p99 %7.2f ms  (%.0f events per REQ)%n", shape.getKey(), p50, p99, avgEvents);
            if (json.length() > 1) {
                json.append(',');
            }
            json.append(String.format("\"%s\":{\"p50_ms\":%.2f,\"p99_ms\":%.2f,\"events_per_req\":%.0f}", shape.getKey(), p50,
                    p99, avgEvents));
        }
        System.out.println(json.append('}'));
        client.close();
        dialer.close();
        System.exit(0);
    }

}
