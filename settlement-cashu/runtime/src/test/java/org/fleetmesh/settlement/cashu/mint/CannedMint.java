package org.fleetmesh.settlement.cashu.mint;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A loopback HTTP server that answers every request the way the test says and remembers the last request.
 * No mint logic: the answers are the NUT examples in src/test/resources/mint.
 */
final class CannedMint implements AutoCloseable {
    /** What the server does with a request. */
    interface Answer {
        void answer(HttpExchange exchange) throws IOException;
    }

    record Request(String method, String path, String contentType, String body) {
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile Answer answer = json(200, "{}");
    private volatile Request last;

    CannedMint() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                last = new Request(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                        exchange.getRequestHeaders().getFirst("Content-Type"),
                        new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            answer.answer(exchange);
        });
        server.start();
    }

    URI uri() {
        return URI.create("http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort());
    }

    void answer(Answer a) {
        answer = a;
    }

    void answerJson(int status, String body) {
        answer = json(status, body);
    }

    void answerResource(int status, String name) {
        answer = json(status, resource(name));
    }

    Request last() {
        return last;
    }

    /** Holds the answer until the test ends (for timeouts). */
    Answer never() {
        return exchange -> {
            try {
                released.await(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        };
    }

    static Answer json(int status, String body) {
        return bytes(status, body.getBytes(StandardCharsets.UTF_8), true);
    }

    /** {@code declareLength} false sends the body chunked, without Content-Length. */
    static Answer bytes(int status, byte[] body, boolean declareLength) {
        return exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, declareLength ? (body.length == 0 ? -1 : body.length) : 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            } catch (IOException clientWentAway) {
                // the client may stop reading an oversized body; that is what is being tested
            }
        };
    }

    /** Closes the connection without any answer. */
    static Answer hangUp() {
        return HttpExchange::close;
    }

    static String resource(String name) {
        try (InputStream in = CannedMint.class.getResourceAsStream("/mint/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource mint/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        released.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}
