package org.fleetmesh.settlement.lightning.sim;

import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fleetmesh.settlement.lightning.bolt11.NodeId;
import org.fleetmesh.settlement.lightning.macaroon.Macaroon;
import org.lightningj.lnd.proto.LightningApi;

/**
 * A SIMULATED LND node, not a Lightning node: an in-process stand-in for one lnd v0.17 that serves the
 * subset of lnd's gRPC API listed in docs/spec/lnd-simulation.md over TLS on 127.0.0.1 (a free port),
 * with lnd-style macaroons. Its directory holds {@code tls.cert}, {@code tls.key} (PEM) and the binary
 * {@code admin.macaroon}, {@code invoice.macaroon}, {@code readonly.macaroon}, as lnd writes them.
 * Payments only reach other nodes of the same {@link SimulatedLightningNetwork}.
 */
public final class SimulatedLnd implements AutoCloseable {
    private static final SecureRandom RANDOM = new SecureRandom();
    static final String HOST = "127.0.0.1";

    final SimulatedLightningNetwork net;
    private final String alias;
    private final Path dir;
    final byte[] nodeKey;
    private final NodeId identity;
    final byte[] rootKey;
    private final SimulatedTlsCertificate tls;
    private Server server;
    private int port;
    private volatile boolean running;
    private boolean closed;

    // The invoice registry and payment store; guarded by net.lock.
    final Map<String, SimulatedInvoice> invoices = new LinkedHashMap<>();
    final Map<String, List<SimulatedStream<LightningApi.Invoice>>> singleInvoiceSubscribers = new HashMap<>();
    final List<AllInvoicesSubscriber> allInvoicesSubscribers = new ArrayList<>();
    final Map<String, SimulatedPayment> payments = new HashMap<>();
    long lastAddIndex;
    long lastSettleIndex;
    long lastPaymentIndex;
    long lastHtlcIndex;

    /** A SubscribeInvoices client with the indexes it has seen (as in lnd's invoiceregistry). */
    static final class AllInvoicesSubscriber {
        final SimulatedStream<LightningApi.Invoice> stream;
        long addIndex;
        long settleIndex;

        AllInvoicesSubscriber(SimulatedStream<LightningApi.Invoice> stream, long addIndex, long settleIndex) {
            this.stream = stream;
            this.addIndex = addIndex;
            this.settleIndex = settleIndex;
        }
    }

