import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Schnorr;

/**
 * End-to-end latency of federation: EVENT at node A (after its OK) to the event live at node B, which federates it.
 * One event at a time, so each figure is one event's trip (publish, commit at A, frame, checks and commit at B, fan-out).
 * usage: java -cp <meshnode classpath> bench/DeliveryLatency.java <ws-url of A> <ws-url of B> [events]
 */
public class DeliveryLatency {
    public static void main(String[] args) throws Exception {
        URI a = URI.create(args[0]);
        URI b = URI.create(args[1]);
        int n = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        byte[] key = Schnorr.newSecretKey();
        String tag = "lat" + System.nanoTime();
        Map<String, Long> arrived = new ConcurrentHashMap<>();
        LinkedBlockingQueue<String> atA = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<String> atB = new LinkedBlockingQueue<>();
        HttpClient http = HttpClient.newHttpClient();
        WebSocket wb = http.newWebSocketBuilder().buildAsync(b, listener(atB, arrived)).get(10, TimeUnit.SECONDS);
        WebSocket wa = http.newWebSocketBuilder().buildAsync(a, listener(atA, null)).get(10, TimeUnit.SECONDS);
        wb.sendText("[\"REQ\",\"lat\",{\"kinds\":[1],\"#t\":[\"" + tag + "\"]}]", true).get();
        await(atB, "EOSE");
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < n + 10; i++) {
            Event e = Events.sign(key, System.currentTimeMillis() / 1000, 1, List.of(List.of("t", tag)), "latency " + i);
            String id = e.id().hex();
            long t = System.nanoTime();
            wa.sendText("[\"EVENT\"," + e.json() + "]", true).get();
            String ok = await(atA, "\"OK\"");
            if (!ok.contains("true")) {
                throw new IllegalStateException("A refused: " + ok);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!arrived.containsKey(id)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("event " + i + " did not reach B within 30 s");
                }
                Thread.onSpinWait();
            }
            if (i >= 10) { // the first ten warm up
                ms.add((arrived.get(id) - t) / 1e6);
            }
        }
        Collections.sort(ms);
        System.out.printf("latency EVENT at A -> live at B: p50 %.1f ms, p99 %.1f ms, max %.1f ms over %d events%n",
                ms.get(ms.size() / 2), ms.get((int) Math.ceil(ms.size() * 0.99) - 1), ms.get(ms.size() - 1), ms.size());
        wa.sendClose(WebSocket.NORMAL_CLOSURE, "").get();
        wb.sendClose(WebSocket.NORMAL_CLOSURE, "").get();
    }

    static String await(LinkedBlockingQueue<String> q, String part) throws InterruptedException {
        while (true) {
            String m = q.poll(30, TimeUnit.SECONDS);
            if (m == null) {
                throw new IllegalStateException("no " + part + " within 30 s");
            }
            if (m.contains(part)) {
                return m;
            }
        }
    }

    static WebSocket.Listener listener(LinkedBlockingQueue<String> q, Map<String, Long> arrived) {
        return new WebSocket.Listener() {
            StringBuilder partial = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                partial.append(data);
                if (last) {
                    String m = partial.toString();
                    partial = new StringBuilder();
                    if (arrived != null && m.startsWith("[\"EVENT\"")) {
                        int at = m.indexOf("\"id\":\"");
                        arrived.put(m.substring(at + 6, at + 70), System.nanoTime());
                    } else {
                        q.add(m);
                    }
                }
                ws.request(1);
                return CompletableFuture.completedFuture(null);
            }
        };
    }
}
