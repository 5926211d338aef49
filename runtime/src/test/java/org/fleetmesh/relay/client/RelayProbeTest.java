package org.fleetmesh.relay.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.nip66.Probe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;

/** The NIP-66 checks against small relays on loopback that answer, stay silent, or serve too much. */
class RelayProbeTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] KEY = new byte[32];
    static {
        KEY[31] = 7;
    }

    private Vertx vertx;
    private Dialer dialer;
    private RelayProbe probe;

    /** What the fake relay does. */
    private volatile boolean answerReq = true;
    private volatile String nip11 = "{\"supported_nips\":[1,11]}";

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        dialer = new Dialer(vertx, Dialer.Options.DEFAULTS.withConnectTimeout(Duration.ofSeconds(5)));
        probe = new RelayProbe(dialer, new RelayProbe.Timeouts(Duration.ofSeconds(5), Duration.ofMillis(300),
                Duration.ofSeconds(5), Duration.ofSeconds(5)));
    }

    @AfterEach
    void stop() throws Exception {
        probe.close();
        dialer.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private int relay() throws Exception {
        HttpServer server = vertx.createHttpServer().webSocketHandler(ws -> {
            ws.writeTextMessage("[\"AUTH\",\"challenge\"]");
            ws.textMessageHandler(text -> {
                try {
                    JsonNode m = JSON.readTree(text);
                    if (m.path(0).asText().equals("REQ") && answerReq) {
                        ws.writeTextMessage("[\"EOSE\"," + JSON.writeValueAsString(m.path(1).asText()) + "]");
                    } else if (m.path(0).asText().equals("EVENT")) {
                        ws.writeTextMessage("[\"OK\",\"" + m.path(1).path("id").asText() + "\",false,\"blocked: no\"]");
                    }
                } catch (Exception e) {
                    ws.close();
                }
            });
        }).requestHandler(req -> {
            if ("application/nostr+json".equals(req.getHeader("Accept"))) {
                req.response().putHeader("Content-Type", "application/nostr+json").end(nip11);
            } else {
                req.response().setStatusCode(404).end();
            }
        });
        return server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS)
                .actualPort();
    }

    private static Event write() {
        return Events.sign(KEY, 1, 20166, List.of(), "");
    }

    @Test
    void aRelayThatAnswersGetsEveryTimeAndItsDocument() throws Exception {
        int port = relay();
        Probe p = probe.probe(URI.create("ws://127.0.0.1:" + port), write());
        assertEquals("ws://127.0.0.1:" + port + "/", p.url());
        assertTrue(p.open().isPresent() && p.read().isPresent() && p.write().isPresent(), p.toString());
        assertEquals(nip11, p.nip11().orElseThrow());
        assertEquals(List.of(), p.failures(), "an OK false is an answer to the write check");
    }

    @Test
    void aReqWithoutEoseFailsTheReadCheckAndTheWriteStillRuns() throws Exception {
        answerReq = false;
        Probe p = probe.probe(URI.create("ws://127.0.0.1:" + relay() + "/"), write());
        assertTrue(p.open().isPresent());
        assertTrue(p.read().isEmpty());
        assertTrue(p.write().isPresent());
        assertEquals(List.of("read: no answer within 300 ms"), p.failures());
    }

    @Test
    void aDocumentOverTheBoundIsNotKept() throws Exception {
        nip11 = "{\"name\":\"" + "x".repeat(RelayProbe.MAX_NIP11) + "\"}";
        Probe p = probe.probe(URI.create("ws://127.0.0.1:" + relay() + "/"), write());
        assertTrue(p.nip11().isEmpty());
        assertEquals(List.of("nip11: document over " + RelayProbe.MAX_NIP11 + " bytes"), p.failures());
    }

    @Test
    void aDocumentThatIsNotJsonIsNotKept() throws Exception {
        nip11 = "<html>hello</html>";
        Probe p = probe.probe(URI.create("ws://127.0.0.1:" + relay() + "/"), write());
        assertTrue(p.nip11().isEmpty());
        assertEquals(List.of("nip11: the document is not a JSON object"), p.failures());
    }

    @Test
    void aRelayThatIsNotThereIsNotReached() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Probe p = probe.probe(URI.create("ws://127.0.0.1:" + port + "/"), write());
        assertFalse(p.reached(), p.toString());
        assertEquals(2, p.failures().size(), p.failures().toString());
        assertTrue(p.failures().get(0).startsWith("open: "), p.failures().toString());
        assertTrue(p.failures().get(1).startsWith("nip11: "), p.failures().toString());
    }
}
