package org.fleetmesh.settlement.lightning.sim;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.lightningj.lnd.invoices.proto.InvoicesGrpc;
import org.lightningj.lnd.invoices.proto.InvoicesOuterClass;
import org.lightningj.lnd.proto.LightningApi;

/**
 * The simulated {@code invoicesrpc.Invoices} sub-server (lnd v0.17 lnrpc/invoicesrpc/invoices_server.go):
 * AddHoldInvoice, SettleInvoice, CancelInvoice, SubscribeSingleInvoice and LookupInvoiceV2 (by payment
 * hash or payment address; set ids are AMP and not simulated).
 */
final class SimulatedInvoicesService extends InvoicesGrpc.InvoicesImplBase {
    private final SimulatedLnd node;

    SimulatedInvoicesService(SimulatedLnd node) {
        this.node = node;
    }

    @Override
    public void addHoldInvoice(InvoicesOuterClass.AddHoldInvoiceRequest req,
            StreamObserver<InvoicesOuterClass.AddHoldInvoiceResp> obs) {
        SimulatedLightningService.run(obs, () -> {
            long valueMsat = LndErrors.amountMsat(req.getValue(), req.getValueMsat());
            byte[] hash = LndErrors.hash(req.getHash());
            SimulatedInvoice inv = SimulatedLightningService.create(node, hash, null, true, valueMsat, req.getMemo(),
                    req.getDescriptionHash(), req.getExpiry(), req.getCltvExpiry(), req.getFallbackAddr(),
                    req.getPrivate());
            return InvoicesOuterClass.AddHoldInvoiceResp.newBuilder()
                    .setPaymentRequest(inv.paymentRequest)
                    .setAddIndex(inv.addIndex)
                    .setPaymentAddr(ByteString.copyFrom(inv.paymentAddr))
                    .build();
        });
    }

    @Override
    public void settleInvoice(InvoicesOuterClass.SettleInvoiceMsg req,
            StreamObserver<InvoicesOuterClass.SettleInvoiceResp> obs) {
        SimulatedLightningService.run(obs, () -> {
            byte[] preimage = LndErrors.preimage(req.getPreimage());
            node.net.lock.lock();
            try {
                node.settleHold(preimage);
            } finally {
                node.net.lock.unlock();
            }
            return InvoicesOuterClass.SettleInvoiceResp.getDefaultInstance();
        });
    }

    @Override
    public void cancelInvoice(InvoicesOuterClass.CancelInvoiceMsg req,
            StreamObserver<InvoicesOuterClass.CancelInvoiceResp> obs) {
        SimulatedLightningService.run(obs, () -> {
            byte[] hash = LndErrors.hash(req.getPaymentHash());
            node.net.lock.lock();
            try {
                node.cancel(hash);
            } finally {
                node.net.lock.unlock();
            }
            return InvoicesOuterClass.CancelInvoiceResp.getDefaultInstance();
        });
    }

    @Override
    public void lookupInvoiceV2(InvoicesOuterClass.LookupInvoiceMsg req, StreamObserver<LightningApi.Invoice> obs) {
        SimulatedLightningService.run(obs, () -> {
            node.net.lock.lock();
            try {
                SimulatedInvoice inv;
                switch (req.getInvoiceRefCase()) {
                    case PAYMENT_HASH -> {
                        if (req.getPaymentHash().size() != 32) {
                            throw LndErrors.invalidArgument("unable to parse pay hash: invalid hash length of "
                                    + req.getPaymentHash().size() + ", want 32");
                        }
                        inv = node.invoice(req.getPaymentHash().toByteArray());
                    }
                    case PAYMENT_ADDR -> inv = node.invoiceByAddr(req.getPaymentAddr().toByteArray());
                    case SET_ID -> throw LndErrors.notSimulated("LookupInvoiceV2 by set_id (AMP)");
                    default -> throw LndErrors.invalidArgument("invoice ref must be set");
                }
                if (inv == null) {
                    throw LndErrors.notFound(LndErrors.INVOICE_NOT_FOUND);
                }
                return inv.toProto();
            } finally {
                node.net.lock.unlock();
            }
        });
    }

    @Override
    public void subscribeSingleInvoice(InvoicesOuterClass.SubscribeSingleInvoiceRequest req,
            StreamObserver<LightningApi.Invoice> obs) {
        byte[] hash;
        try {
            hash = LndErrors.hash(req.getRHash());
        } catch (StatusRuntimeException e) {
            obs.onError(e);
            return;
        }
        String key = HexFormat.of().formatHex(hash);
        SimulatedLightningNetwork net = node.net;
        net.lock.lock();
        try {
            @SuppressWarnings("unchecked")
            SimulatedStream<LightningApi.Invoice>[] holder = new SimulatedStream[1];
            SimulatedStream<LightningApi.Invoice> stream = new SimulatedStream<>(obs, () -> {
                net.lock.lock();
                try {
                    List<SimulatedStream<LightningApi.Invoice>> subs = node.singleInvoiceSubscribers.get(key);
                    if (subs != null) {
                        subs.remove(holder[0]);
                    }
                } finally {
                    net.lock.unlock();
                }
            });
            holder[0] = stream;
            SimulatedInvoice inv = node.invoice(hash);
            if (inv != null) {
                // lnd delivers the invoice's current state first, and ends the stream on a final state
                stream.send(inv.toProto());
                if (inv.isFinal()) {
                    stream.complete();
                    return;
                }
            }
            node.singleInvoiceSubscribers.computeIfAbsent(key, k -> new ArrayList<>()).add(stream);
        } finally {
            net.lock.unlock();
        }
    }
}
