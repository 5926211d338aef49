package org.fleetmesh.peering;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Heartbeats on an authenticated link (docs/spec/mesh-link.md, "Heartbeats"), wrapped around the link's other
 * session: every interval this side sends {@code ["MESH-PING", {"n": <n>}]}, and answers the peer's with
 * {@code ["MESH-PONG", {"n": <n>}]}; the round trip of its own latest ping is the link's RTT. A link on which no
 * MESH-PONG arrived for the timeout (counted from the link's start, then from the last pong) is ended {@code late}.
 * Every other message goes to the inner session. The edge calls {@link #tick(long)} on a timer; methods are
 * synchronized because that timer need not run on the link's thread.
 */
public final class Heartbeat implements LinkSession {
    public static final String PING = "MESH-PING";
    public static final String PONG = "MESH-PONG";
    /** A ping or pong is a tiny message; anything longer is not one. */
    static final int MAX_LENGTH = 256;

    private final MeshLink link;
    private final LinkSession inner;
    private final long intervalNanos;
    private final long timeoutNanos;
    private final java.util.function.LongSupplier nanoTime;
    private long nextN;
    private long lastPingN = -1;
    private long lastPingAt;
    private long lastPingSentAt = Long.MIN_VALUE;
    private long lastPongAt;
    private OptionalLong rttNanos = OptionalLong.empty();
    private boolean over;

    /**
     * @param nanoTime the clock of {@link #tick(long)}: {@link System#nanoTime()} outside tests
     */
    public Heartbeat(MeshLink link, LinkSession inner, java.time.Duration interval, java.time.Duration timeout,
            java.util.function.LongSupplier nanoTime) {
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        long now = nanoTime.getAsLong();
        this.link = Objects.requireNonNull(link, "link");
        this.inner = Objects.requireNonNull(inner, "inner");
        if (interval.isNegative() || interval.isZero() || timeout.compareTo(interval) < 0) {
            throw new IllegalArgumentException("the heartbeat interval must be positive and at most the timeout");
        }
        this.intervalNanos = interval.toNanos();
        this.timeoutNanos = timeout.toNanos();
        this.lastPongAt = now;
    }

    /**
     * The timer fired: ends a link past its latency bound, else sends a ping when one is due. Decides under this
     * object's lock and acts on the link after releasing it (the link's thread takes the two locks the other way).
     */
    public void tick(long now) {
        Refusal late = null;
        String ping = null;
        synchronized (this) {
            if (over) {
                return;
            }
            if (now - lastPongAt > timeoutNanos) {
                over = true;
                late = Refusal.of(Refusal.Kind.LATE, "no MESH-PONG for " + java.time.Duration.ofNanos(now - lastPongAt)
                        .toMillis() + " ms (bound " + java.time.Duration.ofNanos(timeoutNanos).toMillis() + " ms)");
            } else if (lastPingSentAt == Long.MIN_VALUE || now - lastPingSentAt >= intervalNanos) {
                long n = nextN++;
                lastPingN = n;
                lastPingAt = now;
                lastPingSentAt = now;
                ping = encode(PING, n);
            }
        }
        if (late != null) {
            link.end(late);
        } else if (ping != null) {
            link.send(ping);
        }
    }

    @Override
    public void receive(String text) {
        receive(text, nanoTime.getAsLong());
    }

    /** As {@link #receive(String)}, at {@code now}. */
    public void receive(String text, long now) {
        if (text.length() <= MAX_LENGTH && (text.startsWith("[\"" + PING + "\"") || text.startsWith("[\"" + PONG + "\""))) {
            Optional<String> type = MeshMessage.typeOf(text);
            if (type.isPresent() && (type.get().equals(PING) || type.get().equals(PONG))) {
                heartbeat(type.get(), text, now);
                return;
            }
        }
        inner.receive(text);
    }

    private void heartbeat(String type, String text, long now) {
        OptionalLong n = counter(text);
        if (n.isEmpty()) {
            link.send(MeshErr.of(Refusal.of(Refusal.Kind.MALFORMED, type + " is [\"" + type
                    + "\", {\"n\": <integer 0..2^53-1>}]")).encode());
            return;
        }
        if (type.equals(PING)) {
            link.send(encode(PONG, n.getAsLong()));
            return;
        }
        synchronized (this) {
            if (n.getAsLong() == lastPingN) {
                rttNanos = OptionalLong.of(now - lastPingAt);
                lastPingN = -1;
                lastPongAt = now;
            } else if (n.getAsLong() < nextN) {
                lastPongAt = now; // an older ping's answer: the peer is there, but it says nothing of the latest RTT
            }
            // a pong for a ping never sent is ignored
        }
    }

    /** The round trip of the latest answered ping, in milliseconds (fractional). */
    public synchronized Optional<Double> rttMillis() {
        return rttNanos.isPresent() ? Optional.of(rttNanos.getAsLong() / 1e6) : Optional.empty();
    }

    @Override
    public void closed() {
        synchronized (this) {
            over = true;
        }
        inner.closed();
    }

    public synchronized boolean isOver() {
        return over;
    }

    static String encode(String type, long n) {
        return "[\"" + type + "\",{\"n\":" + n + "}]";
    }

    /** {@code n} of {@code [type, {"n": <int>}]}, when the message has exactly that shape. */
    static OptionalLong counter(String text) {
        JsonNode root;
        try {
            root = MeshJson.MAPPER.readTree(text);
        } catch (java.io.IOException e) {
            return OptionalLong.empty();
        }
        if (root == null || !root.isArray() || root.size() != 2 || !root.get(1).isObject()) {
            return OptionalLong.empty();
        }
        JsonNode n = root.get(1).get("n");
        if (n == null || !n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < 0
                || n.longValue() > (1L << 53) - 1) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(n.longValue());
    }
}
