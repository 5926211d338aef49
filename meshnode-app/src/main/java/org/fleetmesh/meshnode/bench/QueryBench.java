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

import org.fleetmesh.meshnode.UsageException;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.relay.client.Dialer;
import org.fleetmesh.relay.client.OutboundConnection;

/**
 * REQ latency over a large store. {@code generate} writes a deterministic corpus as JSONL (for
 * {@code meshnode import}); {@code query} re-derives the corpus's authors and tag values from the
 * same seed and times REQ → EOSE for author, kind, #e, #p and time-range filters. {@code query --ingest N}
 * first publishes an N-event corpus of the same shape over the connection (waiting for every {@code OK}), so that
 * every filter shape returns events on an empty relay: the launcher's class-archive training run uses it.
 */
public final class QueryBench {
    /** How a corpus is drawn: its authors, the {@code e} tag values, and the seconds its created_at span. */
    record Shape(int authors, int roots, long span) {
        static final Shape DEFAULT = new Shape(1000, 1000, 1_000_000);

        static Shape of(Args a) {
            return new Shape(a.getInt("--authors", DEFAULT.authors), a.getInt("--roots", DEFAULT.roots),
                    a.getLong("--span", DEFAULT.span));
        }
    }

    public static void main(String[] args) throws Exception {
        int from = args.length > 0 && !args[0].startsWith("--") ? 1 : 0;
        String mode = from == 1 ? args[0] : "query";
        Args a = switch (mode) {
            case "generate" -> new Args(args, from, "--events", "--seed", "--base", "--authors", "--roots", "--span");
            case "query" -> new Args(args, from, "--url", "--runs", "--ingest", "--seed", "--base", "--authors",
                    "--roots", "--span");
            default -> throw new UsageException("unknown mode '" + mode + "' (generate or query)");
        };
        long seed = a.getLong("--seed", 7);
        long base = a.getLong("--base", 1_700_000_000L);
        Shape shape = Shape.of(a);
        if (shape.authors < 1 || shape.roots < 1 || shape.span < 2 || shape.span > Integer.MAX_VALUE) {
            throw new UsageException("--authors and --roots must be at least 1, --span 2 to 2^31-1 seconds");
        }
        if (mode.equals("generate")) {
            generate(a.getInt("--events", 1_000_000), seed, base, shape);
        } else {
            query(URI.create(a.get("--url", "ws://127.0.0.1:7777/")), a.getInt("--runs", 200), seed, base, shape,
                    a.getInt("--ingest", 0));
        }
    }

    static byte[] authorKey(long seed, int i) {
        return Events.sha256(("fleetmesh-bench-author-" + seed + "-" + i).getBytes(StandardCharsets.UTF_8));
    }

    static String root(long seed, int i) {
        return Hex.encode(Events.sha256(("fleetmesh-bench-root-" + seed + "-" + i).getBytes(StandardCharsets.UTF_8)));
    }

    /** The corpus's events {@code from} (inclusive) to {@code to}: each depends on the seed and its index only. */
    static List<Event> events(int from, int to, long seed, long base, Shape shape) {
        byte[][] keys = new byte[shape.authors][];
        String[] pubs = new String[shape.authors];
        for (int i = 0; i < shape.authors; i++) {
            keys[i] = authorKey(seed, i);
            pubs[i] = Hex.encode(Schnorr.publicKey(keys[i]));
        }
        return IntStream.range(from, to).parallel().mapToObj(i -> {
            Random r = new Random(seed * 1_000_003L + i);
            int author = r.nextInt(shape.authors);
            int kind = r.nextInt(100) < 85 ? 1 : 7;
            List<List<String>> tags = List.of(List.of("e", root(seed, r.nextInt(shape.roots))),
                    List.of("p", pubs[r.nextInt(shape.authors)]));
            return Events.sign(keys[author], base + (long) (r.nextDouble() * shape.span), kind, tags,
                    IngestBench.randomText(r, 80));
        }).toList();
    }

