package org.fleetmesh.relay.quarkus;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.relay.deflate.DeflatePolicy;
import org.jboss.logging.Logger;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.compression.DecompressionException;
import io.netty.handler.codec.compression.ZlibCodecFactory;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionData;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionDecoder;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionEncoder;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionFilter;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionFilterProvider;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionUtil;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;
import io.netty.handler.codec.http.websocketx.extensions.compression.PerMessageDeflateServerExtensionHandshaker;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * permessage-deflate (RFC 7692) decided per message, with a bound on inflation, for every WebSocket this node serves.
 *
 * <p>Vert.x negotiates the extension itself and compresses every message of a connection that did, with no limit on
 * what an incoming frame may inflate to (it builds Netty's handshaker without a filter or a {@code maxAllocation}).
 * When the node negotiates compression at all ({@code quarkus.websockets-next.server.per-message-compression-supported}),
 * this route hooks each upgrade's Netty pipeline before the {@code 101} goes out; as soon as Vert.x's extension handler
 * has put its encoder and decoder in place, they are replaced by ones made from the same offer by an identically
 * configured handshaker (same level and windows, so the same agreed parameters, checked against the {@code 101}), whose
 * encoder skips the messages {@link DeflatePolicy} says do not pay and whose decoder refuses to inflate a frame past
 * {@link DeflatePolicy#maxInflatedBytes()}. If the agreed parameters ever differed, Vert.x's handlers stay (logged).
 */
@ApplicationScoped
public class WebSocketDeflate {
    private static final Logger LOG = Logger.getLogger(WebSocketDeflate.class);
    /** Vert.x's default compression level ({@code HttpServerOptions.DEFAULT_WEBSOCKET_COMPRESSION_LEVEL}). */
    private static final int VERTX_DEFAULT_LEVEL = 6;

    @ConfigProperty(name = "quarkus.websockets-next.server.per-message-compression-supported", defaultValue = "true")
    boolean negotiated;

    @ConfigProperty(name = "quarkus.websockets-next.server.compression-level")
    Optional<Integer> level;

    /** Messages shorter than this many bytes go uncompressed (0: compress every message, as plain Vert.x does). */
    @ConfigProperty(name = "fleetmesh.relay.deflate.min-bytes", defaultValue = "1024")
    int minBytes;

    /** The most bytes one incoming compressed frame may inflate to; past it the connection is closed. */
    @ConfigProperty(name = "fleetmesh.relay.deflate.max-inflated-bytes", defaultValue = "2097152")
    int maxInflatedBytes;

    void routes(@Observes Router router) {
        if (!negotiated) {
            return;
        }
        DeflatePolicy policy = new DeflatePolicy(minBytes, maxInflatedBytes);
        int compression = level.orElse(VERTX_DEFAULT_LEVEL);
        router.route().order(-2000).handler(rc -> {
            hook(rc, policy, compression);
            rc.next();
        });
    }

    private static void hook(RoutingContext rc, DeflatePolicy policy, int compression) {
        String upgrade = rc.request().getHeader(HttpHeaders.UPGRADE);
        String offer = rc.request().getHeader(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS);
        if (upgrade == null || !upgrade.equalsIgnoreCase("websocket") || offer == null
                || !offer.toLowerCase(java.util.Locale.ROOT).contains("permessage-deflate")) {
            return;
        }
        if (!(rc.request().connection() instanceof ConnectionBase connection)) {
            return;
        }
        ChannelPipeline pipeline = connection.channel().pipeline();
        // Vert.x adds its extension handler to every HTTP/1 connection, before "handler", when compression is on
        String extension = null;
        for (Map.Entry<String, ChannelHandler> e : pipeline) {
            if (e.getValue() instanceof io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtensionHandler) {
                extension = e.getKey();
            }
        }
        if (extension == null || pipeline.get(Swap.NAME) != null) {
            return;
        }
        pipeline.addBefore(extension, Swap.NAME, new Swap(offer, policy, compression));
    }

    /** Sees the {@code 101} on its way out (after the extension handler), then replaces the codecs once they exist. */
    static final class Swap extends ChannelOutboundHandlerAdapter {
        static final String NAME = "fleetmeshDeflate";
        private final String offer;
        private final DeflatePolicy policy;
        private final int compression;

        Swap(String offer, DeflatePolicy policy, int compression) {
            this.offer = offer;
            this.policy = policy;
            this.compression = compression;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (!(msg instanceof HttpResponse response)) {
                ctx.write(msg, promise);
                return;
            }
            ChannelPipeline pipeline = ctx.pipeline();
            String agreed = response.headers().get(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS);
            if (response.status().code() == 101 && agreed != null) {
                promise = promise.unvoid();
                // the extension handler (nearer the tail) added its listener first: its codecs are in place when ours runs
                promise.addListener(f -> {
                    if (f.isSuccess()) {
                        replace(pipeline, offer, agreed, policy, compression);
                    }
                });
            }
            ctx.write(msg, promise);
            pipeline.remove(this);
        }
    }

    /** Replaces the pipeline's deflate encoder and decoder by ones that follow {@code policy}; false if it left them. */
    static boolean replace(ChannelPipeline pipeline, String offer, String agreed, DeflatePolicy policy, int compression) {
        WebSocketExtensionFilter skip = frame -> policy.skip(
                frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame, frame.isFinalFragment(),
                frame.content().readableBytes());
        WebSocketExtensionFilterProvider filters = new WebSocketExtensionFilterProvider() {
            @Override
            public WebSocketExtensionFilter encoderFilter() {
                return skip;
            }

            @Override
            public WebSocketExtensionFilter decoderFilter() {
                return WebSocketExtensionFilter.NEVER_SKIP;
            }
        };
        // as io.vertx.core.http.impl.HttpServerConnectionHandler builds it (4.5), with the filter and the bound added
        PerMessageDeflateServerExtensionHandshaker handshaker = new PerMessageDeflateServerExtensionHandshaker(compression,
                ZlibCodecFactory.isSupportingWindowSizeAndMemLevel(), 15, false, false, filters, policy.maxInflatedBytes());
        WebSocketServerExtension ours = null;
        for (WebSocketExtensionData data : WebSocketExtensionUtil.extractExtensions(offer)) {
            ours = handshaker.handshakeExtension(data);
            if (ours != null) {
                break;
            }
        }
        List<WebSocketExtensionData> theirs = WebSocketExtensionUtil.extractExtensions(agreed);
        if (ours == null || theirs.size() != 1 || !same(ours.newReponseData(), theirs.get(0))) {
            LOG.warnf("permessage-deflate: agreed '%s' on offer '%s', which this node would not have: left as Vert.x set it",
                    agreed, offer);
            return false;
        }
        String encoder = null, decoder = null;
        for (Map.Entry<String, ChannelHandler> e : pipeline) {
            if (e.getValue() instanceof WebSocketExtensionEncoder) {
                encoder = e.getKey();
            } else if (e.getValue() instanceof WebSocketExtensionDecoder) {
                decoder = e.getKey();
            }
        }
        if (encoder == null || decoder == null) {
            LOG.warnf("permessage-deflate: agreed '%s' but no extension codecs in the pipeline %s", agreed, pipeline.names());
            return false;
        }
        pipeline.replace(encoder, encoder, ours.newExtensionEncoder());
        pipeline.replace(decoder, decoder, ours.newExtensionDecoder());
        pipeline.addAfter(decoder, TooBig.NAME, new TooBig(policy.maxInflatedBytes()));
        return true;
    }

    /**
     * Answers a frame that inflated past the bound with close 1009 (RFC 6455 §7.4.1, "message too big") instead of the
     * bare TCP close Vert.x gives a decoder's exception, and lets nothing that follows it through.
     */
    static final class TooBig extends ChannelInboundHandlerAdapter {
        static final String NAME = "fleetmeshInflateBound";
        private final int max;
        private boolean closing;

        TooBig(int max) {
            this.max = max;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (closing) {
                ReferenceCountUtil.release(msg);
                return;
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            for (Throwable t = cause; t != null; t = t.getCause()) {
                if (t instanceof DecompressionException) {
                    if (!closing) {
                        closing = true;
                        LOG.debugf("permessage-deflate: %s inflated a frame past %d bytes: closed 1009", ctx.channel().remoteAddress(), max);
                        ctx.writeAndFlush(new CloseWebSocketFrame(1009, "message too big: a frame inflates past " + max + " bytes"))
                                .addListener(ChannelFutureListener.CLOSE);
                    }
                    return;
                }
            }
            ctx.fireExceptionCaught(cause);
        }
    }

    private static boolean same(WebSocketExtensionData a, WebSocketExtensionData b) {
        return a.name().equalsIgnoreCase(b.name()) && a.parameters().equals(b.parameters());
    }
}
