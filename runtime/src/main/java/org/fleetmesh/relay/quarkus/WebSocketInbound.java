package org.fleetmesh.relay.quarkus;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.fleetmesh.relay.FrameMeter;
import org.fleetmesh.relay.ReceiveBudget;
import org.fleetmesh.relay.Utf8Stream;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameDecoder;
import io.netty.handler.ssl.SslHandler;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.Router;

/**
 * Holds every WebSocket this node serves (the relay's and {@code /mesh}) to the node's {@link ReceiveBudget}: a
 * handler at the front of the connection's pipeline (after TLS, where the node terminates it) follows the frames as
 * their bytes arrive, once the WebSocket decoder is in place (after the upgrade), and when the budget refuses the
 * connection it is sent close 1009 with the reason and closed, its half-sent message dropped with it. A message whose
 * frames announce more than {@code quarkus.websockets-next.server.max-message-size} in all is refused the same way as
 * its header arrives (close 1009 {@code "too large: a message is at most N bytes"}), where the WebSocket server would
 * drop the connection without a word (one frame) or read the fragments and drop the message unanswered (several).
 * A text message that is not well-formed UTF-8 is closed 1007 (RFC 6455 section 8.1), where the server would decode it
 * with U+FFFD in place of the bad bytes.
 */
@ApplicationScoped
public class WebSocketInbound {
    private static final Logger LOG = Logger.getLogger(WebSocketInbound.class);
    static final String NAME = "fleetmeshInbound";
    static final String REASON = "too large: the node holds too many unfinished messages and yours is over its share";
    static final String SLOW = "too slow: a message stayed unfinished past the node's message timeout";
    static final String TEXT_NAME = "fleetmeshUtf8";
    static final String NOT_UTF8 = "invalid: a text message must be UTF-8";

    @Inject
    RelayConfig config;

