package org.fleetmesh.settlement.lightning.sim;

import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.HexFormat;
import org.fleetmesh.settlement.lightning.bolt11.Invoice;
import org.lightningj.lnd.proto.LightningApi;
import org.lightningj.lnd.router.proto.RouterGrpc;
import org.lightningj.lnd.router.proto.RouterOuterClass;

/**
 * The simulated {@code routerrpc.Router} sub-server: SendPaymentV2 and TrackPaymentV2, after lnd v0.17's
 * lnrpc/routerrpc/router_server.go and router_backend.go (extractIntentFromSendRequest) and the
 * control tower's InitPayment rules. Only payments with a payment_request are simulated.
 */
final class SimulatedRouterService extends RouterGrpc.RouterImplBase {
    private final SimulatedLnd node;

    SimulatedRouterService(SimulatedLnd node) {
        this.node = node;
    }

    @Override
    public void sendPaymentV2(RouterOuterClass.SendPaymentRequest req, StreamObserver<LightningApi.Payment> obs) {
        try {
            send(req, obs);
        } catch (StatusRuntimeException e) {
            obs.onError(e);
        }
    }

    private void send(RouterOuterClass.SendPaymentRequest req, StreamObserver<LightningApi.Payment> obs) {
        if (req.getAmp()) {
            throw LndErrors.notSimulated("AMP payments");
        }
        if (req.getOutgoingChanId() != 0 && req.getOutgoingChanIdsCount() > 0) {
            throw LndErrors.unknown("outgoing_chan_id and outgoing_chan_ids are mutually exclusive");
        }
        LndErrors.amountMsat(req.getFeeLimitSat(), req.getFeeLimitMsat());
        if (req.getTimeoutSeconds() == 0) {
            throw LndErrors.unknown("timeout_seconds must be specified");
        }
        long reqAmt = LndErrors.amountMsat(req.getAmt(), req.getAmtMsat());
        if (req.getPaymentRequest().isEmpty()) {
            throw LndErrors.notSimulated("SendPaymentV2 without payment_request (keysend, dest + payment_hash)");
        }
        if (!req.getDest().isEmpty()) {
            throw LndErrors.unknown("dest and payment_request cannot appear together");
        }
        if (!req.getPaymentHash().isEmpty()) {
            throw LndErrors.unknown("payment_hash and payment_request cannot appear together");
        }
        if (req.getFinalCltvDelta() != 0) {
            throw LndErrors.unknown("final_cltv_delta and payment_request cannot appear together");
        }
        Invoice inv = SimulatedLightningService.decode(req.getPaymentRequest());
        SimulatedLightningNetwork net = node.net;
        long validUntil = inv.timestamp() + inv.expiry();
        if (net.clock().epochSeconds() > validUntil) {
            throw LndErrors.unknown("invoice expired. Valid until " + SimulatedLightningService.goTime(validUntil));
        }
        long amtMsat;
        if (inv.amountMsat().isEmpty()) {
            if (reqAmt == 0) {
                throw LndErrors.unknown("amount must be specified when paying a zero amount invoice");
            }
            amtMsat = reqAmt;
        } else {
            if (reqAmt != 0) {
                // sic: two spaces, as in lnd
                throw LndErrors.unknown("amount must not be specified when paying a non-zero  amount invoice");
            }
            amtMsat = inv.amountMsat().getAsLong();
        }
        if (!req.getAllowSelfPayment() && inv.payee().equals(node.nodeId())) {
            throw LndErrors.unknown("self-payments not allowed");
        }
        byte[] hash = inv.paymentHash().bytes();
        String key = HexFormat.of().formatHex(hash);

        net.lock.lock();
        try {
            SimulatedPayment existing = node.payments.get(key);
            if (existing != null) {
                switch (existing.status) {
                    case SUCCEEDED -> throw LndErrors.unknown(LndErrors.ALREADY_PAID);
                    case IN_FLIGHT -> throw LndErrors.unknown(LndErrors.PAYMENT_IN_FLIGHT);
                    default -> {
                        // a failed payment may be retried
                    }
                }
            }
            SimulatedPayment p = new SimulatedPayment(hash, amtMsat, req.getPaymentRequest(),
                    SimulatedLightningNetwork.nanos(net.clock().now()), ++node.lastPaymentIndex);
            node.payments.put(key, p);
            subscribe(p, obs, req.getNoInflightUpdates());
            net.pay(node, p, inv.payee().hex(), inv.paymentSecret().bytes(), amtMsat, inv.minFinalCltvExpiryDelta());
        } finally {
            net.lock.unlock();
        }
    }

    /** Registers a subscriber and sends the payment's current state (as the control tower does). */
    private void subscribe(SimulatedPayment p, StreamObserver<LightningApi.Payment> obs, boolean noInflight) {
        SimulatedLightningNetwork net = node.net;
        SimulatedPayment.Subscriber[] holder = new SimulatedPayment.Subscriber[1];
        SimulatedStream<LightningApi.Payment> stream = new SimulatedStream<>(obs, () -> {
            net.lock.lock();
            try {
                p.subscribers.remove(holder[0]);
            } finally {
                net.lock.unlock();
            }
        });
        SimulatedPayment.Subscriber sub = new SimulatedPayment.Subscriber(stream, noInflight);
        holder[0] = sub;
        if (!(noInflight && p.status == LightningApi.Payment.PaymentStatus.IN_FLIGHT)) {
            stream.send(p.toProto());
        }
        if (p.isFinal()) {
            stream.complete();
        } else {
            p.subscribers.add(sub);
        }
    }

    @Override
    public void trackPaymentV2(RouterOuterClass.TrackPaymentRequest req, StreamObserver<LightningApi.Payment> obs) {
        try {
            byte[] hash = LndErrors.hash(req.getPaymentHash());
            node.net.lock.lock();
            try {
                SimulatedPayment p = node.payments.get(HexFormat.of().formatHex(hash));
                if (p == null) {
                    throw LndErrors.notFound(LndErrors.PAYMENT_NOT_INITIATED);
                }
                subscribe(p, obs, req.getNoInflightUpdates());
            } finally {
                node.net.lock.unlock();
            }
        } catch (StatusRuntimeException e) {
            obs.onError(e);
        }
    }
}
