import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Schnorr;

/**
 * Live writes at a fixed rate: kind 1 (85 %) and kind 7 events created now, published to one relay over one
 * connection, paced per millisecond tick; waits for every OK. Prints what it sent and how many were accepted.
 * usage: java -cp <meshnode classpath> bench/LiveWrites.java <ws-url> <events per second> <seconds>
 */
public class LiveWrites {
    public static void main(String[] args) throws Exception {
        URI url = URI.create(args[0]);
        int rate = Integer.parseInt(args[1]);
        int seconds = Integer.parseInt(args[2]);
        byte[][] keys = new byte[16][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = Schnorr.newSecretKey();
        }
        AtomicLong ok = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder().buildAsync(url, new WebSocket.Listener() {
            StringBuilder partial = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                partial.append(data);
                if (last) {
                    String m = partial.toString();
                    partial = new StringBuilder();
                    if (m.startsWith("[\"OK\"")) {
                        (m.contains(",true,") ? ok : refused).incrementAndGet();
                    }
                }
                w.request(1);
                return CompletableFuture.completedFuture(null);
            }
        }).get(10, TimeUnit.SECONDS);
        long total = (long) rate * seconds;
        long t0 = System.nanoTime();
        for (long i = 0; i < total; i++) {
            long due = t0 + i * 1_000_000_000L / rate;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            int kind = i % 20 < 17 ? 1 : 7;
            Event e = Events.sign(keys[(int) (i % keys.length)], System.currentTimeMillis() / 1000, kind, List.of(),
                    "live " + i);
            ws.sendText("[\"EVENT\"," + e.json() + "]", true).get();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (ok.get() + refused.get() < total && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        double took = (System.nanoTime() - t0) / 1e9;
        System.out.printf("live writes: %d sent in %.1f s (%.0f/s), %d accepted, %d refused%n", total, took,
                total / took, ok.get(), refused.get());
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get();
    }
}
