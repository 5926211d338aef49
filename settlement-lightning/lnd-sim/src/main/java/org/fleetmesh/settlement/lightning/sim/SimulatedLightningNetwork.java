package org.fleetmesh.settlement.lightning.sim;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import org.lightningj.lnd.proto.LightningApi;

/**
 * A SIMULATED Lightning network of {@link SimulatedLnd} nodes for tests and benchmarks (no Bitcoin, no
 * peer protocol, no real channels). Every pair of nodes shares one direct simulated channel with
 * {@link #DEFAULT_CHANNEL_BALANCE_MSAT} on each side; payments go over that channel only (no multi-hop),
 * with LND's failure reasons: total outgoing balance too small gives FAILURE_REASON_INSUFFICIENT_BALANCE,
 * an unknown or offline payee or a too small direct channel gives FAILURE_REASON_NO_ROUTE, a payee that
 * rejects the HTLC gives FAILURE_REASON_INCORRECT_PAYMENT_DETAILS.
 *
 * <p>All state changes of all nodes happen under one lock, which also orders every stream's updates.
 * Time is the network's {@link SimulatedClock}.
 */
public final class SimulatedLightningNetwork implements AutoCloseable {
    /** Each side's local balance of a new simulated channel: 0.1 BTC. */
    public static final long DEFAULT_CHANNEL_BALANCE_MSAT = 10_000_000_000L;
    /** The simulated chain's block interval, used to turn CLTV deltas into time. */
    public static final Duration BLOCK_INTERVAL = Duration.ofMinutes(10);
    static final int GENESIS_HEIGHT = 1000;
    private static final Pattern ALIAS = Pattern.compile("[A-Za-z0-9_-]{1,32}");

    final ReentrantLock lock = new ReentrantLock();
    private final Path dir;
    private final SimulatedClock clock;
    private final Instant genesis;
    private final Map<String, SimulatedLnd> nodes = new LinkedHashMap<>();
    private final List<SimulatedChannel> channels = new ArrayList<>();
    private final ScheduledExecutorService sweeper;
    private volatile Duration heldHtlcLifetime;
    private long nextChannelIndex = 1;
    private boolean closed;

    public SimulatedLightningNetwork(Path dir) {
        this(dir, new SimulatedClock());
    }

