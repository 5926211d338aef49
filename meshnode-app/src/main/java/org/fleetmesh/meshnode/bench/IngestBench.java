package org.fleetmesh.meshnode.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.relay.client.Dialer;
import org.fleetmesh.relay.client.OutboundConnection;

/**
 * Sustained ingest: pre-signed events pushed over several WebSocket connections with a fixed
 * number in flight each, counting {@code OK true}. Also measures the single-core BIP-340
 * verification rate on the same machine in the same run, the natural ceiling to compare with.
 */
public final class IngestBench {

    public static void main(String[] args) throws Exception {
        Args a = new Args(args);
        URI url = URI.create(a.get("--url", "ws://127.0.0.1:7777/"));
        int connections = a.getInt("--connections", 8);
        int inflight = a.getInt("--inflight", 200);
        int total = a.getInt("--events", 100_000);
        int authors = a.getInt("--authors", 200);
        int contentBytes = a.getInt("--content", 120);

        System.err.printf("signing %,d events from %d authors ...%n", total, authors);
        List<Event> events = generate(total, authors, contentBytes, a.getLong("--seed", 1));
        List<String> messages = events.stream().map(e -> "[\"EVENT\"," + e.json() + "]").toList();

        double verifyRate = verifyRate(events.subList(0, Math.min(20_000, events.size())));
        System.err.printf("single-core BIP-340 verify: %,.0f/s%n", verifyRate);

        AtomicLong ok = new AtomicLong(), refused = new AtomicLong();
        CountDownLatch done = new CountDownLatch(total);
        // each connection keeps `inflight` events outstanding: the next goes out when an OK comes back
        Dialer dialer = Dialer.standalone(2, Dialer.Options.DEFAULTS.withMaxMessageSize(64 << 20));
        List<OutboundConnection> clients = new ArrayList<>();
        AtomicInteger[] next = new AtomicInteger[connections];
        for (int c = 0; c < connections; c++) {
            int conn = c;
            next[c] = new AtomicInteger(c);
            OutboundConnection[] self = new OutboundConnection[1];
            self[0] = dialer.connect(url, msg -> {
                if (msg.startsWith("[\"OK\"")) {
                    if (msg.contains("\",true,")) {
                        ok.incrementAndGet();
                    } else {
                        refused.incrementAndGet();
                    }
                    done.countDown();
                    int i = next[conn].getAndAdd(connections);
                    if (i < total) {
                        self[0].send(messages.get(i));
                    }
                }
            }).toCompletableFuture().get(10, TimeUnit.SECONDS);
            clients.add(self[0]);
        }
        long start = System.nanoTime();
        for (int c = 0; c < connections; c++) {
            for (int k = 0; k < inflight; k++) {
                int i = next[c].getAndAdd(connections);
                if (i < total) {
                    clients.get(c).send(messages.get(i));
                }
            }
        }
        boolean finished = done.await(a.getInt("--timeout", 600), TimeUnit.SECONDS);
        double secs = (System.nanoTime() - start) / 1e9;
        clients.forEach(OutboundConnection::close);
        dialer.close();
        System.out.printf("{\"events\":%d,\"connections\":%d,\"inflight\":%d,\"ok_true\":%d,\"ok_false\":%d,"
                + "\"seconds\":%.2f,\"events_per_s\":%.0f,\"verify_per_s_one_core\":%.0f,\"ratio_to_verify\":%.2f,"
                + "\"finished\":%b}%n", total, connections, inflight, ok.get(), refused.get(), secs, ok.get() / secs,
                verifyRate, (ok.get() / secs) / verifyRate, finished);
        System.exit(finished && refused.get() == 0 ? 0 : 1);
    }

    static List<Event> generate(int total, int authors, int contentBytes, long seed) {
        Random r = new Random(seed);
        byte[][] keys = new byte[authors][];
        for (int i = 0; i < authors; i++) {
            keys[i] = Schnorr.newSecretKey();
        }
        long now = System.currentTimeMillis() / 1000;
        long[] createdAt = new long[total];
        int[] author = new int[total];
        String[] content = new String[total];
        String[] ref = new String[total];
        for (int i = 0; i < total; i++) {
            createdAt[i] = now - r.nextInt(1_000_000);
            author[i] = r.nextInt(authors);
            content[i] = randomText(r, contentBytes);
            byte[] b = new byte[32];
            r.nextBytes(b);
            ref[i] = org.fleetmesh.nostr.Hex.encode(b);
        }
        return IntStream.range(0, total).parallel()
                .mapToObj(i -> Events.sign(keys[author[i]], createdAt[i], 1,
                        List.of(List.of("e", ref[i]), List.of("t", "bench" + (i % 50))), content[i]))
                .toList();
    }

    static String randomText(Random r, int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = (char) ('a' + r.nextInt(26));
        }
        return new String(c);
    }

    static double verifyRate(List<Event> sample) {
        for (int warm = 0; warm < 2; warm++) {
            for (Event e : sample) {
                if (Events.verify(e) != null) {
                    throw new IllegalStateException("generated event does not verify");
                }
            }
        }
        long t0 = System.nanoTime();
        for (Event e : sample) {
            Schnorr.verify(e.sig().unsafeBytes(), e.id().unsafeBytes(), e.pubkey().unsafeBytes());
        }
        return sample.size() / ((System.nanoTime() - t0) / 1e9);
    }
}