    /** The largest message the WebSocket server reads (frames of a message in all); one larger is closed 1009. */
    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "quarkus.websockets-next.server.max-message-size",
            defaultValue = "2097152")
    int maxMessageSize;

    @Inject
    MeterRegistry registry;

    private ReceiveBudget budget;
    private long timeoutNanos;
    private final java.util.concurrent.atomic.LongAdder refused = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder timedOut = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder tooLarge = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder notUtf8 = new java.util.concurrent.atomic.LongAdder();

    void routes(@Observes Router router) {
        budget = config.receiveBudget();
        timeoutNanos = config.messageTimeout().toNanos();
        router.route().order(-2001).handler(rc -> {
            String upgrade = rc.request().getHeader(HttpHeaderNames.UPGRADE);
            if (upgrade != null && upgrade.equalsIgnoreCase("websocket")
                    && rc.request().connection() instanceof ConnectionBase connection) {
                hook(connection.channel().pipeline());
            }
            rc.next();
        });
        Gauge.builder("fleetmesh.websocket.receive.held", budget, ReceiveBudget::held).baseUnit("bytes")
                .description("Bytes charged for unfinished incoming WebSocket messages: what their buffers have allocated"
                        + " (fleetmesh.relay.receive-total-bytes)")
                .register(registry);
        FunctionCounter.builder("fleetmesh.websocket.receive.refused", refused, java.util.concurrent.atomic.LongAdder::sum)
                .description("WebSocket connections closed 1009 for holding more than their share of a full receive"
                        + " budget").register(registry);
        FunctionCounter.builder("fleetmesh.websocket.receive.timed.out", timedOut,
                java.util.concurrent.atomic.LongAdder::sum)
                .description("WebSocket connections closed 1008 for a message unfinished past fleetmesh.relay.message-timeout")
                .register(registry);
        FunctionCounter.builder("fleetmesh.websocket.receive.too.large", tooLarge,
                java.util.concurrent.atomic.LongAdder::sum)
                .description("WebSocket connections closed 1009 for a message over"
                        + " quarkus.websockets-next.server.max-message-size, as its frame headers announced it")
                .register(registry);
        FunctionCounter.builder("fleetmesh.websocket.receive.paused", InboundUpgradeCheck.PAUSES,
                java.util.concurrent.atomic.LongAdder::sum)
                .description("Times a WebSocket connection's reading paused: more complete messages (or bytes) waiting to"
                        + " be handled than it may have waiting").register(registry);
        FunctionCounter.builder("fleetmesh.websocket.receive.not.utf8", notUtf8,
                java.util.concurrent.atomic.LongAdder::sum)
                .description("WebSocket connections closed 1007 for a text message that is not well-formed UTF-8")
                .register(registry);
    }

    private void hook(ChannelPipeline pipeline) {
        if (pipeline.get(NAME) != null) {
            return;
        }
        String ssl = null;
        for (Map.Entry<String, ChannelHandler> e : pipeline) {
            if (e.getValue() instanceof SslHandler) {
                ssl = e.getKey();
            }
        }
        Meter meter = new Meter(budget.open());
        if (ssl != null) {
            pipeline.addAfter(ssl, NAME, meter);
        } else {
            pipeline.addFirst(NAME, meter);
        }
    }

    /** Counts frame bytes once the connection speaks WebSocket; before that it passes everything on untouched. */
    final class Meter extends ChannelInboundHandlerAdapter {
        private final ReceiveBudget.Account account;
        private final FrameMeter frames;
        private boolean upgraded;
        private boolean refusing;
        /** A timeout check is scheduled for the unfinished message. */
        private boolean timed;

        Meter(ReceiveBudget.Account account) {
            this.account = account;
            this.frames = new FrameMeter(account, maxMessageSize);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (refusing) {
                io.netty.util.ReferenceCountUtil.release(msg);
                return;
            }
            if (msg instanceof ByteBuf buf && isUpgraded(ctx)) {
                int from = buf.readerIndex();
                if (!frames.feed(i -> buf.getByte(from + i), buf.readableBytes())) {
                    if (frames.tooLarge()) {
                        tooLarge.increment();
                        refuse(ctx, 1009, "too large: a message is at most " + maxMessageSize + " bytes");
                    } else {
                        refused.increment();
                        refuse(ctx, 1009, REASON);
                    }
                    buf.release();
                    return;
                }
                if (account.holding() > 0 && !timed && timeoutNanos > 0) {
                    watch(ctx, account.completedMessages());
                }
            }
            ctx.fireChannelRead(msg);
        }

        /** Closes the connection if message number {@code n} is still unfinished when the timeout has passed. */
        private void watch(ChannelHandlerContext ctx, long n) {
            timed = true;
            ctx.executor().schedule(() -> {
                timed = false;
                if (refusing || !ctx.channel().isActive() || account.holding() == 0) {
                    return;
                }
                if (account.completedMessages() == n) {
                    timedOut.increment();
                    refuse(ctx, 1008, SLOW);
                } else {
                    watch(ctx, account.completedMessages()); // a later message is unfinished now: its own time
                }
            }, timeoutNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
        }

        private boolean isUpgraded(ChannelHandlerContext ctx) {
            if (!upgraded) {
                upgraded = ctx.pipeline().get(WebSocketFrameDecoder.class) != null;
                if (upgraded && ctx.pipeline().get(TEXT_NAME) == null) {
                    // in front of the server's own handler, the last, so behind the permessage-deflate inflater
                    ctx.pipeline().addBefore(ctx.pipeline().lastContext().name(), TEXT_NAME, new TextCheck());
                }
            }
            return upgraded;
        }

        private void refuse(ChannelHandlerContext ctx, int code, String why) {
            refusing = true;
            LOG.debugf("websocket %s closed %d: %d bytes of an unfinished message, %d charged to %d connections",
                    ctx.channel().remoteAddress(), code, account.holding(), budget.held(), budget.holders());
            byte[] reason = why.getBytes(StandardCharsets.UTF_8);
            ByteBuf close = Unpooled.buffer(4 + reason.length);
            close.writeByte(0x88).writeByte(2 + reason.length).writeShort(code).writeBytes(reason); // unmasked
            ctx.writeAndFlush(close).addListener(f -> ctx.close());
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            account.closed();
            super.channelInactive(ctx);
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            account.closed();
        }
    }

    /**
     * Follows each text message's frames as the WebSocket decoder (and the inflater, when permessage-deflate is on)
     * hands them over, and closes the connection 1007 at the first byte that is not well-formed UTF-8 or at a message
     * that ends inside a sequence; the message is never passed on.
     */
    final class TextCheck extends ChannelInboundHandlerAdapter {
        private final Utf8Stream utf8 = new Utf8Stream();
        /** A text message is unfinished (its continuation frames are text). */
        private boolean inText;
        private boolean closing;
        /** Bytes of the text message passed on so far (counted into the connection's InboundQueue as it ends). */
        private long messageBytes;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (closing) {
                io.netty.util.ReferenceCountUtil.release(msg);
                return;
            }
            boolean text = msg instanceof TextWebSocketFrame || (inText && msg instanceof ContinuationWebSocketFrame);
            if (text) {
                WebSocketFrame f = (WebSocketFrame) msg;
                if ((f.rsv() & 0x4) != 0) { // still compressed: no inflater behind this handler, nothing to read
                    inText = !f.isFinalFragment();
                    count(ctx, f);
                    ctx.fireChannelRead(msg);
                    return;
                }
                if (msg instanceof TextWebSocketFrame) {
                    utf8.reset();
                }
                ByteBuf b = f.content();
                boolean ok = b.forEachByte(b.readerIndex(), b.readableBytes(), v -> utf8.feed(v)) < 0
                        && utf8.valid(f.isFinalFragment());
                if (!ok) {
                    f.release();
                    closing = true;
                    notUtf8.increment();
                    LOG.debugf("websocket %s closed 1007: a text message that is not UTF-8", ctx.channel().remoteAddress());
                    ctx.writeAndFlush(new CloseWebSocketFrame(1007, NOT_UTF8)).addListener(ChannelFutureListener.CLOSE);
                    return;
                }
                inText = !f.isFinalFragment();
                count(ctx, f);
            }
            ctx.fireChannelRead(msg);
        }

        /** Adds the frame to its message; a message that ends is counted into the connection's queue. */
        private void count(ChannelHandlerContext ctx, WebSocketFrame f) {
            messageBytes += f.content().readableBytes();
            if (f.isFinalFragment()) {
                org.fleetmesh.relay.InboundQueue q = ctx.channel().attr(InboundUpgradeCheck.QUEUE).get();
                if (q != null) {
                    q.arrived(messageBytes);
                }
                messageBytes = 0;
            }
        }
    }
}