    static void generate(int total, long seed, long base, Shape shape) throws Exception {
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 20);
        int chunk = 50_000;
        for (int from = 0; from < total; from += chunk) {
            int end = Math.min(total, from + chunk);
            for (Event e : events(from, end, seed, base, shape)) {
                out.write(e.json());
                out.write('\n');
            }
            System.err.printf("generated %,d%n", end);
        }
        out.flush();
    }

    /** Publishes {@code lines} with at most {@code window} unanswered; fails on a refusal other than a duplicate. */
    static void publish(OutboundConnection client, LinkedBlockingQueue<String> oks, List<Event> lines, int window)
            throws InterruptedException {
        int sent = 0, answered = 0;
        while (answered < lines.size()) {
            while (sent < lines.size() && sent - answered < window) {
                client.send("[\"EVENT\"," + lines.get(sent++).json() + "]");
            }
            String ok = oks.poll(30, TimeUnit.SECONDS);
            if (ok == null) {
                throw new IllegalStateException("no OK within 30 s after " + answered + " of " + lines.size());
            }
            if (!ok.contains(",true,")) {
                throw new IllegalStateException("event refused: " + ok);
            }
            answered++;
        }
    }

    static void query(URI url, int runs, long seed, long base, Shape corpus, int ingest) throws Exception {
        int authors = corpus.authors, roots = corpus.roots;
        long span = corpus.span;
        LinkedBlockingQueue<String> eose = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<String> oks = new LinkedBlockingQueue<>();
        long[] received = { 0 };
        Dialer dialer = Dialer.standalone(2, Dialer.Options.DEFAULTS.withMaxMessageSize(64 << 20));
        OutboundConnection client = dialer.connect(url, msg -> {
            if (msg.startsWith("[\"EVENT\"")) {
                received[0]++;
            } else if (msg.startsWith("[\"EOSE\"") || msg.startsWith("[\"CLOSED\"")) {
                eose.offer(msg);
            } else if (msg.startsWith("[\"OK\"")) {
                oks.offer(msg);
            }
        }).toCompletableFuture().get(10, TimeUnit.SECONDS);
        if (ingest > 0) {
            long t0 = System.nanoTime();
            publish(client, oks, events(0, ingest, seed, base, corpus), 50);
            System.err.printf("published %,d events in %.1f s%n", ingest, (System.nanoTime() - t0) / 1e9);
        }
        String[] pubs = new String[authors];
        for (int i = 0; i < authors; i++) {
            pubs[i] = Hex.encode(Schnorr.publicKey(authorKey(seed, i)));
        }
        Random r = new Random(42);
        Map<String, java.util.function.Supplier<String>> shapes = new LinkedHashMap<>();
        // baseline: a REQ that never touches the store, i.e. the WebSocket round trip itself
        shapes.put("limit 0 (baseline)", () -> "{\"kinds\":[1],\"limit\":0}");
        shapes.put("authors", () -> "{\"authors\":[\"" + pubs[r.nextInt(authors)] + "\"],\"limit\":100}");
        shapes.put("kinds", () -> "{\"kinds\":[7],\"limit\":100}");
        shapes.put("kinds+until", () -> "{\"kinds\":[7],\"until\":" + (base + r.nextInt((int) span)) + ",\"limit\":100}");
        shapes.put("#e", () -> "{\"#e\":[\"" + root(seed, r.nextInt(roots)) + "\"],\"limit\":100}");
        shapes.put("#p", () -> "{\"#p\":[\"" + pubs[r.nextInt(authors)] + "\"],\"limit\":100}");
        long window = Math.min(3600, span / 2); // an hour, or half of a shorter span
        shapes.put("since/until 1h", () -> {
            long s = base + r.nextInt((int) (span - window));
            return "{\"since\":" + s + ",\"until\":" + (s + window) + ",\"limit\":500}";
        });
        shapes.put("authors+kinds", () -> "{\"authors\":[\"" + pubs[r.nextInt(authors)] + "\"],\"kinds\":[7],\"limit\":50}");
        // ten ids of the corpus (ingested here or by the caller), by the same seed: each REQ answers up to ten events
        if (ingest > 0) {
            List<String> ids = events(0, Math.min(ingest, 2000), seed, base, corpus).stream().map(e -> e.id().hex())
                    .toList();
            shapes.put("ids x10", () -> {
                StringBuilder f = new StringBuilder("{\"ids\":[");
                for (int i = 0; i < 10; i++) {
                    f.append(i == 0 ? "\"" : ",\"").append(ids.get(r.nextInt(ids.size()))).append('"');
                }
                return f.append("]}").toString();
            });
        }
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