    public SimulatedLightningNetwork(Path dir, SimulatedClock clock) {
        this.dir = dir;
        this.clock = clock;
        this.genesis = clock.now();
        clock.onChange(this::sweep);
        this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "simulated-lnd-expiry");
            t.setDaemon(true);
            return t;
        });
        sweeper.scheduleWithFixedDelay(this::sweep, 250, 250, TimeUnit.MILLISECONDS);
    }

    public SimulatedClock clock() {
        return clock;
    }

    /**
     * Creates a simulated node in {@code <dir>/<alias>} (TLS certificate, macaroons) and starts its gRPC
     * server on a free port of 127.0.0.1. It gets a channel to every node already in the network.
     */
    public SimulatedLnd startNode(String alias) {
        if (!ALIAS.matcher(alias).matches()) {
            throw new IllegalArgumentException("alias must match " + ALIAS.pattern());
        }
        SimulatedLnd node;
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("network closed");
            }
            if (nodes.containsKey(alias)) {
                throw new IllegalArgumentException("a node named " + alias + " exists");
            }
            node = new SimulatedLnd(this, alias, dir.resolve(alias));
            for (SimulatedLnd other : nodes.values()) {
                long chanId = ((long) GENESIS_HEIGHT << 40) | (nextChannelIndex++ << 16);
                channels.add(new SimulatedChannel(other, node, chanId, DEFAULT_CHANNEL_BALANCE_MSAT));
            }
            nodes.put(alias, node);
        } finally {
            lock.unlock();
        }
        node.start();
        return node;
    }

    public Optional<SimulatedLnd> node(String alias) {
        lock.lock();
        try {
            return Optional.ofNullable(nodes.get(alias));
        } finally {
            lock.unlock();
        }
    }

    public List<SimulatedLnd> nodes() {
        lock.lock();
        try {
            return List.copyOf(nodes.values());
        } finally {
            lock.unlock();
        }
    }

    /** Sets {@code from}'s local balance in its channel with {@code to}. */
    public void setChannelBalance(SimulatedLnd from, SimulatedLnd to, long fromLocalMsat) {
        lock.lock();
        try {
            channel(from, to).setLocal(from, fromLocalMsat);
        } finally {
            lock.unlock();
        }
    }

    /** {@code from}'s local balance in its channel with {@code to}, HTLCs in flight excluded. */
    public long channelBalanceMsat(SimulatedLnd from, SimulatedLnd to) {
        lock.lock();
        try {
            return channel(from, to).local(from);
        } finally {
            lock.unlock();
        }
    }

    /**
     * How long an ACCEPTED hold invoice keeps its HTLC before the payee cancels it (LND cancels a held
     * HTLC before its CLTV expiry). {@code null} (the default) means the invoice's cltv_expiry times
     * {@link #BLOCK_INTERVAL}.
     */
    public void setHeldHtlcLifetime(Duration lifetime) {
        this.heldHtlcLifetime = lifetime;
    }

    /** The simulated best block height: {@value #GENESIS_HEIGHT} plus one block per 10 simulated minutes. */
    public int blockHeight() {
        long secs = Duration.between(genesis, clock.now()).getSeconds();
        return GENESIS_HEIGHT + (int) Math.max(0, secs / BLOCK_INTERVAL.getSeconds());
    }

    @Override
    public void close() {
        List<SimulatedLnd> all;
        lock.lock();
        try {
            closed = true;
            all = List.copyOf(nodes.values());
        } finally {
            lock.unlock();
        }
        all.forEach(SimulatedLnd::close);
        sweeper.shutdownNow();
    }

    // ------------------------------------------------------------------ internals (under lock)

    SimulatedChannel channel(SimulatedLnd x, SimulatedLnd y) {
        for (SimulatedChannel c : channels) {
            if (c.has(x) && c.has(y) && x != y) {
                return c;
            }
        }
        throw new IllegalArgumentException("no simulated channel between " + x.alias() + " and " + y.alias());
    }

    SimulatedLnd byPubkey(String hex) {
        for (SimulatedLnd n : nodes.values()) {
            if (n.identityPubkey().equals(hex)) {
                return n;
            }
        }
        return null;
    }

    int activeChannels(SimulatedLnd n) {
        int count = 0;
        for (SimulatedChannel c : channels) {
            if (c.has(n) && c.active()) {
                count++;
            }
        }
        return count;
    }

    Instant heldDeadline(SimulatedInvoice inv) {
        Duration d = heldHtlcLifetime;
        if (d == null) {
            d = BLOCK_INTERVAL.multipliedBy(inv.cltvExpiry);
        }
        return clock.now().plus(d);
    }

    void sweep() {
        lock.lock();
        try {
            Instant now = clock.now();
            for (SimulatedLnd n : nodes.values()) {
                n.expire(now);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Routes {@code p} from {@code payer} to {@code dest} over their direct channel and hands the HTLC to
     * the payee (lnd's findPath balance checks, then the exit hop's invoice checks).
     */
    void pay(SimulatedLnd payer, SimulatedPayment p, String dest, byte[] paymentAddr, long amtMsat, int finalCltvDelta) {
        long total = 0;
        for (SimulatedChannel c : channels) {
            if (c.has(payer) && c.active()) {
                total += c.local(payer);
            }
        }
        if (total < amtMsat) {
            fail(payer, p, LightningApi.PaymentFailureReason.FAILURE_REASON_INSUFFICIENT_BALANCE);
            return;
        }
        SimulatedLnd payee = byPubkey(dest);
        if (payee == null || payee == payer || !payee.isRunning()) {
            fail(payer, p, LightningApi.PaymentFailureReason.FAILURE_REASON_NO_ROUTE);
            return;
        }
        SimulatedChannel ch = channel(payer, payee);
        if (ch.local(payer) < amtMsat) {
            fail(payer, p, LightningApi.PaymentFailureReason.FAILURE_REASON_NO_ROUTE);
            return;
        }
        ch.add(payer, -amtMsat);
        int height = blockHeight();
        SimulatedPayment.Attempt a = new SimulatedPayment.Attempt();
        a.attemptId = p.paymentIndex;
        a.attemptTimeNs = nanos(clock.now());
        a.chanId = ch.chanId;
        a.chanCapacitySat = ch.capacitySat() + amtMsat / 1000;
        a.amtMsat = amtMsat;
        a.expiryHeight = height + finalCltvDelta;
        a.payeePubkey = payee.identityPubkey();
        a.paymentAddr = paymentAddr;
        p.attempt = a;
        payer.publish(p);

        SimulatedInvoice.Htlc htlc = new SimulatedInvoice.Htlc();
        htlc.channel = ch;
        htlc.payer = payer;
        htlc.payment = p;
        htlc.amtMsat = amtMsat;
        htlc.acceptHeight = height;
        htlc.acceptTime = clock.epochSeconds();
        htlc.expiryHeight = a.expiryHeight;
        try {
            byte[] preimage = payee.receiveHtlc(p.hash, paymentAddr, htlc);
            if (preimage != null) {
                resolve(htlc, preimage);
            }
        } catch (SimulatedLnd.HtlcRejected e) {
            resolve(htlc, null);
        }
    }

    /** Settles ({@code preimage} given) or fails back an HTLC and updates the payer's payment. */
    void resolve(SimulatedInvoice.Htlc htlc, byte[] preimage) {
        SimulatedPayment p = htlc.payment;
        SimulatedPayment.Attempt a = p.attempt;
        a.resolveTimeNs = nanos(clock.now());
        if (preimage != null) {
            htlc.channel.add(htlc.channel.other(htlc.payer), htlc.amtMsat);
            a.status = LightningApi.HTLCAttempt.HTLCStatus.SUCCEEDED;
            a.preimage = preimage.clone();
            p.preimage = preimage.clone();
            p.status = LightningApi.Payment.PaymentStatus.SUCCEEDED;
        } else {
            htlc.channel.add(htlc.payer, htlc.amtMsat);
            a.status = LightningApi.HTLCAttempt.HTLCStatus.FAILED;
            a.failedAtPayee = true;
            p.status = LightningApi.Payment.PaymentStatus.FAILED;
            p.failureReason = LightningApi.PaymentFailureReason.FAILURE_REASON_INCORRECT_PAYMENT_DETAILS;
        }
        htlc.payer.publish(p);
    }

    private void fail(SimulatedLnd payer, SimulatedPayment p, LightningApi.PaymentFailureReason reason) {
        p.status = LightningApi.Payment.PaymentStatus.FAILED;
        p.failureReason = reason;
        payer.publish(p);
    }

    static long nanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }
}
