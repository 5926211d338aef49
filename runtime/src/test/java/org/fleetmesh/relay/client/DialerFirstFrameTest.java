package org.fleetmesh.relay.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;

/**
 * What a server says the moment the WebSocket opens (a relay's NIP-42 AUTH, a peer's MESH-HELLO) reaches the
 * dialer's handler, whichever thread dials. Vert.x 4.5's client delivers frames that came in the same read as the
 * 101 response before the connect future's listener attaches the handlers when that future belongs to another
 * context; without the dialer's event-loop context a few per cent of these connections lost both frames.
 */
class DialerFirstFrameTest {
    static final int CONNECTIONS = Integer.getInteger("dialer.connections", 300);
    static Vertx vertx;
    static HttpServer server;
    static Dialer dialer;

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        server = vertx.createHttpServer().webSocketHandler(ws -> {
            ws.writeTextMessage("first");
            ws.writeTextMessage("second");
        });
        server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        dialer = new Dialer(vertx, Dialer.Options.DEFAULTS);
    }

    @AfterAll
    static void stop() throws Exception {
        dialer.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Dials, returns what the handler saw once "second" arrived or 3 s passed, and closes. */
    private static CompletableFuture<String> dialOnce() {
        return dialOnce(dialer, server.actualPort());
    }

    private static CompletableFuture<String> dialOnce(Dialer dialer, int port) {
        URI url = URI.create("ws://127.0.0.1:" + port + "/");
        StringBuilder seen = new StringBuilder();
        CompletableFuture<String> done = new CompletableFuture<>();
        OutboundConnection c = dialer.dial(url, new OutboundConnection.Handler() {
            @Override
            public void onText(String text) {
                seen.append(text).append(',');
                if (text.equals("second")) {
                    done.complete(seen.toString());
                }
            }

            @Override
            public void onClosed(String why) {
                done.complete(seen + "closed: " + why);
            }
        });
        return done.completeOnTimeout(null, 3, TimeUnit.SECONDS).thenApply(s -> {
            c.close();
            return s == null ? seen + "nothing more in 3 s" : s;
        });
    }

    private static void assertAllSawBoth(List<CompletableFuture<String>> runs) {
        int lost = 0;
        String example = null;
        for (CompletableFuture<String> r : runs) {
            String s = r.join();
            if (!s.equals("first,second,")) {
                lost++;
                example = s;
            }
        }
        assertEquals(0, lost, lost + " of " + runs.size() + " connections missed the server's first frames, e.g. "
                + example);
    }

    @Test
    void fromATestThread() {
        List<CompletableFuture<String>> runs = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            runs.add(dialOnce());
            if (i % 10 == 9) {
                runs.get(i).join();
            }
        }
        assertAllSawBoth(runs);
    }

    /** A node's first connections come from a Vert.x that has just started: the case that lost most often. */
    @Test
    void fromAFreshVertxEachTime() throws Exception {
        int lost = 0;
        String example = null;
        int rounds = CONNECTIONS / 2;
        for (int i = 0; i < rounds; i++) {
            Vertx fresh = Vertx.vertx();
            try {
                HttpServer s = fresh.createHttpServer().webSocketHandler(ws -> {
                    ws.writeTextMessage("first");
                    ws.writeTextMessage("second");
                });
                s.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
                try (Dialer d = new Dialer(fresh, Dialer.Options.DEFAULTS)) {
                    String r = dialOnce(d, s.actualPort()).join();
                    if (!r.equals("first,second,")) {
                        lost++;
                        example = r;
                    }
                }
            } finally {
                fresh.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
        }
        assertEquals(0, lost, lost + " of " + rounds + " connections missed the server's first frames, e.g. "
                + example);
    }

    @Test
    void fromAWorkerThreadAnEventLoopAndADuplicatedContext() throws Exception {
        List<CompletableFuture<String>> runs = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS / 2; i++) {
            CompletableFuture<CompletableFuture<String>> started = new CompletableFuture<>();
            if (i % 3 == 0) {
                vertx.executeBlocking(() -> dialOnce(), false).onSuccess(started::complete);
            } else if (i % 3 == 1) {
                vertx.runOnContext(v -> started.complete(dialOnce()));
            } else { // a duplicated context, as Quarkus runs its handlers on
                ((io.vertx.core.impl.ContextInternal) vertx.getOrCreateContext()).duplicate()
                        .runOnContext(v -> started.complete(dialOnce()));
            }
            runs.add(started.get(10, TimeUnit.SECONDS));
            if (i % 10 == 9) {
                runs.get(i).join();
            }
        }
        assertAllSawBoth(runs);
    }
}
