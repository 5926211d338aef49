package org.fleetmesh.relay.quarkus;

import org.fleetmesh.relay.Connection;
import org.fleetmesh.relay.Relay;
import org.fleetmesh.relay.RelayMessages;
import org.fleetmesh.relay.SendBudget;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.nostr.NostrJson;
import org.jboss.logging.Logger;

import io.quarkus.websockets.next.CloseReason;
import io.quarkus.websockets.next.OnClose;
import io.quarkus.websockets.next.OnError;
import io.quarkus.websockets.next.OnOpen;
import io.quarkus.websockets.next.OnTextMessage;
import io.quarkus.websockets.next.UserData;
import io.quarkus.websockets.next.WebSocket;
import io.quarkus.websockets.next.WebSocketConnection;
import io.smallrye.common.annotation.NonBlocking;
import io.vertx.core.http.WebSocketBase;
import io.vertx.core.http.WebSocketFrameType;
import io.vertx.core.http.impl.ws.WebSocketFrameImpl;

/** Nostr clients connect here: {@code ws://host:port/}. */
@WebSocket(path = "/")
public class RelayEndpoint {
    private static final Logger LOG = Logger.getLogger(RelayEndpoint.class);
    private static final UserData.TypedKey<Client> CLIENT = new UserData.TypedKey<>("fleetmesh.client");

    @Inject
    RelayRuntime runtime;

    /** The largest frame this server writes (Vert.x splits longer messages); an event message past it goes as text. */
    @ConfigProperty(name = "quarkus.websockets-next.server.max-frame-size", defaultValue = "65536")
    int maxFrameSize;

    @OnOpen
    @NonBlocking
    void open(WebSocketConnection connection) {
        Relay relay = runtime.relay();
        var request = connection.handshakeRequest();
        var addresses = runtime.clientAddress();
        Client c = new Client(connection, VertxSocket.of(connection), runtime.sendBudget().open(),
                addresses.of(request.remoteAddress(), request.headers(addresses.header())), maxFrameSize);
        connection.userData().put(CLIENT, c);
        relay.opened(c);
    }

    @OnTextMessage
    @NonBlocking
    void message(WebSocketConnection connection, String text) {
        try {
            Client c = connection.userData().get(CLIENT);
            if (c != null) {
                runtime.relay().handle(c, text);
            }
        } finally {
            InboundUpgradeCheck.handled(connection);
        }
    }

    @OnClose
    void close(WebSocketConnection connection) {
        Client c = connection.userData().get(CLIENT);
        if (c != null) {
            runtime.relay().closed(c);
        }
    }

    @OnError
    void error(WebSocketConnection connection, Throwable t) {
        LOG.debugf("connection %s failed: %s", connection.id(), t.toString());
    }

    /**
     * websockets-next has no outbound backpressure, so each client draws on the node's {@link SendBudget}: bytes
     * queued for it, and its fair share of what is queued to all clients; a client that overflows it is told why and
     * disconnected.
     */
    static final class Client implements Connection {
        private final WebSocketConnection ws;
        /** The Vert.x socket under {@link #ws}, written directly (see {@link VertxSocket}), or null: through {@link #ws}. */
        private final WebSocketBase socket;
        private final SendBudget.Account budget;
        private final AtomicBoolean dropped = new AtomicBoolean();
        private final String address;
        private final int maxFrameSize;
        /** The last subscription's {@code ["EVENT",<id>,} as UTF-8: a REQ's stored events share it. */
        private volatile EventPrefix prefix;

        Client(WebSocketConnection ws, WebSocketBase socket, SendBudget.Account budget, String address,
                int maxFrameSize) {
            this.ws = ws;
            this.socket = socket;
            this.budget = budget;
            this.address = address;
            this.maxFrameSize = maxFrameSize;
        }

        private record EventPrefix(String subscriptionId, byte[] bytes) {
        }

        @Override
        public String address() {
            return address;
        }

        @Override
        public String id() {
            return ws.id();
        }

        @Override
        public String host() {
            return ws.handshakeRequest().host();
        }

        @Override
        public boolean send(String text) {
            // a message's UTF-8 length is at most 3 bytes per char; Latin-1 text (nearly every message) is 1:1
            long cost = SendBudget.charge(text.length());
            if (!reserve(cost)) {
                return false;
            }
            if (socket != null) {
                socket.writeTextMessage(text).onComplete(r -> budget.release(cost));
            } else {
                ws.sendText(text).subscribe().with(v -> budget.release(cost), t -> budget.release(cost));
            }
            return true;
        }

