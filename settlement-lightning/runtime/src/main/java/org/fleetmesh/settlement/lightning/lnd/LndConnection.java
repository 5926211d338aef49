package org.fleetmesh.settlement.lightning.lnd;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementException.Reason;
import org.lightningj.lnd.wrapper.AsynchronousLndAPI;
import org.lightningj.lnd.wrapper.MacaroonClientInterceptor;
import org.lightningj.lnd.wrapper.invoices.AsynchronousInvoicesAPI;
import org.lightningj.lnd.wrapper.router.AsynchronousRouterAPI;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

/**
 * One gRPC channel to an LND node: TLS that trusts exactly the node's own {@code tls.cert} (pinned,
 * no CA store), the macaroon sent as hex in the {@code macaroon} metadata of every call, and the three
 * LightningJ asynchronous APIs (Lightning, Invoices, Router) sharing that channel. The asynchronous API
 * is used throughout: LightningJ's synchronous streaming calls collect the whole stream before returning.
 */
public final class LndConnection implements AutoCloseable {
    private final String target;
    private final ManagedChannel channel;
    private final AsynchronousLndAPI lightning;
    private final AsynchronousInvoicesAPI invoices;
    private final AsynchronousRouterAPI router;
    private final org.lightningj.lnd.invoices.proto.InvoicesGrpc.InvoicesStub invoicesStub;

    private LndConnection(String target, ManagedChannel channel) {
        this.target = target;
        this.channel = channel;
        this.lightning = new AsynchronousLndAPI(channel);
        this.invoices = new AsynchronousInvoicesAPI(channel);
        this.router = new AsynchronousRouterAPI(channel);
        this.invoicesStub = org.lightningj.lnd.invoices.proto.InvoicesGrpc.newStub(channel);
    }

    /**
     * Opens a channel (lazily connected: an unreachable node shows up as RAIL_UNAVAILABLE on the first call).
     *
     * @param tlsCert  LND's {@code tls.cert} (PEM); the only certificate trusted
     * @param macaroon a macaroon file, binary as LND writes it, or hex text
     */
    public static LndConnection open(String host, int port, Path tlsCert, Path macaroon, Duration keepAlive) {
        String macaroonHex = readMacaroonHex(macaroon);
        SslContext ssl;
        try {
            ssl = GrpcSslContexts.forClient().trustManager(tlsCert.toFile()).build();
        } catch (IOException | IllegalArgumentException e) {
            throw new SettlementException(Reason.RAIL_UNAVAILABLE, "cannot use LND TLS certificate " + tlsCert + ": " + e.getMessage(), e);
        }
        NettyChannelBuilder builder = NettyChannelBuilder.forAddress(host, port)
                .sslContext(ssl)
                .intercept(new MacaroonClientInterceptor(() -> macaroonHex))
                .maxInboundMessageSize(16 * 1024 * 1024);
        if (keepAlive != null && !keepAlive.isZero()) {
            builder.keepAliveTime(keepAlive.toMillis(), TimeUnit.MILLISECONDS).keepAliveWithoutCalls(true);
        }
        return new LndConnection(host + ":" + port, builder.build());
    }

    /** Accepts LND's binary macaroon files and hex text files; refuses anything else with the path in the message. */
    static String readMacaroonHex(Path macaroon) {
        byte[] raw;
        try {
            raw = Files.readAllBytes(macaroon);
        } catch (IOException e) {
            throw new SettlementException(Reason.RAIL_UNAVAILABLE, "cannot read LND macaroon " + macaroon + ": " + e.getMessage(), e);
        }
        if (raw.length == 0) {
            throw new SettlementException(Reason.RAIL_UNAVAILABLE, "LND macaroon " + macaroon + " is empty");
        }
        if (raw[0] == 2) {
            return HexFormat.of().formatHex(raw);
        }
        String text = new String(raw, java.nio.charset.StandardCharsets.US_ASCII).trim();
        if (text.matches("(?i)[0-9a-f]+") && text.length() % 2 == 0 && text.startsWith("02")) {
            return text.toLowerCase(java.util.Locale.ROOT);
        }
        throw new SettlementException(Reason.RAIL_UNAVAILABLE, "LND macaroon " + macaroon + " is neither a V2 macaroon nor its hex");
    }

    public String target() {
        return target;
    }

    public AsynchronousLndAPI lightning() {
        return lightning;
    }

    public AsynchronousInvoicesAPI invoices() {
        return invoices;
    }

    /**
     * The generated asynchronous invoicesrpc stub, for the unary calls whose responses LightningJ
     * 0.17.0-Beta cannot wrap: its WrapperFactory maps the invoicesrpc package to
     * {@code " org.lightningj.lnd.wrapper.invoices.message"} (a leading space), so every
     * AddHoldInvoice / SettleInvoice / CancelInvoice response through AsynchronousInvoicesAPI fails
     * with ClassNotFoundException (LndRailEndToEndTest found it).
     */
    public org.lightningj.lnd.invoices.proto.InvoicesGrpc.InvoicesStub invoicesStub() {
        return invoicesStub;
    }

    public AsynchronousRouterAPI router() {
        return router;
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
