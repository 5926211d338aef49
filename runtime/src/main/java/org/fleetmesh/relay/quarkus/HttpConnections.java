package org.fleetmesh.relay.quarkus;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.LongAdder;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.relay.ConnectionGate;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Every TCP connection that sends a request is counted at its first one, before any route runs, and held to
 * {@code fleetmesh.http.max-connections} in all and {@code max-connections-per-address} from one address; past either
 * it gets {@code 503} with the reason and is closed, having cost a file descriptor for one request. The relay's own
 * WebSocket bounds ({@code ConnectionGate} in the relay) sit inside these. A socket that never sends a request is
 * not seen here: the idle timeout ({@code quarkus.http.idle-timeout}) ends it.
 */
@ApplicationScoped
public class HttpConnections {
    private static final Logger LOG = Logger.getLogger(HttpConnections.class);
    /** Marks a channel counted, with the key it was counted under ("" for the total only). */
    private static final AttributeKey<String> COUNTED = AttributeKey.valueOf("fleetmesh.http.counted");
    static final int DEFAULT_MAX = 11_000;

    @Inject
    HttpConfig config;

    @Inject
    RelayRuntime relay;

    @Inject
    MeterRegistry registry;

    private ConnectionGate gate;
    private final LongAdder refused = new LongAdder();

    void routes(@Observes Router router) {
        int max = config.maxConnections() > 0 ? config.maxConnections() : defaultMax(fileDescriptorLimit());
        int perAddress = config.maxConnectionsPerAddress();
        if (perAddress < 0) {
            throw new IllegalArgumentException("fleetmesh.http.max-connections-per-address must be at least 0 (none), was "
                    + perAddress);
        }
        gate = new ConnectionGate("the node", max, perAddress);
        LOG.debugf("http: at most %d connections, %d from one address", max, perAddress);
        router.route().order(-3000).handler(this::admit);
        Gauge.builder("fleetmesh.http.connections", gate, ConnectionGate::open)
                .description("TCP connections that sent a request, open (fleetmesh.http.max-connections)")
                .register(registry);
        FunctionCounter.builder("fleetmesh.http.connections.refused", refused, LongAdder::sum)
                .description("Connections answered 503 and closed at their first request: past "
                        + "fleetmesh.http.max-connections or their address's fleetmesh.http.max-connections-per-address")
                .register(registry);
    }

    /** The default total: 11,000, or three quarters of a smaller descriptor limit (at least 64). */
    static int defaultMax(long fileDescriptors) {
        if (fileDescriptors <= 0) {
            return DEFAULT_MAX;
        }
        return (int) Math.max(64, Math.min(DEFAULT_MAX, fileDescriptors * 3 / 4));
    }

    private static long fileDescriptorLimit() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            return u.getMaxFileDescriptorCount();
        }
        return -1;
    }

    void admit(RoutingContext ctx) {
        HttpConnection conn = ctx.request().connection();
        if (!(conn instanceof ConnectionBase base)) {
            ctx.next();
            return;
        }
        Channel channel = base.channel();
        if (channel.attr(COUNTED).get() != null) {
            ctx.next(); // counted at its first request
            return;
        }
        String key = relay.clientAddress().connectionKey(ctx.request().remoteAddress() == null ? null
                : ctx.request().remoteAddress().toString());
        String refusal = key == null ? gate.admitUnkeyed() : gate.admit(key);
        if (refusal != null) {
            refused.increment();
            if (ctx.request().version() != HttpVersion.HTTP_2) {
                ctx.response().putHeader("Connection", "close");
            }
            ctx.response().setStatusCode(503).putHeader("Retry-After", "10")
                    .putHeader("Content-Type", "text/plain; charset=utf-8")
                    .end(refusal)
                    .onComplete(v -> conn.close());
            return;
        }
        channel.attr(COUNTED).set(key == null ? "" : key);
        channel.closeFuture().addListener(f -> {
            if (key == null) {
                gate.releaseUnkeyed();
            } else {
                gate.release(key);
            }
        });
        ctx.next();
    }
}
