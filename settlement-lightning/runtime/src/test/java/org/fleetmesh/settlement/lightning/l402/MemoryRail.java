package org.fleetmesh.settlement.lightning.l402;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.fleetmesh.settlement.lightning.bolt11.Bolt11;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11Exception;
import org.fleetmesh.settlement.lightning.bolt11.Network;
import org.fleetmesh.settlement.lightning.bolt11.NodeId;
import org.fleetmesh.settlement.lightning.bolt11.PaymentSecret;
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
 * A Lightning node in memory: {@link #invoice} signs real regtest BOLT-11 invoices with our codec on
 * the preimage's hash and remembers the preimage; {@link #pay} of one of its own invoices "settles" it
 * and returns that preimage, as a wallet paying us would learn it. Public and not final: the deployment
 * module's Quarkus tests subclass it as an application-scoped bean (through this module's test-jar).
 */
public class MemoryRail implements SettlementRail {
    private static final SecureRandom RANDOM = new SecureRandom();
    final byte[] nodeKey = new byte[32];
    final List<Invoice> issued = new CopyOnWriteArrayList<>();
    private final Map<PaymentHash, Preimage> preimages = new ConcurrentHashMap<>();
    volatile SettlementException failWith;
    /** Misbehave: issue the invoice on another hash. */
    volatile boolean wrongHash;

    public MemoryRail() {
        RANDOM.nextBytes(nodeKey);
        nodeKey[0] = 0x11; // far below the curve order
    }

    @Override
    public String id() {
        return "ln";
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.PREIMAGE_INVOICE, Capability.PAY, Capability.DECODE);
    }

    @Override
    public Invoice invoice(Preimage preimage, long amountMsat, String memo, Duration expiry) {
        if (failWith != null) {
            throw failWith;
        }
        PaymentHash hash = wrongHash ? Preimage.random().hash() : preimage.hash();
        long now = Instant.now().getEpochSecond();
        var bolt = org.fleetmesh.settlement.lightning.bolt11.Invoice.builder(Network.REGTEST,
                new org.fleetmesh.settlement.lightning.bolt11.PaymentHash(hash.toBytes()), new PaymentSecret(random32()),
                NodeId.fromSecretKey(nodeKey)).amountMsat(amountMsat).timestamp(now).expiry(expiry.toSeconds())
                .description(memo).build();
        String text = Bolt11.encode(bolt, nodeKey);
        preimages.put(preimage.hash(), preimage);
        Invoice invoice = new Invoice(id(), text, hash, amountMsat, Instant.ofEpochSecond(now + expiry.toSeconds()));
        issued.add(invoice);
        return invoice;
    }

    @Override
    public PaymentResult pay(String paymentRequest, long maxFeeMsat) {
        DecodedRequest d = decode(paymentRequest);
        Preimage p = preimages.get(d.paymentHash());
        if (p == null) {
            return PaymentResult.failed(SettlementException.Reason.NO_ROUTE, "not one of this node's invoices");
        }
        return PaymentResult.succeeded(p, 0);
    }

    @Override
    public DecodedRequest decode(String paymentRequest) {
        try {
            var inv = Bolt11.decode(paymentRequest);
            return new DecodedRequest(id(), new PaymentHash(inv.paymentHash().bytes()), inv.amountMsat().isPresent()
                    ? OptionalLong.of(inv.amountMsat().getAsLong()) : OptionalLong.empty(), inv.payee().hex(),
                    inv.description().orElse(""), Instant.ofEpochSecond(inv.expiresAt()));
        } catch (Bolt11Exception e) {
            throw new SettlementException(SettlementException.Reason.INVALID_REQUEST, e.getMessage(), e);
        }
    }

    @Override
    public Invoice holdInvoice(PaymentHash hash, long amountMsat, String memo, Duration expiry) {
        throw new SettlementException(SettlementException.Reason.UNSUPPORTED, "no hold invoices here");
    }

    @Override
    public void settle(Preimage preimage) {
        throw new SettlementException(SettlementException.Reason.UNSUPPORTED, "no hold invoices here");
    }

    @Override
    public void cancel(PaymentHash hash) {
        throw new SettlementException(SettlementException.Reason.UNSUPPORTED, "no hold invoices here");
    }

    @Override
    public void watch(PaymentHash hash, Consumer<InvoiceState> listener) {
        throw new SettlementException(SettlementException.Reason.UNSUPPORTED, "no watch here");
    }

    private static byte[] random32() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return b;
    }
}
