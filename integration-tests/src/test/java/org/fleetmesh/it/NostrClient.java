package org.fleetmesh.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import org.fleetmesh.nostr.Event;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A plain Nostr client over {@link java.net.http.WebSocket}. Every relay message lands in an
 * inbox in arrival order; {@link #take} removes the first one that matches, waiting for it, and
 * leaves the others for later calls, so answers that interleave do not get lost.
 */
public final class NostrClient implements AutoCloseable {
    public static final ObjectMapper JSON = new ObjectMapper();
    public static final Duration TIMEOUT = Duration.ofSeconds(15);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private final URI uri;
    private final WebSocket ws;
    private volatile String challenge;
    private final LinkedList<JsonNode> inbox = new LinkedList<>();
    private final List<String> unparsable = new ArrayList<>();
    /** Every text message as it arrived, the last {@link #RAW_KEPT} of them (guarded by {@link #inbox}). */
    private final LinkedList<String> raw = new LinkedList<>();
    private static final int RAW_KEPT = 10_000;
    private final Object sendLock = new Object();
    private volatile boolean closed;
    private volatile String closeReason;
    private volatile Throwable error;
    private final Object readGate = new Object();
    private boolean paused;
    private boolean owed;

    private NostrClient(URI uri) {
        this(uri, java.util.Map.of());
    }

    private NostrClient(URI uri, java.util.Map<String, String> headers) {
        this.uri = uri;
        try {
            WebSocket.Builder b = HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10));
            headers.forEach(b::header);
            this.ws = b.buildAsync(uri, new Listener())
                    .get(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not connect to " + uri + ": " + e, e);
        }
    }

    public static NostrClient connect(URI uri) {
        return new NostrClient(uri);
    }

    public static NostrClient connect(MeshnodeProcess node) {
        return new NostrClient(node.wsUri());
    }

    /** Connects with extra handshake headers (e.g. a reverse proxy's X-Forwarded-For). */
    public static NostrClient connect(MeshnodeProcess node, java.util.Map<String, String> headers) {
        return new NostrClient(node.wsUri(), headers);
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder parts = new StringBuilder();

        @Override
        public void onOpen(WebSocket webSocket) {
            webSocket.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            parts.append(data); // a long message arrives in several parts: keep them until the last
            if (last) {
                String text = parts.toString();
                parts.setLength(0);
                deliver(text);
            }
            synchronized (readGate) {
                if (paused) {
                    owed = true; // ask for the next message only when reading resumes
                } else {
                    webSocket.request(1);
                }
            }
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closeReason = statusCode + " " + reason;
            closed = true;
            wake();
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable e) {
            error = e;
            closed = true;
            wake();
        }
    }

    private void deliver(String text) {
        synchronized (inbox) {
            raw.add(text);
            if (raw.size() > RAW_KEPT) {
                raw.removeFirst();
            }
        }
        JsonNode node;
        try {
            node = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            synchronized (inbox) {
                unparsable.add(text);
                inbox.notifyAll();
            }
            return;
        }
        synchronized (inbox) {
            if (isVerb(node, "AUTH") && node.size() == 2 && node.get(1).isTextual()) {
                challenge = node.get(1).asText(); // NIP-42: connection state, not an answer to anything
            } else {
                inbox.add(node);
            }
            inbox.notifyAll();
        }
    }

    /** The text messages received so far (the last 10,000), exactly as they arrived, oldest first. */
    public List<String> rawMessages() {
        synchronized (inbox) {
            return new ArrayList<>(raw);
        }
    }

    /** The NIP-42 challenge the relay sent, waiting for it. */
    public String challenge() {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        synchronized (inbox) {
            while (challenge == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || closed) {
                    throw new AssertionError("the relay sent no [\"AUTH\", <challenge>] (connection " + state() + ")");
                }
                try {
                    inbox.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            return challenge;
        }
    }

    /** The kind-22242 event NIP-42 wants for this connection. */
    public Event authEvent(Keys k) {
        return k.sign(22242, System.currentTimeMillis() / 1000, "", new String[] { "relay", uri.toString() },
                new String[] { "challenge", challenge() });
    }

    /** Authenticates this connection as {@code k} and returns the relay's OK. */
    public Ok authenticate(Keys k) {
        Event e = authEvent(k);
        send("[\"AUTH\"," + e.json() + "]");
        return expectOk(e.id().hex());
    }

    private void wake() {
        synchronized (inbox) {
            inbox.notifyAll();
        }
    }

    /** Stops reading from the socket, like a client that is too slow: the relay's queue fills up. */
    public void pauseReading() {
        synchronized (readGate) {
            paused = true;
        }
    }

    public void resumeReading() {
        synchronized (readGate) {
            paused = false;
            if (owed) {
                owed = false;
                ws.request(1);
            }
        }
    }

    public String closeReason() {
        return closeReason;
    }

    /** Waits until the connection has been closed (by either side or by an error). */
    public boolean awaitClosed(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (inbox) {
            while (!closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    inbox.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    // ---- sending

    /** Sends one text message, waiting until it has been handed to the socket. */
    public NostrClient send(String text) {
        synchronized (sendLock) {
            try {
                ws.sendText(text, true).get(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException("sending failed (" + state() + "): " + e, e);
            }
        }
        return this;
    }

    /** Sends a message built from JSON values: strings, numbers, JsonNodes or Events. */
    public NostrClient sendMessage(Object... parts) {
        return send(message(parts));
    }

    public static String message(Object... parts) {
        ArrayNode a = JSON.createArrayNode();
        for (Object p : parts) {
            if (p instanceof Event e) {
                a.add(tree(e.json()));
            } else if (p instanceof JsonNode n) {
                a.add(n);
            } else if (p instanceof String s) {
                a.add(s);
            } else if (p instanceof Integer i) {
                a.add(i);
            } else if (p instanceof Long l) {
                a.add(l);
            } else {
                throw new IllegalArgumentException("unsupported message part " + p);
            }
        }
        return a.toString();
    }

    public NostrClient publish(Event e) {
        return send("[\"EVENT\"," + e.json() + "]");
    }

    /** Publishes and waits for the OK answer. */
    public Ok publishAndWait(Event e) {
        publish(e);
        return expectOk(e.id().hex());
    }

    public NostrClient req(String subId, JsonNode... filters) {
        Object[] parts = new Object[filters.length + 2];
        parts[0] = "REQ";
        parts[1] = subId;
        System.arraycopy(filters, 0, parts, 2, filters.length);
        return sendMessage(parts);
    }

    public NostrClient count(String subId, JsonNode... filters) {
        Object[] parts = new Object[filters.length + 2];
        parts[0] = "COUNT";
        parts[1] = subId;
        System.arraycopy(filters, 0, parts, 2, filters.length);
        return sendMessage(parts);
    }

    public NostrClient req(String subId, FilterSpec... filters) {
        return req(subId, nodes(filters));
    }

    public NostrClient count(String subId, FilterSpec... filters) {
        return count(subId, nodes(filters));
    }

    public List<JsonNode> query(String subId, FilterSpec... filters) {
        return query(subId, nodes(filters));
    }

    /** COUNT and wait for the number. */
    public long countNow(String subId, FilterSpec... filters) {
        count(subId, filters);
        return expectCount(subId);
    }

    private static JsonNode[] nodes(FilterSpec... filters) {
        JsonNode[] n = new JsonNode[filters.length];
        for (int i = 0; i < filters.length; i++) {
            n[i] = filters[i].node();
        }
        return n;
    }

    public NostrClient closeSub(String subId) {
        return sendMessage("CLOSE", subId);
    }

    // ---- receiving

    /** Removes and returns the first message matching {@code p}, waiting up to {@code timeout}. */
    public JsonNode take(Predicate<JsonNode> p, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (inbox) {
            while (true) {
                for (Iterator<JsonNode> it = inbox.iterator(); it.hasNext();) {
                    JsonNode n = it.next();
                    if (p.test(n)) {
                        it.remove();
                        return n;
                    }
                }
                if (!unparsable.isEmpty()) {
                    throw new AssertionError("the relay sent a message that is not JSON: " + unparsable);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what
                            + "; connection " + state() + "; unclaimed messages: " + inbox);
                }
                if (closed) {
                    throw new AssertionError("connection " + state() + " while waiting for " + what
                            + "; unclaimed messages: " + inbox);
                }
                try {
                    inbox.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    public JsonNode take(Predicate<JsonNode> p, String what) {
        return take(p, TIMEOUT, what);
    }

    /** Waits {@code quiet} and fails if a message matching {@code p} arrives (or had arrived). */
    public void expectNone(Predicate<JsonNode> p, Duration quiet, String what) {
        long deadline = System.nanoTime() + quiet.toNanos();
        synchronized (inbox) {
            while (true) {
                for (JsonNode n : inbox) {
                    if (p.test(n)) {
                        throw new AssertionError("expected no " + what + " but got " + n);
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    inbox.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    /** The OK answer for an event id. */
    public Ok expectOk(String eventId) {
        return expectOk(eventId, TIMEOUT);
    }

    public Ok expectOk(String eventId, Duration timeout) {
        JsonNode n = take(m -> isVerb(m, "OK") && m.size() >= 2 && eventId.equals(m.get(1).asText()), timeout,
                "OK for " + eventId);
        if (n.size() != 4 || !n.get(2).isBoolean() || !n.get(3).isTextual()) {
            throw new AssertionError("malformed OK (NIP-01 wants [\"OK\", id, bool, string]): " + n);
        }
        return new Ok(eventId, n.get(2).booleanValue(), n.get(3).asText());
    }

    /**
     * Collects the stored events of a subscription up to its EOSE, in the order they were sent.
     * Fails if the relay answers CLOSED instead.
     */
    public List<JsonNode> collectUntilEose(String subId) {
        return collectUntilEose(subId, TIMEOUT);
    }

    public List<JsonNode> collectUntilEose(String subId, Duration timeout) {
        List<JsonNode> events = new ArrayList<>();
        while (true) {
            JsonNode m = take(n -> isFor(n, subId, "EVENT", "EOSE", "CLOSED"), timeout, "EVENT/EOSE for " + subId);
            String verb = m.get(0).asText();
            if (verb.equals("EOSE")) {
                if (m.size() != 2) {
                    throw new AssertionError("malformed EOSE: " + m);
                }
                return events;
            }
            if (verb.equals("CLOSED")) {
                throw new AssertionError("subscription " + subId + " was CLOSED instead of answered: " + m);
            }
            if (m.size() != 3 || !m.get(2).isObject()) {
                throw new AssertionError("malformed EVENT: " + m);
            }
            events.add(m.get(2));
        }
    }

    /** REQ and wait for EOSE; returns the stored events. */
    public List<JsonNode> query(String subId, JsonNode... filters) {
        req(subId, filters);
        return collectUntilEose(subId);
    }

    /** The next live event for a subscription. */
    public JsonNode expectEvent(String subId) {
        return expectEvent(subId, TIMEOUT);
    }

    public JsonNode expectEvent(String subId, Duration timeout) {
        JsonNode m = take(n -> isFor(n, subId, "EVENT", "CLOSED"), timeout, "EVENT for " + subId);
        if (m.get(0).asText().equals("CLOSED")) {
            throw new AssertionError("subscription " + subId + " was CLOSED: " + m);
        }
        return m.get(2);
    }

    public void expectNoEvent(String subId, Duration quiet) {
        expectNone(n -> isFor(n, subId, "EVENT"), quiet, "EVENT for " + subId);
    }

    /** The CLOSED message for a subscription; returns its reason. */
    public String expectClosed(String subId) {
        JsonNode m = take(n -> isFor(n, subId, "CLOSED", "EOSE", "EVENT"), TIMEOUT, "CLOSED for " + subId);
        if (!m.get(0).asText().equals("CLOSED")) {
            throw new AssertionError("expected CLOSED for " + subId + " but got " + m);
        }
        if (m.size() != 3 || !m.get(2).isTextual()) {
            throw new AssertionError("malformed CLOSED: " + m);
        }
        return m.get(2).asText();
    }

    /** The next NOTICE; returns its text. */
    public String expectNotice() {
        JsonNode m = take(n -> isVerb(n, "NOTICE"), TIMEOUT, "NOTICE");
        if (m.size() != 2 || !m.get(1).isTextual()) {
            throw new AssertionError("malformed NOTICE: " + m);
        }
        return m.get(1).asText();
    }

    /** The COUNT answer's number. */
    public long expectCount(String subId) {
        JsonNode m = take(n -> isFor(n, subId, "COUNT", "CLOSED"), TIMEOUT, "COUNT for " + subId);
        if (m.get(0).asText().equals("CLOSED")) {
            throw new AssertionError("COUNT " + subId + " was CLOSED: " + m);
        }
        if (m.size() != 3 || !m.get(2).isObject() || !m.get(2).path("count").isIntegralNumber()) {
            throw new AssertionError("malformed COUNT (NIP-45 wants [\"COUNT\", sub, {\"count\": n}]): " + m);
        }
        return m.get(2).get("count").asLong();
    }

    /** Any message at all that is still unclaimed (for "nothing else was said" checks). */
    public List<JsonNode> drain() {
        synchronized (inbox) {
            List<JsonNode> all = new ArrayList<>(inbox);
            inbox.clear();
            return all;
        }
    }

    public static boolean isVerb(JsonNode n, String verb) {
        return n.isArray() && n.size() >= 1 && verb.equals(n.get(0).asText());
    }

    public static boolean isFor(JsonNode n, String subId, String... verbs) {
        if (!n.isArray() || n.size() < 2 || !subId.equals(n.get(1).asText())) {
            return false;
        }
        for (String v : verbs) {
            if (v.equals(n.get(0).asText())) {
                return true;
            }
        }
        return false;
    }

    public boolean isOpen() {
        return !closed && !ws.isInputClosed() && !ws.isOutputClosed();
    }

    public String state() {
        return closed ? "closed (" + (closeReason != null ? closeReason : String.valueOf(error)) + ")" : "open";
    }

    @Override
    public void close() {
        try {
            if (!ws.isOutputClosed()) {
                ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(2, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            // the relay may be gone already
        }
        ws.abort();
    }

    // ---- JSON helpers

    public static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    public static ObjectNode filter() {
        return JSON.createObjectNode();
    }

    /** A filter from a JSON text. */
    public static ObjectNode filter(String json) {
        return (ObjectNode) tree(json);
    }

    public static List<String> ids(List<JsonNode> events) {
        return events.stream().map(e -> e.get("id").asText()).toList();
    }

    /** The answer to an EVENT. */
    public record Ok(String eventId, boolean accepted, String message) {
        public Ok assertAccepted() {
            if (!accepted) {
                throw new AssertionError("event " + eventId + " was refused: " + message);
            }
            return this;
        }

        public Ok assertRefused(String prefix) {
            if (accepted) {
                throw new AssertionError("event " + eventId + " was accepted (" + message + ") but should be refused with "
                        + prefix);
            }
            if (!message.startsWith(prefix)) {
                throw new AssertionError("event " + eventId + " refused with '" + message + "', expected prefix " + prefix);
            }
            return this;
        }
    }
}