    SimulatedLnd(SimulatedLightningNetwork net, String alias, Path dir) {
        this.net = net;
        this.alias = alias;
        this.dir = dir;
        this.nodeKey = new byte[32];
        RANDOM.nextBytes(nodeKey);
        this.identity = NodeId.fromSecretKey(nodeKey);
        this.rootKey = new byte[32];
        RANDOM.nextBytes(rootKey);
        this.tls = SimulatedTlsCertificate.generate(alias);
        try {
            Files.createDirectories(dir);
            tls.write(tlsCertPath(), dir.resolve("tls.key"));
            Files.write(adminMacaroonPath(), SimulatedMacaroons.bake(rootKey, SimulatedMacaroons.ADMIN_PERMISSIONS).serialize());
            Files.write(invoiceMacaroonPath(), SimulatedMacaroons.bake(rootKey, SimulatedMacaroons.INVOICE_PERMISSIONS).serialize());
            Files.write(readonlyMacaroonPath(), SimulatedMacaroons.bake(rootKey, SimulatedMacaroons.READ_PERMISSIONS).serialize());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String alias() {
        return alias;
    }

    public String host() {
        return HOST;
    }

    /** The gRPC port (chosen free at the first start, kept across {@link #stop()}/{@link #start()}). */
    public int port() {
        return port;
    }

    public Path dir() {
        return dir;
    }

    public Path tlsCertPath() {
        return dir.resolve("tls.cert");
    }

    public Path adminMacaroonPath() {
        return dir.resolve("admin.macaroon");
    }

    public Path invoiceMacaroonPath() {
        return dir.resolve("invoice.macaroon");
    }

    public Path readonlyMacaroonPath() {
        return dir.resolve("readonly.macaroon");
    }

    /** The node's public key, 33 bytes compressed, lower-case hex (GetInfo's identity_pubkey). */
    public String identityPubkey() {
        return identity.hex();
    }

    NodeId nodeId() {
        return identity;
    }

    public boolean isRunning() {
        return running;
    }

    /** Bakes a further macaroon with this node's root key (as {@code lncli bakemacaroon} would). */
    public Macaroon bakeMacaroon(List<SimulatedMacaroons.Op> ops) {
        return SimulatedMacaroons.bake(rootKey, ops);
    }

    /** Starts (or restarts, on the same port) the gRPC server. */
    public void start() {
        net.lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("simulated node " + alias + " is closed");
            }
            if (running) {
                return;
            }
            SslContext ssl = GrpcSslContexts.configure(
                    SslContextBuilder.forServer(tls.keyPair.getPrivate(), tls.certificate)).build();
            SimulatedMacaroonInterceptor auth = new SimulatedMacaroonInterceptor(this);
            server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getByName(HOST), port))
                    .sslContext(ssl)
                    .addService(ServerInterceptors.intercept(new SimulatedLightningService(this), auth))
                    .addService(ServerInterceptors.intercept(new SimulatedInvoicesService(this), auth))
                    .addService(ServerInterceptors.intercept(new SimulatedRouterService(this), auth))
                    .build()
                    .start();
            port = server.getPort();
            running = true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start simulated node " + alias + " on port " + port, e);
        } finally {
            net.lock.unlock();
        }
        net.sweep();
    }

    /**
     * Stops serving: the port refuses connections and open streams end (clients see UNAVAILABLE or
     * CANCELLED). State is kept; channels to this node are inactive until {@link #start()}.
     */
    public void stop() {
        Server s;
        net.lock.lock();
        try {
            if (!running) {
                return;
            }
            running = false;
            s = server;
            server = null;
            singleInvoiceSubscribers.clear();
            allInvoicesSubscribers.clear();
            payments.values().forEach(p -> p.subscribers.clear());
        } finally {
            net.lock.unlock();
        }
        s.shutdownNow();
        try {
            s.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
        net.lock.lock();
        try {
            closed = true;
        } finally {
            net.lock.unlock();
        }
    }

    // ------------------------------------------------------------------ invoice registry (under net.lock)

    SimulatedInvoice invoice(byte[] hash) {
        return invoices.get(HexFormat.of().formatHex(hash));
    }

    SimulatedInvoice invoiceByAddr(byte[] addr) {
        for (SimulatedInvoice inv : invoices.values()) {
            if (java.util.Arrays.equals(inv.paymentAddr, addr)) {
                return inv;
            }
        }
        return null;
    }

    void addInvoice(SimulatedInvoice inv) {
        String key = HexFormat.of().formatHex(inv.hash);
        if (invoices.containsKey(key)) {
            throw LndErrors.unknown(LndErrors.DUPLICATE_INVOICE);
        }
        invoices.put(key, inv);
        publish(inv);
    }

    long nextAddIndex() {
        return ++lastAddIndex;
    }

    /** Invoices.SettleInvoice: lnd's SettleHodlInvoice state checks; settled again is not an error. */
    void settleHold(byte[] preimage) {
        SimulatedInvoice inv = invoice(sha256(preimage));
        if (inv == null) {
            throw LndErrors.unknown(LndErrors.INVOICE_NOT_FOUND);
        }
        switch (inv.state) {
            case OPEN -> throw LndErrors.unknown(LndErrors.INVOICE_STILL_OPEN);
            case CANCELED -> throw LndErrors.unknown(LndErrors.INVOICE_ALREADY_CANCELED);
            case SETTLED -> {
                return; // invoices_server.go ignores ErrInvoiceAlreadySettled
            }
            case ACCEPTED -> {
                inv.preimage = preimage.clone();
                settle(inv);
                net.resolve(inv.htlc, preimage);
                publish(inv);
            }
        }
    }

    /** Invoices.CancelInvoice: idempotent for canceled invoices, refused for settled ones. */
    void cancel(byte[] hash) {
        SimulatedInvoice inv = invoice(hash);
        if (inv == null) {
            throw LndErrors.unknown(LndErrors.INVOICE_NOT_FOUND);
        }
        switch (inv.state) {
            case SETTLED -> throw LndErrors.unknown(LndErrors.INVOICE_ALREADY_SETTLED);
            case CANCELED -> {
                return;
            }
            default -> cancelNow(inv);
        }
    }

    private void cancelNow(SimulatedInvoice inv) {
        inv.state = SimulatedInvoice.State.CANCELED;
        inv.heldDeadline = null;
        inv.amtPaidMsat = 0;
        if (inv.htlc != null && inv.htlc.state == LightningApi.InvoiceHTLCState.ACCEPTED) {
            inv.htlc.state = LightningApi.InvoiceHTLCState.CANCELED;
            inv.htlc.resolveTime = net.clock().epochSeconds();
            net.resolve(inv.htlc, null);
        }
        publish(inv);
    }

    private void settle(SimulatedInvoice inv) {
        inv.state = SimulatedInvoice.State.SETTLED;
        inv.heldDeadline = null;
        inv.settleIndex = ++lastSettleIndex;
        inv.settleDate = net.clock().epochSeconds();
        inv.htlc.state = LightningApi.InvoiceHTLCState.SETTLED;
        inv.htlc.resolveTime = inv.settleDate;
    }

    /**
     * An incoming HTLC for {@code hash} (the exit hop's invoice checks in lnd's invoices/update.go, one HTLC
     * per invoice). Returns the preimage to settle with, {@code null} to hold (hold invoice now ACCEPTED),
     * or throws {@link HtlcRejected} to fail it back with incorrect_or_unknown_payment_details.
     */
    byte[] receiveHtlc(byte[] hash, byte[] paymentAddr, SimulatedInvoice.Htlc htlc) throws HtlcRejected {
        SimulatedInvoice inv = invoice(hash);
        if (inv == null || inv.state != SimulatedInvoice.State.OPEN
                || !java.util.Arrays.equals(inv.paymentAddr, paymentAddr)
                || htlc.amtMsat < inv.valueMsat) {
            throw new HtlcRejected();
        }
        htlc.htlcIndex = lastHtlcIndex++;
        inv.htlc = htlc;
        inv.amtPaidMsat = htlc.amtMsat;
        if (inv.hold) {
            inv.state = SimulatedInvoice.State.ACCEPTED;
            inv.heldDeadline = net.heldDeadline(inv);
            publish(inv);
            return null;
        }
        settle(inv);
        publish(inv);
        return inv.preimage;
    }

    static final class HtlcRejected extends Exception {
        HtlcRejected() {
            super(null, null, false, false);
        }
    }

    /** The expiry watcher: open invoices past expiry and held HTLCs past their lifetime are canceled. */
    void expire(java.time.Instant now) {
        for (SimulatedInvoice inv : new ArrayList<>(invoices.values())) {
            if (inv.state == SimulatedInvoice.State.OPEN && now.getEpochSecond() >= inv.creationDate + inv.expirySeconds) {
                cancelNow(inv);
            } else if (inv.state == SimulatedInvoice.State.ACCEPTED && inv.heldDeadline != null
                    && !now.isBefore(inv.heldDeadline)) {
                cancelNow(inv);
            }
        }
    }

    /** Sends an invoice's new state to its subscribers. */
    void publish(SimulatedInvoice inv) {
        LightningApi.Invoice proto = inv.toProto();
        List<SimulatedStream<LightningApi.Invoice>> subs = singleInvoiceSubscribers.get(HexFormat.of().formatHex(inv.hash));
        if (subs != null) {
            for (SimulatedStream<LightningApi.Invoice> s : List.copyOf(subs)) {
                s.send(proto);
                if (inv.isFinal()) {
                    s.complete();
                }
            }
            if (inv.isFinal()) {
                singleInvoiceSubscribers.remove(HexFormat.of().formatHex(inv.hash));
            }
            subs.removeIf(SimulatedStream::isClosed);
        }
        for (AllInvoicesSubscriber c : List.copyOf(allInvoicesSubscribers)) {
            if (inv.state == SimulatedInvoice.State.SETTLED && c.settleIndex >= inv.settleIndex) {
                continue;
            }
            if (inv.state == SimulatedInvoice.State.OPEN && c.addIndex >= inv.addIndex) {
                continue;
            }
            c.stream.send(proto);
            if (inv.state == SimulatedInvoice.State.OPEN) {
                c.addIndex = inv.addIndex;
            } else if (inv.state == SimulatedInvoice.State.SETTLED) {
                c.settleIndex = inv.settleIndex;
            }
        }
        allInvoicesSubscribers.removeIf(c -> c.stream.isClosed());
    }

    /** Sends a payment's new state to its SendPaymentV2/TrackPaymentV2 subscribers; final states end them. */
    void publish(SimulatedPayment p) {
        LightningApi.Payment proto = p.toProto();
        for (SimulatedPayment.Subscriber s : List.copyOf(p.subscribers)) {
            if (!(s.noInflightUpdates() && p.status == LightningApi.Payment.PaymentStatus.IN_FLIGHT)) {
                s.stream().send(proto);
            }
            if (p.isFinal()) {
                s.stream().complete();
            }
        }
        if (p.isFinal()) {
            p.subscribers.clear();
        }
        p.subscribers.removeIf(s -> s.stream().isClosed());
    }

    static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] random32() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return b;
    }

    @Override
    public String toString() {
        return "SimulatedLnd[" + alias + " " + identityPubkey() + " " + HOST + ":" + port + (running ? "" : " stopped") + "]";
    }
}
