package org.fleetmesh.settlement.lightning.lnd;

import io.grpc.stub.StreamObserver;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11Exception;
import org.fleetmesh.settlement.lightning.bolt11.Network;
import org.fleetmesh.spi.settlement.Capability;
import org.fleetmesh.spi.settlement.DecodedRequest;
import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.InvoiceState;
import org.fleetmesh.spi.settlement.Msat;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementException.Reason;
import org.fleetmesh.spi.settlement.SettlementRail;
import org.jboss.logging.Logger;
import com.google.protobuf.ByteString;
import org.lightningj.lnd.invoices.proto.InvoicesOuterClass;
import org.lightningj.lnd.proto.LightningApi;
import org.lightningj.lnd.proto.LightningApi.Payment;
import org.lightningj.lnd.router.proto.RouterOuterClass;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The Lightning rail over LND's gRPC API (LightningJ's generated asynchronous stubs; see
 * {@link LndConnection} for why not its wrapper classes).
 *
 * <ul>
 * <li>{@link #invoice}: {@code AddInvoice} with {@code r_preimage}; {@link #holdInvoice}: {@code invoicesrpc.AddHoldInvoice};
 *     {@link #settle} / {@link #cancel}: {@code SettleInvoice} / {@code CancelInvoice}, idempotent as the SPI requires
 *     (LND's "invoice already settled" on settle and "invoice already canceled" on cancel count as done);</li>
 * <li>{@link #watch}: {@code SubscribeSingleInvoice}, resubscribed after a broken stream until a final state;
 *     LND reports an expired invoice as CANCELED, reported here as EXPIRED when nothing was paid and its expiry passed;</li>
 * <li>{@link #pay}: {@code routerrpc.SendPaymentV2} followed to a final status; a second pay of a paid request
 *     ("invoice is already paid") or of one in flight follows the existing payment with {@code TrackPaymentV2}
 *     instead of failing, so pay is safe to repeat after a crash;</li>
 * <li>{@link #decode}: offline, by this extension's BOLT-11 codec (no LND call); every request LND returns
 *     or is asked to pay is decoded and checked against what was asked (hash, amount, network).</li>
 * </ul>
 * Least-privilege macaroons: a payee needs {@code invoices:read invoices:write} (LND's invoice.macaroon),
 * a payer also {@code offchain:read offchain:write}; {@code info:read} for the readiness check.
 */
public final class LndRail implements SettlementRail, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(LndRail.class);
    public static final String ID = "ln";

    /**
     * @param callTimeout     deadline of each unary call
     * @param paymentTimeout  how long LND may try routes ({@code timeout_seconds}); pay waits this plus callTimeout
     * @param holdCltvExpiry  {@code cltv_expiry} of hold invoices (blocks the payee has to settle after acceptance)
     * @param network         the chain requests must be for; empty = learn it from GetInfo on first use
     * @param resubscribe     pause before re-opening a broken invoice subscription
     */
    public record Options(Duration callTimeout, Duration paymentTimeout, int holdCltvExpiry, Optional<Network> network,
            Duration resubscribe) {
        public static Options defaults() {
            return new Options(Duration.ofSeconds(30), Duration.ofSeconds(60), 80, Optional.empty(), Duration.ofSeconds(2));
        }
    }

    /** What GetInfo says; {@link #ready()} is the readiness rule. */
    public record NodeInfo(String identityPubkey, String alias, String version, boolean syncedToChain, Optional<Network> network) {
        public boolean ready() {
            return syncedToChain;
        }
    }

    private final LndConnection conn;
    private final Options options;
    private final Clock clock;
    private final ScheduledExecutorService scheduler;
    private volatile Network network;
    private volatile boolean closed;

    public LndRail(LndConnection conn, Options options, Clock clock) {
        this.conn = conn;
        this.options = options;
        this.clock = clock;
        this.network = options.network().orElse(null);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "lnd-rail-resubscribe");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.PREIMAGE_INVOICE, Capability.HOLD_INVOICE, Capability.WATCH, Capability.PAY, Capability.DECODE);
    }

    public String target() {
        return conn.target();
    }

    /** GetInfo: identity, version, chain sync. Throws RAIL_UNAVAILABLE when LND cannot be reached or refuses us. */
    public NodeInfo info() {
        LightningApi.GetInfoResponse r = LndCalls.unary("GetInfo", options.callTimeout(),
                obs -> conn.lightning().getInfo(LightningApi.GetInfoRequest.getDefaultInstance(), obs));
        Optional<Network> net = Optional.empty();
        for (var chain : r.getChainsList()) {
            if ("bitcoin".equalsIgnoreCase(chain.getChain())) {
                net = networkOf(chain.getNetwork());
            }
        }
        return new NodeInfo(r.getIdentityPubkey(), r.getAlias(), r.getVersion(), r.getSyncedToChain(), net);
    }

    static Optional<Network> networkOf(String lndNetwork) {
        return switch (lndNetwork == null ? "" : lndNetwork.toLowerCase(java.util.Locale.ROOT)) {
            case "mainnet" -> Optional.of(Network.BITCOIN);
            case "testnet", "testnet3", "testnet4" -> Optional.of(Network.TESTNET);
            case "signet" -> Optional.of(Network.SIGNET);
            case "regtest" -> Optional.of(Network.REGTEST);
            case "simnet" -> Optional.of(Network.SIMNET);
            default -> Optional.empty();
        };
    }

    /**
     * The chain requests must be for: configured, or learnt from LND's first invoice, or from GetInfo
     * (which needs {@code info:read}; an invoice-only macaroon lacks it, hence the other two ways).
     */
    private Network network() {
        Network n = network;
        if (n == null) {
            try {
                n = info().network().orElseThrow(() -> new SettlementException(Reason.RAIL_ERROR, "LND reports no bitcoin chain"));
            } catch (SettlementException e) {
                throw new SettlementException(e.reason(), "cannot tell which chain LND is on (set fleetmesh.lightning.lnd.network): "
                        + e.getMessage(), e);
            }
            network = n;
        }
        return n;
    }

    // ---------------------------------------------------------------- payee side

    @Override
    public Invoice invoice(Preimage preimage, long amountMsat, String memo, Duration expiry) {
        Msat.positive(amountMsat, "invoice amount");
        long expirySeconds = expirySeconds(expiry);
        var req = LightningApi.Invoice.newBuilder()
                .setRPreimage(ByteString.copyFrom(preimage.toBytes()))
                .setValueMsat(amountMsat)
                .setMemo(memo == null ? "" : memo)
                .setExpiry(expirySeconds)
                .build();
        LightningApi.AddInvoiceResponse r = LndCalls.unary("AddInvoice", options.callTimeout(),
                obs -> conn.lightning().addInvoice(req, obs));
        PaymentHash hash = preimage.hash();
        if (!java.util.Arrays.equals(r.getRHash().toByteArray(), hash.toBytes())) {
            throw new SettlementException(Reason.RAIL_ERROR, "LND returned r_hash "
                    + java.util.HexFormat.of().formatHex(r.getRHash().toByteArray()) + " for preimage hash " + hash.hex());
        }
        return checked(r.getPaymentRequest(), hash, amountMsat);
    }

    @Override
    public Invoice holdInvoice(PaymentHash hash, long amountMsat, String memo, Duration expiry) {
        Msat.positive(amountMsat, "invoice amount");
        long expirySeconds = expirySeconds(expiry);
        var req = InvoicesOuterClass.AddHoldInvoiceRequest.newBuilder()
                .setHash(ByteString.copyFrom(hash.toBytes()))
                .setValueMsat(amountMsat)
                .setMemo(memo == null ? "" : memo)
                .setExpiry(expirySeconds)
                .setCltvExpiry(options.holdCltvExpiry())
                .build();
        InvoicesOuterClass.AddHoldInvoiceResp r = LndCalls.unary("AddHoldInvoice", options.callTimeout(),
                obs -> conn.invoices().addHoldInvoice(req, obs));
        return checked(r.getPaymentRequest(), hash, amountMsat);
    }

    private static long expirySeconds(Duration expiry) {
        long s = expiry.toSeconds();
        if (s < 1 || s > 365L * 24 * 3600) {
            throw new SettlementException(Reason.AMOUNT_OUT_OF_RANGE, "expiry must be 1 s to 1 year, got " + expiry);
        }
        return s;
    }

    /** Decodes what LND issued and checks it is the invoice that was asked for. */
    private Invoice checked(String paymentRequest, PaymentHash hash, long amountMsat) {
        var inv = parseBolt11(paymentRequest);
        if (network == null) {
            network = inv.network(); // LND's own invoice says which chain it is on (no info:read needed)
        } else if (inv.network() != network) {
            throw new SettlementException(Reason.RAIL_ERROR, "LND issued an invoice for " + inv.network() + ", expected " + network);
        }
        if (!inv.paymentHash().hex().equals(hash.hex())) {
            throw new SettlementException(Reason.RAIL_ERROR, "LND issued an invoice for another payment hash");
        }
        if (inv.amountMsat().isEmpty() || inv.amountMsat().getAsLong() != amountMsat) {
            throw new SettlementException(Reason.RAIL_ERROR, "LND issued an invoice for " + inv.amountMsat() + " msat, asked " + amountMsat);
        }
        return new Invoice(ID, paymentRequest, hash, amountMsat, Instant.ofEpochSecond(inv.expiresAt()));
    }

    @Override
    public void settle(Preimage preimage) {
        var req = InvoicesOuterClass.SettleInvoiceMsg.newBuilder()
                .setPreimage(ByteString.copyFrom(preimage.toBytes())).build();
        try {
            LndCalls.<InvoicesOuterClass.SettleInvoiceResp>unary("SettleInvoice", options.callTimeout(),
                    obs -> conn.invoices().settleInvoice(req, obs));
        } catch (SettlementException e) {
            if (e.reason() != Reason.ALREADY_SETTLED) { // the hash was looked up from this preimage: settled with it
                throw e;
            }
        }
    }

    @Override
    public void cancel(PaymentHash hash) {
        var req = InvoicesOuterClass.CancelInvoiceMsg.newBuilder()
                .setPaymentHash(ByteString.copyFrom(hash.toBytes())).build();
        try {
            LndCalls.<InvoicesOuterClass.CancelInvoiceResp>unary("CancelInvoice", options.callTimeout(),
                    obs -> conn.invoices().cancelInvoice(req, obs));
        } catch (SettlementException e) {
            if (e.reason() != Reason.ALREADY_CANCELED) {
                throw e;
            }
        }
    }

    @Override
    public void watch(PaymentHash hash, Consumer<InvoiceState> listener) {
        new Watch(hash, listener).subscribe();
    }

    /** One watch: survives broken streams by subscribing again; reports each distinct state once, in order. */
    private final class Watch {
        private final PaymentHash hash;
        private final Consumer<InvoiceState> listener;
        private final AtomicBoolean done = new AtomicBoolean();
        private InvoiceState last;

        Watch(PaymentHash hash, Consumer<InvoiceState> listener) {
            this.hash = hash;
            this.listener = listener;
        }

        void subscribe() {
            if (closed || done.get()) {
                return;
            }
            var req = InvoicesOuterClass.SubscribeSingleInvoiceRequest.newBuilder()
                    .setRHash(ByteString.copyFrom(hash.toBytes())).build();
            try {
                conn.invoices().subscribeSingleInvoice(req, new StreamObserver<>() {
                    @Override
                    public void onNext(LightningApi.Invoice inv) {
                        deliver(stateOf(inv));
                    }

                    @Override
                    public void onError(Throwable t) {
                        retry(t);
                    }

                    @Override
                    public void onCompleted() {
                        if (!done.get()) {
                            retry(new IllegalStateException("stream ended before a final state"));
                        }
                    }
                });
            } catch (Exception e) {
                retry(e);
            }
        }

        private synchronized void deliver(InvoiceState state) {
            if (done.get() || state == last) {
                return;
            }
            if (last != null && !last.successors().contains(state)) {
                LOG.warnf("LND reported %s after %s for %s; passing it on", state, last, hash.hex());
            }
            last = state;
            if (state.isFinal()) {
                done.set(true);
            }
            try {
                listener.accept(state);
            } catch (RuntimeException e) {
                LOG.errorf(e, "invoice listener for %s failed on %s", hash.hex(), state);
            }
        }

        private void retry(Throwable t) {
            if (closed || done.get()) {
                return;
            }
            SettlementException mapped = LndCalls.map("SubscribeSingleInvoice", t);
            if (mapped.reason() == Reason.UNKNOWN_PAYMENT_HASH) {
                LOG.warnf("watch of %s ends: %s", hash.hex(), mapped.getMessage());
                return;
            }
            LOG.debugf("invoice subscription for %s broke (%s); subscribing again", hash.hex(), mapped.getMessage());
            scheduler.schedule(this::subscribe, options.resubscribe().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    InvoiceState stateOf(LightningApi.Invoice inv) {
        return switch (inv.getState()) {
            case OPEN -> InvoiceState.OPEN;
            case ACCEPTED -> InvoiceState.ACCEPTED;
            case SETTLED -> InvoiceState.SETTLED;
            case UNRECOGNIZED -> throw new SettlementException(Reason.RAIL_ERROR, "LND reported an unknown invoice state");
            case CANCELED -> {
                boolean unpaid = inv.getAmtPaidMsat() == 0;
                boolean pastExpiry = !clock.instant().isBefore(Instant.ofEpochSecond(inv.getCreationDate() + inv.getExpiry()));
                yield unpaid && pastExpiry ? InvoiceState.EXPIRED : InvoiceState.CANCELED;
            }
        };
    }

    // ---------------------------------------------------------------- payer side

    @Override
    public PaymentResult pay(String paymentRequest, long maxFeeMsat) {
        Msat.checked(maxFeeMsat, "fee limit");
        var inv = decodeBolt11(paymentRequest);
        if (inv.amountMsat().isEmpty()) {
            throw new SettlementException(Reason.UNSUPPORTED, "amount-less invoices are not paid by this rail");
        }
        if (!clock.instant().isBefore(Instant.ofEpochSecond(inv.expiresAt()))) {
            throw new SettlementException(Reason.EXPIRED, "invoice expired at " + Instant.ofEpochSecond(inv.expiresAt()));
        }
        var req = RouterOuterClass.SendPaymentRequest.newBuilder()
                .setPaymentRequest(paymentRequest)
                .setFeeLimitMsat(maxFeeMsat)
                .setTimeoutSeconds((int) Math.max(1, options.paymentTimeout().toSeconds()))
                .setNoInflightUpdates(false)
                .build();
        PaymentHash hash = new PaymentHash(inv.paymentHash().bytes());
        try {
            return follow("SendPaymentV2", hash, obs -> conn.router().sendPaymentV2(req, obs));
        } catch (SettlementException e) {
            String m = e.getMessage().toLowerCase(java.util.Locale.ROOT);
            if (m.contains("invoice is already paid") || m.contains("payment is in transition") || m.contains("already in flight")) {
                return track(hash); // we paid it before (perhaps before a crash): report that payment
            }
            throw e;
        }
    }

    /** Follows an earlier payment of ours with TrackPaymentV2 to its outcome (or PENDING if it does not end in time). */
    public PaymentResult track(PaymentHash hash) {
        var req = RouterOuterClass.TrackPaymentRequest.newBuilder()
                .setPaymentHash(ByteString.copyFrom(hash.toBytes()))
                .setNoInflightUpdates(false)
                .build();
        return follow("TrackPaymentV2", hash, obs -> conn.router().trackPaymentV2(req, obs));
    }

    private PaymentResult follow(String what, PaymentHash hash, LndCalls.AsyncCall<Payment> call) {
        CompletableFuture<PaymentResult> result = new CompletableFuture<>();
        try {
            call.start(new StreamObserver<>() {
                @Override
                public void onNext(Payment p) {
                    switch (p.getStatus()) {
                        case SUCCEEDED -> result.complete(succeeded(hash, p));
                        case FAILED -> result.complete(PaymentResult.failed(reasonOf(p.getFailureReason().name()),
                                "LND: " + p.getFailureReason().name()));
                        default -> {
                        }
                    }
                }

                @Override
                public void onError(Throwable t) {
                    result.completeExceptionally(LndCalls.map(what, t));
                }

                @Override
                public void onCompleted() {
                    result.complete(PaymentResult.pending(what + " stream ended while the payment was in flight"));
                }
            });
        } catch (Exception e) {
            throw LndCalls.map(what, e);
        }
        Duration wait = options.paymentTimeout().plus(options.callTimeout());
        try {
            return result.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return PaymentResult.pending("no final status after " + wait.toSeconds() + " s; follow it with track()");
        } catch (java.util.concurrent.ExecutionException e) {
            throw LndCalls.map(what, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return PaymentResult.pending("interrupted while the payment was in flight");
        }
    }

    private static PaymentResult succeeded(PaymentHash hash, Payment p) {
        Preimage preimage;
        try {
            preimage = Preimage.ofHex(p.getPaymentPreimage());
        } catch (RuntimeException e) {
            throw new SettlementException(Reason.RAIL_ERROR, "LND reported success without a readable preimage");
        }
        if (!preimage.unlocks(hash)) {
            throw new SettlementException(Reason.RAIL_ERROR, "LND reported a preimage that does not hash to " + hash.hex());
        }
        return PaymentResult.succeeded(preimage, p.getFeeMsat());
    }

    static Reason reasonOf(String failureReason) {
        return switch (failureReason) {
            case "FAILURE_REASON_NO_ROUTE" -> Reason.NO_ROUTE;
            case "FAILURE_REASON_INSUFFICIENT_BALANCE" -> Reason.INSUFFICIENT_FUNDS;
            case "FAILURE_REASON_TIMEOUT" -> Reason.EXPIRED;
            case "FAILURE_REASON_INCORRECT_PAYMENT_DETAILS" -> Reason.UNKNOWN_PAYMENT_HASH;
            default -> Reason.RAIL_ERROR;
        };
    }

    // ---------------------------------------------------------------- decode

    @Override
    public DecodedRequest decode(String paymentRequest) {
        var inv = decodeBolt11(paymentRequest);
        OptionalLong amount = inv.amountMsat();
        return new DecodedRequest(ID, new PaymentHash(inv.paymentHash().bytes()), amount, inv.payee().hex(),
                inv.description().orElse(""), Instant.ofEpochSecond(inv.expiresAt()));
    }

    private static org.fleetmesh.settlement.lightning.bolt11.Invoice parseBolt11(String paymentRequest) {
        try {
            return Bolt11.decode(paymentRequest);
        } catch (Bolt11Exception e) {
            throw new SettlementException(Reason.INVALID_REQUEST, e.getMessage(), e);
        }
    }

    private org.fleetmesh.settlement.lightning.bolt11.Invoice decodeBolt11(String paymentRequest) {
        var inv = parseBolt11(paymentRequest);
        Network expected = network();
        if (inv.network() != expected) {
            throw new SettlementException(Reason.INVALID_REQUEST, "invoice is for " + inv.network() + ", this node is on " + expected);
        }
        return inv;
    }

    @Override
    public void close() {
        closed = true;
        scheduler.shutdownNow();
        conn.close();
    }
}
