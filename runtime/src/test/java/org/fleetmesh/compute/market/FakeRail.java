package org.fleetmesh.compute.market;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.fleetmesh.spi.settlement.Capability;
import org.fleetmesh.spi.settlement.DecodedRequest;
import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.InvoiceState;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementRail;

/**
 * A hold-invoice rail in memory, payee and payer at once: paying locks the payment in (ACCEPTED, told to the watch),
 * which is where the payee settles or not; pay then reports what happened. Counts pays per hash.
 */
final class FakeRail implements SettlementRail {
    static final class Held {
        final long amount;
        final Instant expires;
        volatile InvoiceState state = InvoiceState.OPEN;
        volatile Consumer<InvoiceState> watcher = s -> { };
        volatile Preimage preimage;

        Held(long amount, Instant expires) {
            this.amount = amount;
            this.expires = expires;
        }
    }

    final Map<PaymentHash, Held> held = new ConcurrentHashMap<>();
    final Map<PaymentHash, AtomicInteger> pays = new ConcurrentHashMap<>();
    final AtomicInteger lockedIn = new AtomicInteger();
    private final String id;
    /** Starts this rail's invoices; another rail's invoices do not decode here. */
    private final String prefix;

    FakeRail() {
        this("ln", "lnfake");
    }

    FakeRail(String id, String prefix) {
        this.id = id;
        this.prefix = prefix;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public Set<Capability> capabilities() {
        return Set.of(Capability.HOLD_INVOICE, Capability.PAY, Capability.DECODE);
    }

    @Override
    public Invoice invoice(Preimage preimage, long amountMsat, String memo, Duration expiry) {
        // not among capabilities(): the SPI's answer for a call a rail does not serve
        throw new SettlementException(SettlementException.Reason.UNSUPPORTED, "this rail only holds invoices");
    }

    @Override
    public Invoice holdInvoice(PaymentHash hash, long amountMsat, String memo, Duration expiry) {
        Instant exp = Instant.now().plus(expiry);
        if (held.putIfAbsent(hash, new Held(amountMsat, exp)) != null) {
            throw new SettlementException(SettlementException.Reason.DUPLICATE_PAYMENT_HASH, "exists");
        }
        return new Invoice(id, prefix + hash.hex() + "x" + amountMsat, hash, amountMsat, exp);
    }

    @Override
    public void settle(Preimage preimage) {
        Held h = held.get(preimage.hash());
        if (h.state == InvoiceState.SETTLED) {
            return;
        }
        if (h.state != InvoiceState.ACCEPTED) {
            throw new SettlementException(SettlementException.Reason.NOT_ACCEPTED, "not accepted");
        }
        h.preimage = preimage;
        h.state = InvoiceState.SETTLED;
        h.watcher.accept(InvoiceState.SETTLED);
    }

    @Override
    public void cancel(PaymentHash hash) {
        Held h = held.get(hash);
        if (h != null && !h.state.isFinal()) {
            h.state = InvoiceState.CANCELED;
            h.watcher.accept(InvoiceState.CANCELED);
        }
    }

    /** The invoice's time runs out: an accepted payment fails back. */
    void expire(PaymentHash hash) {
        Held h = held.get(hash);
        if (h != null && !h.state.isFinal()) {
            h.state = InvoiceState.EXPIRED;
            h.watcher.accept(InvoiceState.EXPIRED);
        }
    }

    @Override
    public void watch(PaymentHash hash, Consumer<InvoiceState> listener) {
        Held h = held.get(hash);
        h.watcher = listener;
        listener.accept(h.state);
    }

    @Override
    public PaymentResult pay(String paymentRequest, long maxFeeMsat) {
        DecodedRequest d = decode(paymentRequest);
        pays.computeIfAbsent(d.paymentHash(), x -> new AtomicInteger()).incrementAndGet();
        Held h = held.get(d.paymentHash());
        synchronized (h) {
            if (h.state == InvoiceState.OPEN) {
                h.state = InvoiceState.ACCEPTED;
                lockedIn.incrementAndGet();
                h.watcher.accept(InvoiceState.ACCEPTED);
            }
        }
        return switch (h.state) {
            case SETTLED -> PaymentResult.succeeded(h.preimage, 0);
            case CANCELED, EXPIRED -> PaymentResult.failed(SettlementException.Reason.EXPIRED, "HTLC failed back");
            default -> PaymentResult.pending("held");
        };
    }

    @Override
    public DecodedRequest decode(String paymentRequest) {
        if (!paymentRequest.startsWith(prefix)) {
            throw new SettlementException(SettlementException.Reason.INVALID_REQUEST, "not a fake invoice of " + id);
        }
        String[] p = paymentRequest.substring(prefix.length()).split("x");
        PaymentHash hash = PaymentHash.ofHex(p[0]);
        Held h = held.get(hash);
        return new DecodedRequest(id, hash, OptionalLong.of(Long.parseLong(p[1])), "payee", "",
                h == null ? Instant.now() : h.expires);
    }

    int pays(PaymentHash h) {
        AtomicInteger n = pays.get(h);
        return n == null ? 0 : n.get();
    }
}
