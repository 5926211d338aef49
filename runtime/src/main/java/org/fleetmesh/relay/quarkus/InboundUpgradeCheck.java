package org.fleetmesh.relay.quarkus;

import jakarta.enterprise.context.ApplicationScoped;

import org.fleetmesh.relay.InboundQueue;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.quarkus.websockets.next.HttpUpgradeCheck;
import io.quarkus.websockets.next.UserData;
import io.smallrye.mutiny.Uni;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * Gives every WebSocket this node serves (the relay's and {@code /mesh}) an {@link InboundQueue} as it is upgraded:
 * {@link WebSocketInbound}'s text check counts each complete message in as it is handed to the server, the endpoint
 * counts it out once handled, and past {@link #MAX_MESSAGES} or {@link #MAX_BYTES} waiting the connection's reading
 * pauses (Netty's auto-read) until they are worked down. Admits every upgrade.
 */
@ApplicationScoped
public class InboundUpgradeCheck implements HttpUpgradeCheck {
    /** Complete messages waiting to be handled on one connection before its reading pauses. */
    static final int MAX_MESSAGES = 64;
    /** Their bytes (as the text check saw them: after inflation) before its reading pauses. */
    static final long MAX_BYTES = 1L << 20;
    static final AttributeKey<InboundQueue> QUEUE = AttributeKey.valueOf("fleetmesh.inbound.queue");
    /** Times a connection's reading paused for its messages waiting, node-wide (a metric). */
    static final java.util.concurrent.atomic.LongAdder PAUSES = new java.util.concurrent.atomic.LongAdder();
    public static final UserData.TypedKey<InboundQueue> KEY = new UserData.TypedKey<>("fleetmesh.inbound.queue");

    @Override
    public Uni<CheckResult> perform(HttpUpgradeContext context) {
        if (context.httpRequest().connection() instanceof ConnectionBase connection) {
            Channel channel = connection.channel();
            InboundQueue queue = new InboundQueue(MAX_MESSAGES, MAX_BYTES, () -> {
                PAUSES.increment();
                channel.config().setAutoRead(false);
            }, () -> channel.eventLoop().execute(() -> channel.config().setAutoRead(true)));
            channel.attr(QUEUE).set(queue);
            context.userData().put(KEY, queue);
        }
        return CheckResult.permitUpgrade();
    }

    /** Counts a message of {@code connection}'s out of its queue once its endpoint has handled it. */
    public static void handled(io.quarkus.websockets.next.WebSocketConnection connection) {
        InboundQueue q = connection.userData().get(KEY);
        if (q != null) {
            q.handled();
        }
    }
}
