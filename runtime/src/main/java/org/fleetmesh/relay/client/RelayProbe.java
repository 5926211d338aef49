package org.fleetmesh.relay.client;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.nostr.nip66.Probe;
import org.fleetmesh.nostr.nip66.RelayUrl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

/**
 * Runs NIP-66's checks against one relay (docs/spec/monitoring.md, "Checks"): {@code open} (the WebSocket connects),
 * {@code read} (a REQ with limit 1 gets its EOSE), {@code write} (an EVENT gets its OK, true or false), over one
 * connection in that order, and {@code nip11} (an HTTP GET of the relay URL with
 * {@code Accept: application/nostr+json}, at most {@link #MAX_NIP11} bytes, a JSON object) beside them. Each check
 * has its own timeout; a failed check leaves its time out and says why in the probe's failures.
 */
public final class RelayProbe implements AutoCloseable {
    /** Largest NIP-11 document read: it goes into the discovery event's content. */
    public static final int MAX_NIP11 = 32 * 1024;
    static final String SUBSCRIPTION = "fleetmesh-monitor";
    private static final ObjectMapper JSON = new ObjectMapper();

    public record Timeouts(Duration open, Duration read, Duration write, Duration nip11) {
        public Timeouts {
            for (Duration d : new Duration[] { open, read, write, nip11 }) {
                if (d == null || d.isNegative() || d.isZero()) {
                    throw new IllegalArgumentException("a monitor timeout is positive, got " + d);
                }
            }
        }
    }

    private final Dialer dialer;
    private final HttpClient http;
    private final Timeouts timeouts;

