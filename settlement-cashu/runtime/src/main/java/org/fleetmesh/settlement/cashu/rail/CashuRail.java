package org.fleetmesh.settlement.cashu.rail;

import java.math.BigInteger;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.fleetmesh.settlement.cashu.crypto.Secp256k1;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.request.PaymentRequestPayload;
import org.fleetmesh.settlement.cashu.wallet.Wallet;
import org.fleetmesh.spi.schedule.Repeating;
import org.fleetmesh.spi.settlement.Capability;
import org.fleetmesh.spi.settlement.DecodedRequest;
import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.InvoiceState;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementException.Reason;
import org.fleetmesh.spi.settlement.SettlementRail;
import org.fleetmesh.spi.settlement.cashu.CashuStore;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The Cashu rail: the settlement SPI over one mint's ecash, with NUT-14 HTLCs on SHA256(k) as the escrow
 * (docs/spec/settlement-cashu.md). Its id is {@code cashu:<mint url>}. An invoice is a NUT-18 payment request
 * ({@code creqA...}) asking for proofs locked to the payment hash and this node's Cashu key, delivered by HTTP POST
 * to this node; paying one locks our proofs that way and learns the preimage from the mint when the payee claims.
 */
public final class CashuRail implements SettlementRail, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(CashuRail.class);

    /**
     * @param claimWindow how long after a request's expiry its HTLC must stay locked, for our claim
     * @param claimMargin an accepted payment not settled this long before its locktime is given up (EXPIRED)
     * @param maxLocktime the latest locktime we lock our own proofs to, from now
     * @param payTimeout  how long {@link #pay} waits for the payee's claim before answering PENDING
     * @param poll        how often the mint is asked, while waiting
     * @param callTimeout the deadline of a delivery to a payee
     * @param tick        how often unfinished payments and expiries are looked at
     */
    public record Settings(Duration claimWindow, Duration claimMargin, Duration maxLocktime, Duration payTimeout,
            Duration poll, Duration callTimeout, Duration tick) {
        public static Settings defaults() {
            return new Settings(Duration.ofMinutes(30), Duration.ofMinutes(5), Duration.ofDays(2),
                    Duration.ofSeconds(30), Duration.ofMillis(500), Duration.ofSeconds(10), Duration.ofSeconds(2));
        }
    }

    private final Wallet wallet;
    private final CashuStore store;
    private final Units units;
    private final byte[] payeeSecret;
    private final String payeeKey;
    private final java.util.function.Supplier<String> receiveUrl;
    private final Settings settings;
    private final Clock clock;
    private final HttpClient http;
    private final Incoming incoming;
    private final Outgoing outgoing;
    private final Map<PaymentHash, List<Consumer<InvoiceState>>> watchers = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;

    /**
     * @param seed       the wallet's seed; this node's Cashu key (P2PK receiver and refund key) is derived from it
     * @param receiveUrl where payers POST their proofs (this node's {@code /cashu/v1/pay}), asked when a request is made
     */
    public CashuRail(Wallet wallet, CashuStore store, byte[] seed, java.util.function.Supplier<String> receiveUrl,
            Settings settings, Clock clock) {
        this.wallet = wallet;
        this.store = store;
        this.units = Units.of(wallet.unit());
        this.payeeSecret = derivePayeeKey(seed);
        this.payeeKey = Secp256k1.hex(Secp256k1.mulG(new BigInteger(1, payeeSecret)));
        this.receiveUrl = receiveUrl;
        this.settings = settings;
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(settings.callTimeout()).build();
        this.incoming = new Incoming(this);
        this.outgoing = new Outgoing(this);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleetmesh-cashu-rail");
            t.setDaemon(true);
            return t;
        });
    }

    static byte[] derivePayeeKey(byte[] seed) {
        return org.fleetmesh.settlement.cashu.wallet.Seed.lockKey(seed);
    }

    /** Resolves what a crash left open (the wallet's operations first), then starts the timer. */
    public Wallet.Recovery start() {
        Wallet.Recovery r = recoverNow();
        timer.scheduleWithFixedDelay(Repeating.surviving("the Cashu rail's tick", this::tick), settings.tick().toMillis(), settings.tick().toMillis(),
                TimeUnit.MILLISECONDS);
        return r;
    }

    /** A mint that is down at start does not disable the rail: recovery is tried again on every tick until it ends. */
    private Wallet.Recovery recoverNow() {
        try {
            Wallet.Recovery r = wallet.recover();
            recovered = r.complete();
            return r;
        } catch (RuntimeException e) {
            LOG.warnf("cashu rail %s: recovery could not run yet (%s); retried", id(), e.getMessage());
            return new Wallet.Recovery();
        }
    }

    private volatile boolean recovered;

    void tick() {
        try {
            if (!recovered) {
                recoverNow().lines().forEach(l -> LOG.infof("cashu recovery: %s", l));
            }
            incoming.tick();
            outgoing.tick();
        } catch (RuntimeException e) {
            LOG.warnf("cashu rail %s: %s", id(), e.getMessage());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    @Override
    public String id() {
        return "cashu:" + wallet.mintUrl();
    }

    @Override
    public long amountStepMsat() {
        return units.toMsat(1);
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.PREIMAGE_INVOICE, Capability.HOLD_INVOICE, Capability.WATCH, Capability.PAY,
                Capability.DECODE);
    }

    @Override
    public Invoice invoice(Preimage preimage, long amountMsat, String memo, Duration expiry) {
        return request(preimage.hash(), amountMsat, memo, expiry, preimage);
    }

    @Override
    public Invoice holdInvoice(PaymentHash hash, long amountMsat, String memo, Duration expiry) {
        return request(hash, amountMsat, memo, expiry, null);
    }

    private Invoice request(PaymentHash hash, long amountMsat, String memo, Duration expiry, Preimage auto) {
        long expiresAt = now() + expiry.toSeconds();
        String creq = incoming.open(hash, amountMsat, memo, expiresAt, auto);
        return new Invoice(id(), creq, hash, amountMsat, Instant.ofEpochSecond(expiresAt));
    }

    @Override
    public void settle(Preimage preimage) {
        incoming.settle(preimage);
    }

    @Override
    public void cancel(PaymentHash hash) {
        incoming.cancel(hash);
    }

    @Override
    public void watch(PaymentHash hash, Consumer<InvoiceState> listener) {
        InvoiceState now = incoming.state(hash);
        listener.accept(now);
        if (!now.isFinal()) {
            watchers.computeIfAbsent(hash, h -> new CopyOnWriteArrayList<>()).add(listener);
            InvoiceState again = incoming.state(hash); // a change between the read and the registration
            if (again != now) {
                report(hash, again);
            }
        }
    }

    void report(PaymentHash hash, InvoiceState state) {
        List<Consumer<InvoiceState>> ls = watchers.get(hash);
        if (ls == null) {
            return;
        }
        for (Consumer<InvoiceState> l : ls) {
            try {
                l.accept(state);
            } catch (RuntimeException e) {
                LOG.errorf(e, "cashu: a watcher of %s failed on %s", hash, state);
            }
        }
        if (state.isFinal()) {
            watchers.remove(hash);
        }
    }

    void background(Runnable r) {
        timer.execute(() -> {
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.warnf("cashu rail %s: %s", id(), e.getMessage());
            }
        });
    }

    @Override
    public PaymentResult pay(String paymentRequest, long maxFeeMsat) {
        return outgoing.pay(paymentRequest, maxFeeMsat);
    }

    @Override
    public DecodedRequest decode(String paymentRequest) {
        Outgoing.Terms t = outgoing.terms(paymentRequest);
        String d = t.request().description() == null ? "" : t.request().description();
        return new DecodedRequest(id(), t.hash(), java.util.OptionalLong.of(units.toMsat(t.amount())), t.payee(), d,
                Instant.ofEpochSecond(t.locktime()));
    }

    /**
     * A payer's proofs for one of our requests (the body of {@code POST /cashu/v1/pay}): empty when accepted, else
     * the reason for a 400.
     */
    public Optional<String> receive(PaymentRequestPayload payload) {
        return incoming.accept(payload);
    }

    // ---- for the two sides ----

    Wallet wallet() {
        return wallet;
    }

    CashuStore store() {
        return store;
    }

    Units units() {
        return units;
    }

    Settings settings() {
        return settings;
    }

    HttpClient http() {
        return http;
    }

    /** This node's Cashu public key (33-byte compressed hex): receiver of HTLCs, and refund key of ours. */
    public String payeeKey() {
        return payeeKey;
    }

    byte[] payeePrivateKey() {
        return payeeSecret.clone();
    }

    String receiveUrl() {
        return receiveUrl.get();
    }

    long now() {
        return clock.instant().getEpochSecond();
    }

    static ObjectNode json() {
        return Nut.json().createObjectNode();
    }

    static JsonNode parse(String s) {
        try {
            return Nut.json().readTree(s);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a stored record does not parse", e);
        }
    }

    static String write(Object o) {
        try {
            return Nut.json().writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static <T> T read(String s, Class<T> type) {
        try {
            return Nut.json().readValue(s, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a stored record does not parse", e);
        }
    }

    /** What the readiness check shows: the mint's name and version, the active keyset and the balance; throws if down. */
    public Map<String, Object> health() {
        var info = wallet.mint().info();
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("mint", wallet.mintUrl());
        m.put("mint_name", info.name() == null ? "" : info.name());
        m.put("mint_version", info.version() == null ? "" : info.version());
        m.put("unit", wallet.unit());
        m.put("keyset", wallet.keys().active().id());
        m.put("balance", wallet.balance());
        for (int nut : new int[] {7, 9, 11, 12, 14}) {
            if (!info.supports(nut)) {
                throw unavailable("the mint does not support NUT-" + String.format("%02d", nut)
                        + ", which the escrow needs");
            }
        }
        return m;
    }

    static SettlementException unavailable(String why) {
        return new SettlementException(Reason.RAIL_UNAVAILABLE, why);
    }
}
