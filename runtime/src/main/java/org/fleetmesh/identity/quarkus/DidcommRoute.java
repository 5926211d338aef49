package org.fleetmesh.identity.quarkus;

import java.security.SecureRandom;
import java.util.concurrent.Semaphore;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.didcomm.Inbox;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The DIDComm v2 endpoint the node's DID document advertises ({@code #didcomm}): {@code POST /didcomm} with an
 * encrypted message ({@link Inbox}; docs/spec/identity.md "The DIDComm endpoint"). A stranger's request is admitted
 * on the event loop before its body is read (the method, the media type, a place among {@link #BODIES} bodies
 * arriving, {@link #BODIES_PER_ADDRESS} from its address), its body is held to {@link #MAX_BODY} and 10 s, and the
 * message is opened on a worker thread if one of {@link #AT_ONCE} slots is free.
 */
@ApplicationScoped
public class DidcommRoute {
    static final String PATH = "/didcomm";
    static final long MAX_BODY = 64 * 1024;
    /** Messages opened at once (each costs key agreements and a decryption); past it 503. */
    static final int AT_ONCE = 4;
    /** Bodies arriving at once (at most {@link #MAX_BODY} each: 2 MiB in all), and from one address; past either 503. */
    static final int BODIES = 32;
    static final int BODIES_PER_ADDRESS = 4;

    @Inject
    NodeIdentity identity;

    @Inject
    NodeAddress address;

    /** Messages being opened at once (CPU: key agreement and decryption). */
    private final Semaphore slots = new Semaphore(AT_ONCE);
    /** Bodies being received at once (memory: at most {@code MAX_BODY} each), and from one address. */
    private final Semaphore bodies = new Semaphore(BODIES);
    private final java.util.concurrent.ConcurrentHashMap<String, Integer> bodiesFrom = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile Inbox inbox;

    void routes(@Observes Router router) {
        router.route(PATH).handler(this::admit);
        router.route(PATH).handler(BodyHandler.create(false).setBodyLimit(MAX_BODY));
        router.route(PATH).blockingHandler(this::receive, false);
    }

    void admit(RoutingContext ctx) {
        if (ctx.request().method() != HttpMethod.POST) {
            ctx.response().putHeader("Allow", "POST");
            error(ctx, 405, "method not allowed: POST an encrypted DIDComm message");
            return;
        }
        String type = ctx.request().getHeader("Content-Type");
        String media = type == null ? "" : type.split(";")[0].strip();
        if (!media.equalsIgnoreCase(Inbox.ENCRYPTED_MEDIA_TYPE)) {
            error(ctx, 415, "unsupported media type: this endpoint takes " + Inbox.ENCRYPTED_MEDIA_TYPE);
            return;
        }
        // the body is received before a slot to open it is taken: senders that send headers and no body hold a body
        // place (at most BODIES_PER_ADDRESS of them from one address) for 10 s, never the slots that open messages
        String from = ctx.request().remoteAddress() == null ? "" : ctx.request().remoteAddress().host();
        if (bodiesFrom.merge(from, 1, Integer::sum) > BODIES_PER_ADDRESS) {
            bodiesFrom.computeIfPresent(from, (k, n) -> n > 1 ? n - 1 : null);
            ctx.response().putHeader("Retry-After", "1");
            error(ctx, 503, "busy: " + BODIES_PER_ADDRESS + " DIDComm messages from your address are arriving; try again");
            return;
        }
        if (!bodies.tryAcquire()) {
            bodiesFrom.computeIfPresent(from, (k, n) -> n > 1 ? n - 1 : null);
            ctx.response().putHeader("Retry-After", "1");
            error(ctx, 503, "busy: " + BODIES + " DIDComm messages are arriving; try again");
            return;
        }
        java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean(true);
        long timer = ctx.vertx().setTimer(10_000, id -> {
            if (!ctx.request().isEnded() && !ctx.response().ended()) {
                ctx.response().putHeader("Connection", "close");
                error(ctx, 408, "the message did not arrive within 10 s");
                ctx.request().connection().close();
            }
        });
        ctx.addEndHandler(v -> {
            ctx.vertx().cancelTimer(timer);
            if (held.getAndSet(false)) {
                bodies.release();
                bodiesFrom.computeIfPresent(from, (k, n) -> n > 1 ? n - 1 : null);
            }
        });
        ctx.next();
    }

    void receive(RoutingContext ctx) {
        if (!slots.tryAcquire()) {
            ctx.response().putHeader("Retry-After", "1");
            error(ctx, 503, "busy: " + AT_ONCE + " DIDComm messages are being opened; try again");
            return;
        }
        Inbox.Answer a;
        try {
            String body = ctx.body().asString();
            a = inbox().receive(body == null ? "" : body, System.currentTimeMillis() / 1000);
        } finally {
            slots.release();
        }
        var response = ctx.response().setStatusCode(a.status());
        if (a.contentType() != null) {
            response.putHeader("Content-Type", a.contentType());
        }
        response.end(a.body());
    }

    private Inbox inbox() {
        Inbox i = inbox;
        if (i == null) {
            synchronized (this) {
                i = inbox;
                if (i == null) {
                    NodeDidDocument doc = NodeDidDocument.of(identity.secrets().publicKeys(), address.endpoints());
                    i = new Inbox(doc.identifiers(), doc.did(), identity.secrets().agreement().bytes(),
                            new SecureRandom());
                    inbox = i;
                }
            }
        }
        return i;
    }

    private static void error(RoutingContext ctx, int status, String why) {
        var o = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        o.put("error", why);
        ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(o.toString());
    }
}