        /**
         * The event message written into one text frame from the stored JSON's bytes: no decode to a String, no
         * message String, no re-encode (what {@link #send} costs per event). The frame is the same message byte for
         * byte; one longer than a frame may be goes through {@link #send}, which Vert.x splits.
         */
        @Override
        public boolean sendEvent(String subscriptionId, byte[] eventJson) {
            byte[] head = prefix(subscriptionId).bytes();
            int length = head.length + eventJson.length + 1;
            if (socket == null || length > maxFrameSize) {
                return Connection.super.sendEvent(subscriptionId, eventJson);
            }
            byte[] frame = new byte[length];
            System.arraycopy(eventJson, 0, frame, head.length, eventJson.length);
            return sendFramed(head, frame);
        }

        private EventPrefix prefix(String subscriptionId) {
            EventPrefix p = prefix;
            if (p == null || !p.subscriptionId().equals(subscriptionId)) {
                p = new EventPrefix(subscriptionId, ("[\"EVENT\"," + NostrJson.quote(subscriptionId) + ",")
                        .getBytes(StandardCharsets.UTF_8));
                prefix = p;
            }
            return p;
        }

        @Override
        public int eventHeadroom(String subscriptionId) {
            return socket == null ? 0 : prefix(subscriptionId).bytes().length;
        }

        /**
         * The event message framed in place: the store built the JSON with {@link #eventHeadroom} bytes free before
         * it and one after, so the prefix and the closing bracket are written around it and the array is the frame
         * (one array and one copy per event fewer than {@link #sendEvent(String, byte[])}).
         */
        @Override
        public boolean sendEvent(String subscriptionId, byte[] buf, int offset, int length) {
            byte[] head = prefix(subscriptionId).bytes();
            if (socket == null || offset != head.length || buf.length != offset + length + 1
                    || buf.length > maxFrameSize) {
                return Connection.super.sendEvent(subscriptionId, buf, offset, length);
            }
            return sendFramed(head, buf);
        }

        /** Writes the message's prefix and closing bracket around the JSON that {@code frame} holds, and sends it. */
        private boolean sendFramed(byte[] head, byte[] frame) {
            long cost = SendBudget.charge(frame.length);
            if (!reserve(cost)) {
                return false;
            }
            System.arraycopy(head, 0, frame, 0, head.length);
            frame[frame.length - 1] = ']';
            socket.writeFrame(new WebSocketFrameImpl(WebSocketFrameType.TEXT, frame, true))
                    .onComplete(r -> budget.release(cost));
            return true;
        }

        @Override
        public void ping() {
            if (!dropped.get()) {
                ws.sendPing(io.vertx.core.buffer.Buffer.buffer()).subscribe().with(v -> {
                }, t -> LOG.debugf("pinging %s: %s", ws.id(), t.toString()));
            }
        }

        @Override
        public void close(int code, String reason) {
            // a close frame's reason is at most 123 bytes (RFC 6455 5.5: a control frame's payload is 125 at most)
            byte[] utf8 = reason.getBytes(StandardCharsets.UTF_8);
            String r = utf8.length <= 123 ? reason : new String(utf8, 0, 123, StandardCharsets.UTF_8).replace("\uFFFD", "");
            ws.close(new CloseReason(code, r)).subscribe().with(v -> {
            }, t -> LOG.debugf("closing %s: %s", ws.id(), t.toString()));
        }

        /**
         * Takes {@code cost} from the send budget; false when this client's share is spent (it is then told why and
         * closed).
         */
        private boolean reserve(long cost) {
            if (dropped.get()) {
                return false;
            }
            if (!budget.reserve(cost)) {
                if (dropped.compareAndSet(false, true)) {
                    LOG.infof("dropping slow client %s: %d bytes unsent (%d queued to all clients)", ws.id(),
                            budget.pending(), budget.queuedByAll());
                    ws.sendText(RelayMessages.notice("error: you are reading too slowly; closing the connection"))
                            .onTermination().call(() -> ws.close(new CloseReason(1008, "send queue overflow")))
                            .subscribe().with(v -> {
                            }, t -> LOG.debugf("closing %s: %s", ws.id(), t.toString()));
                }
                return false;
            }
            return true;
        }
    }
}
