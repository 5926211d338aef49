package org.fleetmesh.meshnode.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** A minimal WebSocket client for load drivers: whole text messages to a callback. */
final class BenchClient implements WebSocket.Listener {
    private final Consumer<String> onMessage;
    private final StringBuilder partial = new StringBuilder();
    private WebSocket ws;

    private BenchClient(Consumer<String> onMessage) {
        this.onMessage = onMessage;
    }

    static BenchClient connect(HttpClient http, URI uri, Consumer<String> onMessage) throws Exception {
        BenchClient c = new BenchClient(onMessage);
        c.ws = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10)).buildAsync(uri, c)
                .get(10, TimeUnit.SECONDS);
        return c;
    }

    void send(String text) {
        // the JDK client allows one outstanding send at a time per socket
        synchronized (this) {
            ws.sendText(text, true).join();
        }
    }

    void close() {
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").orTimeout(5, TimeUnit.SECONDS).exceptionally(t -> null).join();
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        if (!last) {
            partial.append(data);
        } else if (partial.length() > 0) {
            partial.append(data);
            String msg = partial.toString();
            partial.setLength(0);
            onMessage.accept(msg);
        } else {
            onMessage.accept(data.toString());
        }
        webSocket.request(1);
        return null;
    }
}
