package org.fleetmesh.storage.postgres;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import javax.sql.DataSource;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.spi.storage.EventStore.StoredItem;
import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * LISTEN/NOTIFY between the processes sharing one database (sibling relays, the CLI's
 * {@code import}, {@code sync} and {@code delete}). After each commit a process announces, on the
 * committing connection, what it removed and then what it stored:
 * <ul>
 * <li>{@code fleetmesh_removed}: {@code <origin> <created_at>:<id-hex> ...}, every event that stopped
 * being stored (replaced, NIP-09-deleted, operator-deleted, purged after NIP-40 expiry);
 * <li>{@code fleetmesh_events}: {@code <origin> <id-hex> ...}, the events stored;
 * <li>{@code fleetmesh_ephemeral}: {@code <origin> <json>}, an ephemeral event (never stored).
 * </ul>
 * Lists are cut into payloads below PostgreSQL's 8000-byte limit. A listener skips its own origin,
 * reads announced events back by id, hands them (and ephemeral events) to the foreign-event
 * listeners and the removals to the change feed, in notification order.
 */
final class SiblingFeed {
    private static final Logger LOG = Logger.getLogger(SiblingFeed.class);

    static final String EVENTS_CHANNEL = "fleetmesh_events";
    static final String EPHEMERAL_CHANNEL = "fleetmesh_ephemeral";
    static final String REMOVED_CHANNEL = "fleetmesh_removed";
    /** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
    static final int MAX_PAYLOAD = 7999;

    private final DataSource ds;
    private final PostgresStore.ConnectionFactory listenConnections;
    private final ChangeFeed changes;
    private final String origin = UUID.randomUUID().toString();
    private final List<Consumer<List<String>>> listeners = new CopyOnWriteArrayList<>();
    private Listener listener;
    private boolean closed;

    SiblingFeed(DataSource ds, PostgresStore.ConnectionFactory listenConnections, ChangeFeed changes) {
        this.ds = ds;
        this.listenConnections = listenConnections;
        this.changes = changes;
    }

    String origin() {
        return origin;
    }

    // ------------------------------------------------------------------------------ send

    /**
     * Tells siblings about a commit. Sent after the commit, outside the write transaction: NOTIFY at
     * commit takes a cluster-wide lock, which would otherwise be held across the WAL flush and
     * serialise every writer. Removals go first: a listener applies them before the additions.
     */
    void announce(Connection c, List<EventId> stored, List<StoredItem> removed) {
        List<String> channels = new ArrayList<>();
        List<String> payloads = new ArrayList<>();
        List<String> words = new ArrayList<>(removed.size());
        for (StoredItem r : removed) {
            words.add(r.createdAt() + ":" + r.id().hex());
        }
        pack(REMOVED_CHANNEL, words, channels, payloads);
        words = new ArrayList<>(stored.size());
        for (EventId id : stored) {
            words.add(id.hex());
        }
        pack(EVENTS_CHANNEL, words, channels, payloads);
        if (payloads.isEmpty()) {
            return;
        }
        try {
            notify(c, channels, payloads);
        } catch (SQLException e) {
            LOG.warnf(e, "committed %d events and %d removals but could not notify sibling nodes", stored.size(),
                    removed.size());
        }
    }

    /** Cuts {@code words} into payloads {@code <origin> <word> <word>...} below {@link #MAX_PAYLOAD}. */
    void pack(String channel, List<String> words, List<String> channels, List<String> payloads) {
        StringBuilder sb = null;
        for (String w : words) {
            if (sb == null || sb.length() + 1 + w.length() > MAX_PAYLOAD) {
                if (sb != null) {
                    channels.add(channel);
                    payloads.add(sb.toString());
                }
                sb = new StringBuilder(MAX_PAYLOAD).append(origin);
            }
            sb.append(' ').append(w);
        }
        if (sb != null) {
            channels.add(channel);
            payloads.add(sb.toString());
        }
    }

    private static void notify(Connection c, List<String> channels, List<String> payloads) throws SQLException {
        // unnest yields the rows in array order: the notifications are sent, and delivered, in that order
        try (PreparedStatement ps = c.prepareStatement(
                "select pg_notify(n.c, n.p) from unnest(?::text[], ?::text[]) as n(c, p)")) {
            ps.setArray(1, c.createArrayOf("text", channels.toArray(new String[0])));
            ps.setArray(2, c.createArrayOf("text", payloads.toArray(new String[0])));
            ps.executeQuery().close();
        }
    }

    void announceEphemeral(Event event) {
        String payload = origin + " " + event.json();
        if (TextKeys.utf8Length(payload) > MAX_PAYLOAD || payload.indexOf('\u0000') >= 0) {
            LOG.debugf("ephemeral event %s too large to announce to sibling nodes", event.id());
            return;
        }
        try (Connection c = ds.getConnection()) {
            notify(c, List.of(EPHEMERAL_CHANNEL), List.of(payload));
        } catch (SQLException e) {
            LOG.warnf(e, "could not announce ephemeral event %s to sibling nodes", event.id());
        }
    }

    // ------------------------------------------------------------------------------ receive

    synchronized void onForeignEvents(Consumer<List<String>> l) {
        listeners.add(l);
        listen();
    }

    /** Starts the LISTEN connection if it is not running (foreign events or removals are wanted). */
    synchronized void listen() {
        if (closed) {
            throw new IllegalStateException("store closed");
        }
        if (listener == null) {
            listener = new Listener();
            listener.start();
        }
    }

