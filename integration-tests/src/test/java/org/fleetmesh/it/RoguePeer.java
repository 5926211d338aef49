package org.fleetmesh.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.negentropy.Id;
import org.fleetmesh.negentropy.SortedVector;
import org.fleetmesh.nostr.ClientMessage;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.shards.Claim;
import org.fleetmesh.shards.Shard;
import org.fleetmesh.shards.ShardFigures;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.ServerWebSocket;

/**
 * A peer that asserts shards it does not hold whole: a small, real NIP-01 relay on a free port (REQ answered from an
 * in-memory set, newest first, lowest id on ties, {@code limit} honoured, then EOSE; EVENT refused) with node keys of
 * its own, so that it can be declared as a meshnode's peer by its did:peer:4 long form and sign kind 30803 claims. It
 * withholds the events it is told to, from every query, and records every message it receives. Its {@code /mesh}
 * refuses the link: it is not a meshnode, and sampling reads its relay only.
 */
final class RoguePeer implements AutoCloseable {
    final NodeSecrets secrets;
    final List<String> received = new CopyOnWriteArrayList<>();
    private final Map<EventId, Event> events = new ConcurrentHashMap<>();
    private final Set<EventId> withheld = ConcurrentHashMap.newKeySet();
    private final Vertx vertx;
    private final HttpServer server;
    private final MessageParser parser = new MessageParser(MessageParser.Limits.DEFAULT);
    final int port;

    RoguePeer(Vertx vertx, String name) throws Exception {
        this.vertx = vertx;
        Path dir = Files.createTempDirectory(MeshnodeProcess.targetDir(), "rogue-" + name + "-");
        secrets = NodeSecrets.loadOrCreate(dir, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                NodeSecrets.Supplied.NONE);
        server = vertx.createHttpServer().webSocketHandler(this::accept);
        port = server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS)
                .actualPort();
    }

    /** Its DID, the long form (resolvable offline: it carries the keys). */
    String did() {
        return NodeDidDocument.of(secrets.publicKeys(), NodeEndpoints.of("ws://127.0.0.1:" + port + "/",
                "ws://127.0.0.1:" + port + "/mesh", "http://127.0.0.1:" + port + "/didcomm")).did();
    }

    /** {@code did@ws-url} for a node's FLEETMESH_PEERS. */
    String peerSetting() {
        return did() + "@ws://127.0.0.1:" + port + "/mesh";
    }

    void serve(Collection<Event> es) {
        es.forEach(e -> events.put(e.id(), e));
    }

    void withhold(Collection<EventId> ids) {
        withheld.addAll(ids);
    }

    /** Signs and serves a claim of {@code shard} with the figures of what it serves of it at {@code createdAt}. */
    Event claim(Shard shard, long createdAt) {
        SortedVector.Builder b = SortedVector.builder();
        for (Event e : events.values()) {
            if (!withheld.contains(e.id()) && e.kind() != Claim.KIND && shard.filter().matches(e)
                    && e.createdAt() <= createdAt) {
                b.insert(e.createdAt(), Id.of(e.id().toBytes()));
            }
        }
        return claim(shard, ShardFigures.of(b.seal()), createdAt);
    }

    /** Signs and serves a claim of {@code shard} with whatever figures it likes. */
    Event claim(Shard shard, ShardFigures figures, long createdAt) {
        Event c = Claim.sign(shard, figures, createdAt, secrets.nostr().bytes());
        events.put(c.id(), c);
        return c;
    }

    private void accept(ServerWebSocket ws) {
        if (ws.path().startsWith("/mesh")) {
            ws.close((short) 1008, "not a meshnode");
            return;
        }
        ws.textMessageHandler(text -> {
            received.add(text);
            ClientMessage m;
            try {
                m = parser.parse(text);
            } catch (Exception e) {
                ws.writeTextMessage("[\"NOTICE\"," + NostrJson.quote("invalid: " + e.getMessage()) + "]");
                return;
            }
            if (m instanceof ClientMessage.Req req) {
                for (Event e : answer(req.filters())) {
                    ws.writeTextMessage("[\"EVENT\"," + NostrJson.quote(req.subscriptionId()) + "," + e.json() + "]");
                }
                ws.writeTextMessage("[\"EOSE\"," + NostrJson.quote(req.subscriptionId()) + "]");
            } else if (m instanceof ClientMessage.EventMessage em) {
                ws.writeTextMessage("[\"OK\",\"" + em.event().id().hex() + "\",false,\"blocked: read-only\"]");
            }
        });
    }

    private List<Event> answer(List<Filter> filters) {
        Map<EventId, Event> out = new LinkedHashMap<>();
        for (Filter f : filters) {
            events.values().stream().filter(e -> !withheld.contains(e.id()) && f.matches(e))
                    .sorted(Comparator.comparingLong(Event::createdAt).reversed().thenComparing(e -> e.id().hex()))
                    .limit(f.limit() == null ? 500 : Math.min(f.limit(), 5000)).forEach(e -> out.put(e.id(), e));
        }
        return new ArrayList<>(out.values());
    }

    /** The REQ messages that asked for ids, in order. */
    List<String> idRequests() {
        return received.stream().filter(r -> r.startsWith("[\"REQ\"") && r.contains("\"ids\"")).toList();
    }

    @Override
    public void close() throws Exception {
        server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
