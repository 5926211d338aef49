package org.fleetmesh.settlement.lightning.sim;

import com.google.protobuf.ByteString;
import java.time.Instant;
import org.lightningj.lnd.proto.LightningApi;

/**
 * One invoice in a simulated node's invoice registry. Mutated only under the network's lock. At most
 * one HTLC pays an invoice in the simulation (no MPP, no AMP).
 */
final class SimulatedInvoice {
    enum State { OPEN, SETTLED, CANCELED, ACCEPTED }

    /** The single HTLC that paid (or is paying) this invoice, with what the network needs to resolve it. */
    static final class Htlc {
        SimulatedChannel channel;
        SimulatedLnd payer;
        SimulatedPayment payment;
        long htlcIndex;
        long amtMsat;
        int acceptHeight;
        long acceptTime;
        long resolveTime;
        int expiryHeight;
        LightningApi.InvoiceHTLCState state = LightningApi.InvoiceHTLCState.ACCEPTED;
    }

    final byte[] hash;
    byte[] preimage;
    final boolean hold;
    final long valueMsat;
    final String memo;
    final byte[] descriptionHash;
    final long creationDate;
    final long expirySeconds;
    final long cltvExpiry;
    final String paymentRequest;
    final byte[] paymentAddr;
    final long addIndex;
    final boolean isPrivate;

    State state = State.OPEN;
    long settleIndex;
    long settleDate;
    long amtPaidMsat;
    Htlc htlc;
    Instant heldDeadline;

    SimulatedInvoice(byte[] hash, byte[] preimage, boolean hold, long valueMsat, String memo, byte[] descriptionHash,
            long creationDate, long expirySeconds, long cltvExpiry, String paymentRequest, byte[] paymentAddr,
            long addIndex, boolean isPrivate) {
        this.hash = hash;
        this.preimage = preimage;
        this.hold = hold;
        this.valueMsat = valueMsat;
        this.memo = memo;
        this.descriptionHash = descriptionHash;
        this.creationDate = creationDate;
        this.expirySeconds = expirySeconds;
        this.cltvExpiry = cltvExpiry;
        this.paymentRequest = paymentRequest;
        this.paymentAddr = paymentAddr;
        this.addIndex = addIndex;
        this.isPrivate = isPrivate;
    }

    boolean isFinal() {
        return state == State.SETTLED || state == State.CANCELED;
    }

    /** As invoicesrpc.CreateRPCInvoice marshals it. */
    LightningApi.Invoice toProto() {
        LightningApi.Invoice.Builder b = LightningApi.Invoice.newBuilder()
                .setMemo(memo)
                .setRHash(ByteString.copyFrom(hash))
                .setValue(valueMsat / 1000)
                .setValueMsat(valueMsat)
                .setSettled(state == State.SETTLED)
                .setCreationDate(creationDate)
                .setSettleDate(settleDate)
                .setPaymentRequest(paymentRequest)
                .setExpiry(expirySeconds)
                .setCltvExpiry(cltvExpiry)
                .setPrivate(isPrivate)
                .setAddIndex(addIndex)
                .setSettleIndex(settleIndex)
                .setAmtPaid(amtPaidMsat)
                .setAmtPaidSat(amtPaidMsat / 1000)
                .setAmtPaidMsat(amtPaidMsat)
                .setState(LightningApi.Invoice.InvoiceState.valueOf(state.name()))
                .setPaymentAddr(ByteString.copyFrom(paymentAddr))
                .putFeatures(9, feature("tlv-onion", false))
                .putFeatures(14, feature("payment-addr", true))
                .putFeatures(17, feature("multi-path-payments", false));
        if (preimage != null) {
            b.setRPreimage(ByteString.copyFrom(preimage));
        }
        if (descriptionHash != null) {
            b.setDescriptionHash(ByteString.copyFrom(descriptionHash));
        }
        if (htlc != null) {
            b.addHtlcs(LightningApi.InvoiceHTLC.newBuilder()
                    .setChanId(htlc.channel.chanId)
                    .setHtlcIndex(htlc.htlcIndex)
                    .setAmtMsat(htlc.amtMsat)
                    .setAcceptHeight(htlc.acceptHeight)
                    .setAcceptTime(htlc.acceptTime)
                    .setResolveTime(htlc.resolveTime)
                    .setExpiryHeight(htlc.expiryHeight)
                    .setState(htlc.state)
                    .setMppTotalAmtMsat(htlc.amtMsat));
        }
        return b.build();
    }

    static LightningApi.Feature feature(String name, boolean required) {
        return LightningApi.Feature.newBuilder().setName(name).setIsRequired(required).setIsKnown(true).build();
    }
}
