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
 *
 * <p>With {@code --subscribers S --subscriber-connections K --matching F}, S live REQ subscriptions
 * are opened first over K more connections (all past EOSE before the first event goes out): a
 * fraction F of them match a fiftieth of the ingested events each ({@code #t} = one of the 50 tags
 * the events carry), the rest match none. Events delivered to them are counted and awaited.
 */
public final class IngestBench {
    /** The events carry one of this many {@code t} tags, event i the tag {@code bench<i % TAGS>}. */
    static final int TAGS = 50;

    public static void main(String[] args) throws Exception {
        Args a = new Args(args, "--url", "--connections", "--inflight", "--events", "--authors", "--content",
                "--subscribers", "--subscriber-connections", "--matching", "--seed", "--timeout");
        URI url = URI.create(a.get("--url", "ws://127.0.0.1:7777/"));
        int connections = a.getInt("--connections", 8);
        int inflight = a.getInt("--inflight", 200);
        int total = a.getInt("--events", 100_000);
        int authors = a.getInt("--authors", 200);
        int contentBytes = a.getInt("--content", 120);
        int subscribers = a.getInt("--subscribers", 0);
        int subscriberConnections = Math.max(1, Math.min(subscribers, a.getInt("--subscriber-connections", 100)));
        double matching = a.getDouble("--matching", 0.1);
        if (matching < 0 || matching > 1) {
            throw new IllegalArgumentException("--matching is a fraction from 0 to 1");
        }

        System.err.printf("signing %,d events from %d authors ...%n", total, authors);
        List<Event> events = generate(total, authors, contentBytes, a.getLong("--seed", 1));
        List<String> messages = events.stream().map(e -> "[\"EVENT\"," + e.json() + "]").toList();

        double verifyRate = verifyRate(events.subList(0, Math.min(20_000, events.size())));
        System.err.printf("single-core BIP-340 verify: %,.0f/s%n", verifyRate);

        AtomicLong ok = new AtomicLong(), refused = new AtomicLong();
        CountDownLatch done = new CountDownLatch(total);
        // each connection keeps `inflight` events outstanding: the next goes out when an OK comes back
        Dialer dialer = Dialer.standalone(2, Dialer.Options.DEFAULTS.withMaxMessageSize(64 << 20)
                .withMaxConnectionsPerHost(connections + subscriberConnections + 1));
        Subscribers subs = subscribers == 0 ? null
                : Subscribers.open(dialer, url, subscribers, subscriberConnections, matching, total);
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
        int timeout = a.getInt("--timeout", 600);
        boolean finished = done.await(timeout, TimeUnit.SECONDS);
        double secs = (System.nanoTime() - start) / 1e9;
        boolean allDelivered = true;
        String delivery = "";
        if (subs != null) {
            // the OKs are in; live delivery may trail them
            allDelivered = finished && subs.awaitAll(timeout);
            double deliverySecs = (System.nanoTime() - start) / 1e9;
            delivery = String.format(",\"subscribers\":%d,\"subscriber_connections\":%d,\"matching_subscribers\":%d,"
                    + "\"expected_deliveries\":%d,\"delivered\":%d,\"delivery_seconds\":%.2f,\"deliveries_per_s\":%.0f",
                    subscribers, subscriberConnections, subs.matching, subs.expected, subs.delivered.get(), deliverySecs,
                    subs.delivered.get() / deliverySecs);
            subs.close();
        }
        clients.forEach(OutboundConnection::close);
        dialer.close();
        System.out.printf("{\"events\":%d,\"connections\":%d,\"inflight\":%d,\"ok_true\":%d,\"ok_false\":%d,"
                + "\"seconds\":%.2f,\"events_per_s\":%.0f,\"verify_per_s_one_core\":%.0f,\"ratio_to_verify\":%.2f,"
                + "\"finished\":%b%s}%n", total, connections, inflight, ok.get(), refused.get(), secs, ok.get() / secs,
                verifyRate, (ok.get() / secs) / verifyRate, finished && allDelivered, delivery);
        System.exit(finished && allDelivered && refused.get() == 0 ? 0 : 1);
    }

    /** Live subscriptions held open during the run, counting the events delivered to them. */
    static final class Subscribers {
        final List<OutboundConnection> connections = new ArrayList<>();
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong closed = new AtomicLong();
        final int matching;
        final long expected;
        private final CountDownLatch eose;

        private Subscribers(int subscribers, int matching, long expected) {
            this.matching = matching;
            this.expected = expected;
            this.eose = new CountDownLatch(subscribers);
        }

        static Subscribers open(Dialer dialer, URI url, int subscribers, int connections, double fraction, int total)
                throws Exception {
            int matching = (int) Math.round(subscribers * fraction);
            long expected = 0;
            for (int j = 0; j < matching; j++) {
                expected += tagCount(total, j % TAGS);
            }
            Subscribers s = new Subscribers(subscribers, matching, expected);
            // the relay allows a few queries in flight per connection: the next REQ goes out on an EOSE
            List<java.util.concurrent.ConcurrentLinkedQueue<String>> reqs = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                reqs.add(new java.util.concurrent.ConcurrentLinkedQueue<>());
            }
            for (int j = 0; j < subscribers; j++) {
                // matching: one of the events' 50 tags; the rest: a tag no event carries
                String filter = j < matching ? "{\"kinds\":[1],\"#t\":[\"bench" + (j % TAGS) + "\"]}"
                        : "{\"kinds\":[1],\"#t\":[\"none" + j + "\"]}";
                reqs.get(j % connections).add("[\"REQ\",\"s" + j + "\"," + filter + "]");
            }
            for (int c = 0; c < connections; c++) {
                java.util.concurrent.ConcurrentLinkedQueue<String> mine = reqs.get(c);
                OutboundConnection[] self = new OutboundConnection[1];
                self[0] = dialer.connect(url, msg -> {
                    if (msg.startsWith("[\"EVENT\"")) {
                        s.delivered.incrementAndGet();
                        return;
                    }
                    if (msg.startsWith("[\"CLOSED\"")) {
                        s.closed.incrementAndGet();
                        System.err.println("subscription refused: " + msg);
                    } else if (!msg.startsWith("[\"EOSE\"")) {
                        return;
                    }
                    s.eose.countDown();
                    String next = mine.poll();
                    if (next != null) {
                        self[0].send(next);
                    }
                }).toCompletableFuture().get(10, TimeUnit.SECONDS);
                s.connections.add(self[0]);
                for (int k = 0; k < 2; k++) {
                    String first = mine.poll();
                    if (first != null) {
                        self[0].send(first);
                    }
                }
            }
            if (!s.eose.await(120, TimeUnit.SECONDS) || s.closed.get() > 0) {
                throw new IllegalStateException("subscriptions not all open: " + s.eose.getCount() + " without EOSE, "
                        + s.closed.get() + " refused");
            }
            System.err.printf("%,d live subscriptions over %d connections, %d matching (expect %,d deliveries)%n",
                    subscribers, connections, matching, expected);
            return s;
        }

        /** Events with tag {@code bench<t>}: event i carries tag i % 50. */
        static long tagCount(int total, int t) {
            return total / TAGS + (t < total % TAGS ? 1 : 0);
        }

        boolean awaitAll(int timeoutSeconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            while (delivered.get() < expected && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            return delivered.get() >= expected;
        }

        void close() {
            connections.forEach(OutboundConnection::close);
        }
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
                        List.of(List.of("e", ref[i]), List.of("t", "bench" + (i % TAGS))), content[i]))
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