    /** Checks over {@code dialer}'s WebSocket client and an HTTP client of its own on the same Vert.x. */
    public RelayProbe(Dialer dialer, Timeouts timeouts) {
        this.dialer = Objects.requireNonNull(dialer, "dialer");
        this.timeouts = Objects.requireNonNull(timeouts, "timeouts");
        this.http = dialer.vertx().createHttpClient(new HttpClientOptions().setMaxPoolSize(4)
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, timeouts.nip11().toMillis())).setKeepAlive(false)
                .setVerifyHost(true).setTrustAll(false));
    }

    /**
     * Probes {@code relay} (ws:// or wss://), writing {@code write} for the write check. Blocks for at most the sum of
     * the timeouts: never call it on an event loop.
     *
     * @throws IllegalArgumentException when {@code relay} is not a relay URL
     */
    public Probe probe(URI relay, Event write) {
        String url = RelayUrl.normalize(relay);
        URI target = URI.create(url);
        List<String> failures = new ArrayList<>();
        CompletableFuture<String> nip11 = nip11(target);
        CompletableFuture<Long> eose = new CompletableFuture<>();
        CompletableFuture<Long> ok = new CompletableFuture<>();
        String writeId = write.id().hex();
        OptionalLong open = OptionalLong.empty();
        OptionalLong read = OptionalLong.empty();
        OptionalLong wrote = OptionalLong.empty();
        long start = System.nanoTime();
        OutboundConnection c = dialer.dial(target, new OutboundConnection.Handler() {
            @Override
            public void onText(String text) {
                long at = System.nanoTime();
                JsonNode m;
                try {
                    m = JSON.readTree(text);
                } catch (Exception e) {
                    return; // not JSON: no answer to a check
                }
                String type = m.path(0).asText();
                if (type.equals("EOSE") && m.path(1).asText().equals(SUBSCRIPTION)) {
                    eose.complete(at);
                } else if (type.equals("CLOSED") && m.path(1).asText().equals(SUBSCRIPTION)) {
                    eose.completeExceptionally(new IllegalStateException("CLOSED " + m.path(2).asText()));
                } else if (type.equals("OK") && m.path(1).asText().equals(writeId)) {
                    ok.complete(at);
                }
            }

            @Override
            public void onClosed(String why) {
                IllegalStateException ended = new IllegalStateException(why);
                eose.completeExceptionally(ended);
                ok.completeExceptionally(ended);
            }
        });
        boolean connected = false;
        try {
            c.opened().toCompletableFuture().get(timeouts.open().toMillis(), TimeUnit.MILLISECONDS);
            connected = true;
            open = OptionalLong.of(millis(System.nanoTime() - start));
            long sent = System.nanoTime();
            c.send("[\"REQ\"," + NostrJson.quote(SUBSCRIPTION) + ",{\"limit\":1}]");
            read = await("read", eose, sent, timeouts.read(), failures);
            c.send("[\"CLOSE\"," + NostrJson.quote(SUBSCRIPTION) + "]");
            sent = System.nanoTime();
            c.send("[\"EVENT\"," + write.json() + "]");
            wrote = await("write", ok, sent, timeouts.write(), failures);
        } catch (TimeoutException e) {
            failures.add("open: no WebSocket within " + timeouts.open().toMillis() + " ms");
        } catch (ExecutionException e) {
            failures.add("open: " + e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add("interrupted");
        } finally {
            if (connected) {
                c.close();
            } else {
                c.opened().thenRun(c::close); // one still connecting is closed once it opens
            }
        }
        Optional<String> doc = Optional.empty();
        try {
            doc = Optional.of(nip11.get(timeouts.nip11().toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            failures.add("nip11: no document within " + timeouts.nip11().toMillis() + " ms");
        } catch (ExecutionException e) {
            failures.add("nip11: " + e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add("interrupted");
        }
        return new Probe(url, open, read, wrote, doc, failures);
    }

    private static OptionalLong await(String check, CompletableFuture<Long> answer, long sent, Duration timeout,
            List<String> failures) throws InterruptedException {
        try {
            long at = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return OptionalLong.of(millis(at - sent));
        } catch (TimeoutException e) {
            failures.add(check + ": no answer within " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            failures.add(check + ": " + e.getCause().getMessage());
        }
        return OptionalLong.empty();
    }

    private static long millis(long nanos) {
        return Math.max(0, Math.round(nanos / 1_000_000.0));
    }

    /** The NIP-11 document of the relay at {@code relay}: its http(s) twin, the same host, port and path. */
    private CompletableFuture<String> nip11(URI relay) {
        CompletableFuture<String> out = new CompletableFuture<>();
        String scheme = relay.getScheme().equals("wss") ? "https" : "http";
        String absolute = scheme + relay.toString().substring(relay.getScheme().length());
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(absolute)
                .putHeader("Accept", "application/nostr+json").setIdleTimeout(timeouts.nip11().toMillis())
                .setFollowRedirects(false);
        // made on an event loop: the response's future completes there and the body handlers below are set before
        // that loop reads another chunk; set from another thread (listeners dispatched to another context), a short
        // body could pass before them and the check would wait out its timeout
        dialer.vertx().getOrCreateContext().runOnContext(ignored -> {
            try {
                request(options, out);
            } catch (RuntimeException e) {
                out.completeExceptionally(e);
            }
        });
        return out;
    }

    private void request(RequestOptions options, CompletableFuture<String> out) {
        http.request(options).compose(req -> req.send()).onFailure(out::completeExceptionally).onSuccess(resp -> {
            if (resp.statusCode() != 200) {
                resp.request().reset();
                out.completeExceptionally(new IllegalStateException("HTTP " + resp.statusCode()));
                return;
            }
            Buffer body = Buffer.buffer();
            resp.exceptionHandler(out::completeExceptionally);
            resp.handler(chunk -> {
                if (out.isDone()) {
                    return;
                }
                if (body.length() + chunk.length() > MAX_NIP11) {
                    out.completeExceptionally(new IllegalStateException("document over " + MAX_NIP11 + " bytes"));
                    resp.request().reset();
                    return;
                }
                body.appendBuffer(chunk);
            });
            resp.endHandler(v -> {
                if (out.isDone()) {
                    return;
                }
                String text = body.toString(java.nio.charset.StandardCharsets.UTF_8);
                try {
                    if (!JSON.readTree(text).isObject()) {
                        throw new IllegalStateException("not a JSON object");
                    }
                    out.complete(text);
                } catch (Exception e) {
                    out.completeExceptionally(new IllegalStateException("the document is not a JSON object"));
                }
            });
        });
    }

    @Override
    public void close() {
        http.close();
    }
}