    void close() {
        Listener l;
        synchronized (this) {
            closed = true;
            l = listener;
            listener = null;
        }
        if (l != null) {
            l.stop();
        }
    }

    /** One dedicated connection polled by a daemon thread, reconnecting on failure. */
    private final class Listener implements Runnable {
        private final Thread thread = new Thread(this, "fleetmesh-pg-listen");
        private volatile boolean running = true;
        private volatile Connection conn;

        void start() {
            thread.setDaemon(true);
            thread.start();
        }

        void stop() {
            running = false;
            try {
                thread.join(3000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Connection c = conn;
            if (c != null && thread.isAlive()) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // the thread will notice
                }
            }
        }

        @Override
        public void run() {
            long backoff = 250;
            while (running) {
                try (Connection c = listenConnections.connect()) {
                    conn = c;
                    if (!c.getAutoCommit()) {
                        c.setAutoCommit(true);
                    }
                    PGConnection pg = c.unwrap(PGConnection.class);
                    try (Statement s = c.createStatement()) {
                        s.execute("LISTEN " + REMOVED_CHANNEL);
                        s.execute("LISTEN " + EVENTS_CHANNEL);
                        s.execute("LISTEN " + EPHEMERAL_CHANNEL);
                    }
                    backoff = 250;
                    while (running) {
                        PGNotification[] ns = pg.getNotifications(500);
                        if (ns != null && ns.length > 0) {
                            deliver(ns);
                        }
                    }
                } catch (SQLException | RuntimeException e) {
                    if (!running) {
                        break;
                    }
                    LOG.warnf("LISTEN connection failed (%s); reconnecting in %d ms", e.getMessage(), backoff);
                    try {
                        Thread.sleep(backoff);
                    } catch (InterruptedException ie) {
                        break;
                    }
                    backoff = Math.min(backoff * 2, 10_000);
                } finally {
                    conn = null;
                }
            }
        }
    }

    /** In notification order: runs of additions go to the foreign-event listeners, removals to the change feed. */
    void deliver(PGNotification[] ns) {
        List<Object> run = new ArrayList<>(); // an id to fetch, or an ephemeral event's JSON
        for (PGNotification n : ns) {
            String p = n.getParameter();
            int sp = p.indexOf(' ');
            if (sp < 0 || p.substring(0, sp).equals(origin)) {
                continue;
            }
            String rest = p.substring(sp + 1);
            switch (n.getName()) {
                case EPHEMERAL_CHANNEL -> run.add(rest);
                case EVENTS_CHANNEL -> {
                    for (String h : rest.split(" ")) {
                        if (Hex.isLowerHex(h, 64)) {
                            run.add(EventId.ofHex(h));
                        }
                    }
                }
                case REMOVED_CHANNEL -> {
                    List<StoredItem> removed = parseRemoved(rest);
                    if (!removed.isEmpty()) {
                        deliverAdditions(run);
                        run.clear();
                        changes.publish(List.of(), removed);
                    }
                }
                default -> LOG.debugf("notification on unexpected channel %s", n.getName());
            }
        }
        deliverAdditions(run);
    }

    static List<StoredItem> parseRemoved(String words) {
        List<StoredItem> out = new ArrayList<>();
        for (String w : words.split(" ")) {
            int colon = w.indexOf(':');
            if (colon <= 0 || !Hex.isLowerHex(w.substring(colon + 1), 64)) {
                continue;
            }
            try {
                out.add(new StoredItem(Long.parseLong(w.substring(0, colon)), EventId.ofHex(w.substring(colon + 1))));
            } catch (NumberFormatException e) {
                LOG.debugf("unreadable removal %s", w);
            }
        }
        return out;
    }

    private void deliverAdditions(List<Object> order) {
        if (order.isEmpty() || listeners.isEmpty()) {
            return;
        }
        List<byte[]> ids = new ArrayList<>();
        for (Object o : order) {
            if (o instanceof EventId id) {
                ids.add(id.unsafeBytes());
            }
        }
        Map<EventId, String> found = new HashMap<>();
        if (!ids.isEmpty()) {
            long now = System.currentTimeMillis() / 1000;
            try (Connection c = ds.getConnection();
                    PreparedStatement ps = c.prepareStatement("select " + SqlFilter.columns("e")
                            + " from event e where e.id = any(?) and (e.expires_at is null or e.expires_at > ?)")) {
                ps.setArray(1, c.createArrayOf("bytea", ids.toArray(new byte[0][])));
                ps.setLong(2, now);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.put(new EventId(rs.getBytes(1)), new String(EventReader.json(rs, 1), UTF_8));
                    }
                }
            } catch (SQLException e) {
                LOG.warnf(e, "could not fetch %d events announced by a sibling node", ids.size());
            }
        }
        List<String> jsons = new ArrayList<>(order.size());
        for (Object o : order) {
            if (o instanceof String s) {
                jsons.add(s);
            } else {
                String j = found.get((EventId) o);
                if (j != null) {
                    jsons.add(j);
                }
            }
        }
        if (jsons.isEmpty()) {
            return;
        }
        List<String> view = List.copyOf(jsons);
        for (Consumer<List<String>> l : listeners) {
            try {
                l.accept(view);
            } catch (RuntimeException e) {
                LOG.warn("foreign-event listener failed", e);
            }
        }
    }
}
