package org.fleetmesh.negentropy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.relay.client.RelayLink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.ServerWebSocket;

/** The sync client against a fake relay in-process: what a relay that misbehaves can and cannot make it do. */
class RelaySyncTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private Vertx vertx;
    private HttpServer server;
    /** What the fake relay does with each message it gets. */
    private volatile BiConsumer<ServerWebSocket, JsonNode> relay = (ws, m) -> {
    };
    private final List<JsonNode> received = new CopyOnWriteArrayList<>();
    private final List<String> progress = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        server = vertx.createHttpServer(new HttpServerOptions().setMaxWebSocketMessageSize(8 << 20)
                .setMaxWebSocketFrameSize(8 << 20)).webSocketHandler(ws -> ws.textMessageHandler(text -> {
                    try {
                        JsonNode m = JSON.readTree(text);
                        received.add(m);
                        relay.accept(ws, m);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
        server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private RelayLink link() throws Exception {
        return RelayLink.connect(URI.create("ws://127.0.0.1:" + server.actualPort() + "/"), 1);
    }

    private static List<Id> randomIds(int n) {
        List<Id> ids = new ArrayList<>();
        java.util.Random r = new java.util.Random(n);
        for (int i = 0; i < n; i++) {
            byte[] b = new byte[32];
            r.nextBytes(b);
            ids.add(Id.of(b));
        }
        return ids;
    }

    private List<String> verbs(String verb) {
        List<String> subs = new ArrayList<>();
        for (JsonNode m : received) {
            if (m.path(0).asText().equals(verb)) {
                subs.add(m.path(1).asText());
            }
        }
        return subs;
    }

    @Test
    void aRelayThatNeverAnswersRequestsButKeepsSendingNoticesIsLeftAfterThreeChunks() throws Exception {
        // the audit's "drip": a NOTICE every 200 ms (well inside the 1 s timeout), never an event or EOSE
        relay = (ws, m) -> {
            if (m.path(0).asText().equals("REQ")) {
                vertx.setPeriodic(200, t -> {
                    if (!ws.isClosed()) {
                        ws.writeTextMessage("[\"NOTICE\",\"still here\"]");
                    }
                });
            }
        };
        List<Event> stored = new ArrayList<>();
        long started = System.nanoTime();
        try (RelayLink link = link()) {
            RelaySync sync = new RelaySync(link, 1, progress::add);
            RelaySync.SyncFailure f = assertThrows(RelaySync.SyncFailure.class,
                    () -> sync.fetch(randomIds(5 * RelaySync.REQ_CHUNK), stored::addAll));
            assertTrue(f.getMessage().contains("3 requests in a row unanswered"), f.getMessage());
            assertFalse(f.exceeded() || f.unsupported());
            assertEquals(5 * RelaySync.REQ_CHUNK, sync.tally().failed());
            assertEquals(2L * RelaySync.REQ_CHUNK, sync.tally().reasons().get("not requested: the relay stopped answering"));
            Thread.sleep(300); // the last CLOSE on its way
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        assertTrue(seconds < 6, "three chunks of 1 s each, NOTICEs notwithstanding: took " + seconds + " s");
        assertTrue(stored.isEmpty());
        assertEquals(List.of("sync-get-0", "sync-get-1", "sync-get-2"), verbs("REQ"), "no fourth request");
        assertEquals(List.of("sync-get-0", "sync-get-1", "sync-get-2"), verbs("CLOSE"), "each timed-out request closed");
        assertTrue(progress.stream().anyMatch(p -> p.contains("relay notice: still here")));
    }

    @Test
    void aChunkThatMakesProgressIsNotCountedAsSilent() throws Exception {
        // every chunk but the first answered: one silent chunk does not stop the fetch
        relay = (ws, m) -> {
            if (m.path(0).asText().equals("REQ") && !m.path(1).asText().equals("sync-get-0")) {
                ws.writeTextMessage("[\"EOSE\",\"" + m.path(1).asText() + "\"]");
            }
        };
        try (RelayLink link = link()) {
            RelaySync sync = new RelaySync(link, 1, progress::add);
            sync.fetch(randomIds(4 * RelaySync.REQ_CHUNK), batch -> {
            });
            assertEquals(4, verbs("REQ").size());
            assertEquals(4L * RelaySync.REQ_CHUNK, sync.tally().failed());
        }
    }

    @Test
    void aRelayDrippingTheAskedEventsJustInsideEachTimeoutIsCutOffAtTheChunksCeiling() throws Exception {
        // the audit's other drip: one asked-for event every 700 ms against a 1 s timeout renews the wait each time,
        // so 12 events would take 8.4 s; the chunk gets CHUNK_TIMEOUTS (4) timeouts in all
        byte[] key = Schnorr.newSecretKey();
        Map<String, Event> byId = new java.util.LinkedHashMap<>();
        for (int i = 0; i < 12; i++) {
            Event e = Events.sign(key, 1000 + i, 1, List.of(), "drip " + i);
            byId.put(e.id().hex(), e);
        }
        relay = (ws, m) -> {
            if (m.path(0).asText().equals("REQ")) {
                String sub = m.path(1).asText();
                java.util.Iterator<Event> next = byId.values().iterator();
                vertx.setPeriodic(700, t -> {
                    if (!ws.isClosed() && next.hasNext()) {
                        ws.writeTextMessage("[\"EVENT\",\"" + sub + "\"," + next.next().json() + "]");
                    }
                });
            }
        };
        List<Id> need = byId.keySet().stream().map(Id::ofHex).toList();
        List<Event> stored = new ArrayList<>();
        try (RelayLink link = link()) {
            RelaySync sync = new RelaySync(link, 1, progress::add);
            sync.fetch(need, stored::addAll);
            assertTrue(stored.size() >= 3 && stored.size() < 12, "cut off before the last: " + stored.size());
            assertEquals(12 - stored.size(), sync.tally().failed());
            assertEquals(Long.valueOf(12 - stored.size()),
                    sync.tally().reasons().get("not received: events for REQ sync-get-0 not all in 4 s"),
                    sync.tally().reasons().toString());
            long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (verbs("CLOSE").isEmpty() && System.nanoTime() < waitUntil) {
                Thread.sleep(20); // the CLOSE on its way
            }
            assertEquals(List.of("sync-get-0"), verbs("CLOSE"), "the cut-off request closed");
        }
    }

    @Test
    void aRelayDrippingOksJustInsideEachTimeoutIsCutOffAtTheChunksCeiling() throws Exception {
        // 150 events to publish, at most MAX_IN_FLIGHT (100) awaiting their OK: the relay answers one OK every 700 ms
        byte[] key = Schnorr.newSecretKey();
        org.fleetmesh.relay.MemoryStore store = new org.fleetmesh.relay.MemoryStore();
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            events.add(Events.sign(key, 1000 + i, 1, List.of(), "up " + i));
        }
        store.save(events);
        java.util.concurrent.ConcurrentLinkedQueue<String> toAnswer = new java.util.concurrent.ConcurrentLinkedQueue<>();
        relay = (ws, m) -> {
            if (m.path(0).asText().equals("EVENT")) {
                if (toAnswer.isEmpty() && toAnswer.add(m.path(1).path("id").asText())) {
                    vertx.setPeriodic(700, t -> {
                        String id = toAnswer.poll();
                        if (id != null && !ws.isClosed()) {
                            ws.writeTextMessage("[\"OK\",\"" + id + "\",true,\"\"]");
                        }
                    });
                    return;
                }
                toAnswer.add(m.path(1).path("id").asText());
            }
        };
        List<Id> have = events.stream().map(e -> Id.of(e.id().unsafeBytes())).toList();
        long started = System.nanoTime();
        try (RelayLink link = link()) {
            RelaySync sync = new RelaySync(link, 1, progress::add);
            sync.push(store, have, 2000);
            // the chunk's 4 s took about 5 OKs; the 100 then awaiting theirs, and the 50 sent after, count as failed
            assertTrue(sync.tally().uploaded() < 12, "at most about 4 s of OKs at 700 ms each: " + sync.tally().uploaded());
            assertEquals(150 - sync.tally().uploaded(), sync.tally().failed());
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        assertTrue(seconds < 10, "one chunk's ceiling, not 150 OKs at 700 ms (105 s): " + seconds + " s");
    }

    @Test
    void fetchedEventsOutsideTheFilterOrTheAnnouncedRangeAreRefusedAndCounted() throws Exception {
        byte[] key = Schnorr.newSecretKey();
        Event good = Events.sign(key, 500, 1, List.of(List.of("t", "sync")), "good");
        Event wrongKind = Events.sign(key, 500, 7, List.of(List.of("t", "sync")), "kind 7");
        Event wrongTag = Events.sign(key, 500, 1, List.of(List.of("t", "other")), "other tag");
        Event tooOld = Events.sign(key, 50, 1, List.of(List.of("t", "sync")), "before since");
        Event notAnnounced = Events.sign(key, 900, 1, List.of(List.of("t", "sync")), "announced below 800, is 900");
        List<Event> all = List.of(good, wrongKind, wrongTag, tooOld, notAnnounced);
        Map<String, Event> byId = new java.util.HashMap<>();
        all.forEach(e -> byId.put(e.id().hex(), e));
        // the rogue lists every id in one id list for [0, 800)
        MessageWriter w = new MessageWriter().write(Negentropy.PROTOCOL_VERSION);
        w.writeVarint(800 + 1).writeVarint(0).writeVarint(Mode.ID_LIST.code()).writeVarint(all.size());
        all.forEach(e -> w.write(e.id().unsafeBytes()));
        String answer = HEX.formatHex(w.toBytes());
        relay = (ws, m) -> {
            switch (m.path(0).asText()) {
                case "NEG-OPEN" -> ws.writeTextMessage("[\"NEG-MSG\",\"" + m.path(1).asText() + "\",\"" + answer + "\"]");
                case "REQ" -> {
                    for (JsonNode id : m.path(2).path("ids")) {
                        ws.writeTextMessage("[\"EVENT\",\"" + m.path(1).asText() + "\"," + byId.get(id.asText()).json() + "]");
                    }
                    ws.writeTextMessage("[\"EOSE\",\"" + m.path(1).asText() + "\"]");
                }
                default -> {
                }
            }
        };
        String filterJson = "{\"kinds\":[1],\"#t\":[\"sync\"],\"since\":100}";
        Filter filter = new org.fleetmesh.nostr.MessageParser(new org.fleetmesh.nostr.MessageParser.Limits(16, 5000, 2500, 1000))
                .parseFilter(filterJson);
        List<Event> stored = new ArrayList<>();
        try (RelayLink link = link()) {
            RelaySync sync = new RelaySync(link, 5, progress::add);
            NegInitiator r = sync.reconcile(filterJson, SortedVector.builder().seal(), 60_000);
            assertEquals(5, r.needIds().size());
            sync.fetch(r.needIds(), RelaySync.admission(filter, r), stored::addAll);
            assertEquals(List.of(good), stored);
            Map<String, Long> reasons = sync.tally().reasons();
            assertEquals(1L, reasons.get("from relay: does not match the filter (kinds)"), reasons.toString());
            assertEquals(1L, reasons.get("from relay: does not match the filter (#t)"), reasons.toString());
            assertEquals(1L, reasons.get("from relay: does not match the filter (since)"), reasons.toString());
            assertEquals(1L, reasons.get("from relay: created_at outside the range the relay announced for the id"),
                    reasons.toString());
            assertEquals(4, sync.tally().failed());
        }
    }

    @Test
    void theFilterCheckCoversEveryFieldAFilterUses() throws Exception {
        byte[] key = Schnorr.newSecretKey();
        Event e = Events.sign(key, 1000, 1, List.of(List.of("p", "ab")), "x");
        PubKey me = new PubKey(Schnorr.publicKey(key));
        PubKey other = new PubKey(Schnorr.publicKey(Schnorr.newSecretKey()));
        assertNull(RelaySync.mismatch(Filter.ALL, e));
        assertNull(RelaySync.mismatch(new Filter(Set.of(e.id()), Set.of(me), Set.of(1), Map.of("p", Set.of("ab")), 1000L,
                1000L, 5), e));
        assertEquals("ids", RelaySync.mismatch(new Filter(Set.of(Events.sign(key, 1, 1, List.of(), "y").id()), null, null,
                Map.of(), null, null, null), e));
        assertEquals("authors", RelaySync.mismatch(new Filter(null, Set.of(other), null, Map.of(), null, null, null), e));
        assertEquals("kinds", RelaySync.mismatch(new Filter(null, null, Set.of(0, 3), Map.of(), null, null, null), e));
        assertEquals("since", RelaySync.mismatch(new Filter(null, null, null, Map.of(), 1001L, null, null), e));
        assertEquals("until", RelaySync.mismatch(new Filter(null, null, null, Map.of(), null, 999L, null), e));
        assertEquals("#p", RelaySync.mismatch(new Filter(null, null, null, Map.of("p", Set.of("cd")), null, null, null), e));
        assertEquals("#e", RelaySync.mismatch(new Filter(null, null, null, Map.of("e", Set.of("ab")), null, null, null), e));
    }

    @Test
    void aRelayListingIdsWithoutEndStopsTheReconciliationAsExceeded() throws Exception {
        // the audit's "endless": every answer 2,000 random ids plus a mismatching fingerprint
        java.util.Random random = new java.util.Random(1);
        relay = (ws, m) -> {
            String verb = m.path(0).asText();
            if (verb.equals("NEG-OPEN") || verb.equals("NEG-MSG")) {
                MessageWriter w = new MessageWriter().write(Negentropy.PROTOCOL_VERSION);
                w.writeVarint(1 + 1000).writeVarint(0).writeVarint(Mode.ID_LIST.code()).writeVarint(2000);
                for (int i = 0; i < 2000; i++) {
                    byte[] id = new byte[32];
                    random.nextBytes(id);
                    w.write(id);
                }
                byte[] fp = new byte[16];
                random.nextBytes(fp);
                w.writeVarint(0).writeVarint(0).writeVarint(Mode.FINGERPRINT.code()).write(fp);
                ws.writeTextMessage("[\"NEG-MSG\",\"" + m.path(1).asText() + "\",\"" + HEX.formatHex(w.toBytes()) + "\"]");
            }
        };
        try (RelayLink link = link()) {
            RelaySync sync = new RelaySync(link, 5, progress::add);
            RelaySync.SyncFailure f = assertThrows(RelaySync.SyncFailure.class, () -> sync.reconcile("{}",
                    SortedVector.builder().seal(), 60_000, new NegInitiator.Limits(20_000, 0, 0)));
            assertTrue(f.exceeded() && !f.unsupported(), f.getMessage());
            assertEquals(11, sync.rounds());
            Thread.sleep(200);
            assertEquals(1, verbs("NEG-CLOSE").size(), "the session is closed at the relay");
        }
    }
}
