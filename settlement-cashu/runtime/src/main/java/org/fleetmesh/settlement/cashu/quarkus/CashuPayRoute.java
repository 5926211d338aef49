package org.fleetmesh.settlement.cashu.quarkus;

import java.util.Optional;
import java.util.concurrent.Semaphore;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.rail.CashuRail;
import org.fleetmesh.settlement.cashu.request.PaymentRequestPayload;
import org.jboss.logging.Logger;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * {@code POST /cashu/v1/pay}: the NUT-18 HTTP POST transport of this node's Cashu requests. The body is a
 * {@code PaymentRequestPayload}; 200 {"accepted":true} when the proofs are held for the request, 400 {"detail"} with
 * the reason otherwise, 413 over 256 KiB, 503 when busy or when no Cashu rail runs.
 */
@ApplicationScoped
public class CashuPayRoute {
    private static final Logger LOG = Logger.getLogger(CashuPayRoute.class);
    static final long MAX_BODY = 256 * 1024;

    @Inject
    Instance<CashuRail> rails;

    @Inject
    CashuConfig config;

    private Semaphore inFlight;

    /** How long a payment's body may take to arrive once its slot is taken. */
    static final long BODY_TIMEOUT_MILLIS = 10_000;

    void routes(@Observes Router router) {
        inFlight = new Semaphore(Math.max(1, config.maxConcurrentPayments()));
        // admitted on the event loop before its body is read: a refused request costs no buffer and no worker thread
        router.route(CashuRailProducer.PAY_PATH).handler(this::admit);
        router.route(CashuRailProducer.PAY_PATH).handler(BodyHandler.create(false).setBodyLimit(MAX_BODY));
        router.route(CashuRailProducer.PAY_PATH).blockingHandler(this::handle, false);
    }

    /** A POST to a node with a Cashu rail, with a slot of {@code max-concurrent-payments} free, goes on; held to its end. */
    void admit(RoutingContext ctx) {
        if (ctx.request().method() != HttpMethod.POST) {
            ctx.response().putHeader("Allow", "POST");
            answer(ctx, 405, "use POST with a NUT-18 payment payload");
            return;
        }
        if (!config.enabled() || !rails.isResolvable()) {
            answer(ctx, 503, "this node takes no Cashu payments");
            return;
        }
        if (!inFlight.tryAcquire()) {
            ctx.response().putHeader("Retry-After", "1");
            answer(ctx, 503, "too many payments at once; try again");
            return;
        }
        java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean(true);
        // a slot is held until the body has come: one that does not come in time is answered 408 and closed, so
        // that slow senders cannot hold the slots for as long as they trickle bytes
        long timer = ctx.vertx().setTimer(BODY_TIMEOUT_MILLIS, id -> {
            if (!ctx.request().isEnded() && !ctx.response().ended()) {
                ctx.response().putHeader("Connection", "close");
                answer(ctx, 408, "the payment's body did not arrive within " + BODY_TIMEOUT_MILLIS / 1000 + " s");
                ctx.request().connection().close();
            }
        });
        ctx.addEndHandler(v -> {
            ctx.vertx().cancelTimer(timer);
            if (held.getAndSet(false)) {
                inFlight.release();
            }
        });
        ctx.next();
    }

    void handle(RoutingContext ctx) {
        try {
            PaymentRequestPayload payload;
            String body = ctx.body().asString();
            if (body == null || body.isBlank()) {
                answer(ctx, 400, "invalid: not a NUT-18 payment payload: no body");
                return;
            }
            try {
                payload = Nut.json().readValue(body, PaymentRequestPayload.class);
            } catch (Exception e) {
                answer(ctx, 400, "invalid: not a NUT-18 payment payload: " + why(e));
                return;
            }
            if (payload == null) {
                answer(ctx, 400, "invalid: not a NUT-18 payment payload: the body is null, not an object");
                return;
            }
            Optional<String> refused = rails.get().receive(payload);
            if (refused.isPresent()) {
                answer(ctx, 400, "invalid: " + refused.get());
            } else {
                ctx.response().setStatusCode(200).putHeader("Content-Type", "application/json")
                        .end("{\"accepted\":true}");
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "cashu: a payment could not be handled");
            answer(ctx, 500, "error: " + e.getMessage());
        }
    }

    /** What did not read, without the reader's class names: the member's path and the kind of fault. */
    static String why(Exception e) {
        if (e instanceof com.fasterxml.jackson.core.JsonParseException) {
            return "the body is not JSON";
        }
        if (e instanceof com.fasterxml.jackson.databind.JsonMappingException m && !m.getPath().isEmpty()) {
            StringBuilder path = new StringBuilder();
            for (com.fasterxml.jackson.databind.JsonMappingException.Reference r : m.getPath()) {
                if (r.getFieldName() != null) {
                    path.append(path.length() == 0 ? "" : ".").append(r.getFieldName());
                } else if (r.getIndex() >= 0) {
                    path.append('[').append(r.getIndex()).append(']');
                }
            }
            String kind = e instanceof com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException
                    ? "is not a member of a payload" : "has the wrong type or value";
            return "\"" + path + "\" " + kind;
        }
        if (e instanceof com.fasterxml.jackson.databind.JsonMappingException) {
            return "the body is not a JSON object with the payload's members";
        }
        return "the body does not read";
    }

    private static void answer(RoutingContext ctx, int status, String detail) {
        var n = Nut.json().createObjectNode();
        n.put("detail", detail);
        ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(n.toString());
    }
}
