package org.fleetmesh.relay.quarkus;

import java.util.concurrent.atomic.LongAdder;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.nostr.Snippet;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * A request the router itself cannot take (an HTTP/1.x request without {@code Host}, a path that does not read) is a
 * client's mistake: it is answered {@code 400} with the reason, counted, logged at debug level only, and its connection
 * closed. Quarkus's own error handler would log each one as an ERROR with an error id (about 225 bytes a request: one
 * stranger on a keep-alive connection wrote 5.6 MB of log in 5 s) and, with JSON logs, answer 500. Failures with a
 * server status or none go on to that handler as before.
 */
@ApplicationScoped
public class BadRequests {
    private static final Logger LOG = Logger.getLogger(BadRequests.class);
    static final String NO_HOST = "bad request: an HTTP/1.1 request needs a Host header";

    @Inject
    MeterRegistry registry;

    private final LongAdder answered = new LongAdder();

    void routes(@Observes Router router) {
        router.route().order(-4000).failureHandler(this::failed);
        FunctionCounter.builder("fleetmesh.http.bad.requests", answered, LongAdder::sum)
                .description("HTTP requests answered 400 (or another 4xx) by the router itself and closed, unlogged")
                .register(registry);
    }

    private void failed(RoutingContext rc) {
        int status = rc.statusCode();
        boolean noHost = rc.request().version() != HttpVersion.HTTP_2 && rc.request().authority() == null
                && rc.request().getHeader(HttpHeaders.HOST) == null;
        if (rc.response().headWritten() || !(noHost || (status >= 400 && status < 500 && rc.failure() != null))) {
            rc.next();
            return;
        }
        int code = noHost ? 400 : status;
        String why = noHost ? NO_HOST : "bad request: " + Snippet.of(rc.failure().getMessage());
        answered.increment();
        LOG.debugf("%s %s from %s: %d %s", rc.request().method(), Snippet.of(rc.request().uri()),
                rc.request().remoteAddress(), code, why);
        rc.response().setStatusCode(code).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
                .putHeader(HttpHeaders.CONNECTION, "close").end(why + "\n")
                .onComplete(x -> rc.request().connection().close());
    }
}
