package org.fleetmesh.relay.quarkus;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;

import org.jboss.logging.Logger;

import io.quarkus.websockets.next.WebSocketConnection;
import io.vertx.core.http.WebSocketBase;

/**
 * The Vert.x WebSocket under a websockets-next connection, for the relay's outgoing events. Every
 * {@code WebSocketConnection.sendText} builds a Mutiny {@code Uni}, captures and restores the CDI and context-propagation
 * state around it and converts Vert.x's future into a {@code CompletionStage}: JFR put that at 15–20 % of the event
 * loop's time on REQ bursts, for messages that need none of it (the relay's events are plain text frames, and it keeps
 * its own send budget). websockets-next keeps the socket behind a package-private accessor, so it is reached by
 * reflection once; if a Quarkus upgrade removes it, this returns null and the relay sends through {@code sendText} as
 * before (logged once).
 */
final class VertxSocket {
    private static final Logger LOG = Logger.getLogger(VertxSocket.class);
    private static final MethodHandle ACCESSOR = accessor();

    private VertxSocket() {
    }

    /** The connection's Vert.x socket, or null when it cannot be reached. */
    static WebSocketBase of(WebSocketConnection connection) {
        if (ACCESSOR == null) {
            return null;
        }
        try {
            return (WebSocketBase) ACCESSOR.invoke(connection);
        } catch (Throwable t) {
            LOG.debugf("no Vert.x socket under %s: %s", connection.id(), t.toString());
            return null;
        }
    }

    private static MethodHandle accessor() {
        try {
            Class<?> base = Class.forName("io.quarkus.websockets.next.runtime.WebSocketConnectionBase", false,
                    WebSocketConnection.class.getClassLoader());
            Method m = base.getDeclaredMethod("webSocket");
            m.setAccessible(true);
            return MethodHandles.lookup().unreflect(m);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warnf("websockets-next has no reachable socket accessor (%s): the relay sends through sendText", e.toString());
            return null;
        }
    }
}
