package org.fleetmesh.settlement.lightning.bolt12;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.lightning.bolt11.Features;
import org.fleetmesh.settlement.lightning.bolt11.NodeId;
import org.fleetmesh.settlement.lightning.bolt11.PaymentHash;
import org.fleetmesh.settlement.lightning.bolt12.Bolt12Exception.Reason;

/**
 * A BOLT #12 {@code invoice} ({@code lni}), immutable: the invoice request fields it copies, its own
 * {@code invoice_*} fields and the BIP-340 {@code signature} by {@code invoice_node_id}.
 * {@link Bolt12#decode(String)} returns one only when it passed the reader's rules that need neither the
 * invoice request we sent, nor a chain list, nor a clock ({@link #isExpired(Instant)}), nor the path it
 * arrived on. Paying it is outside this decoder (and outside LND 0.18/0.19 without LNDK).
 */
public final class Bolt12Invoice extends TlvMessage implements Bolt12Message {
    static final long PATHS = 160;
    static final long BLINDEDPAY = 162;
    static final long CREATED_AT = 164;
    static final long RELATIVE_EXPIRY = 166;
    static final long PAYMENT_HASH = 168;
    static final long AMOUNT = 170;
    static final long FALLBACKS = 172;
    static final long FEATURES = 174;
    static final long NODE_ID = 176;

    /** {@code invoice_features} bits: multi-part payment, compulsory and optional. */
    public static final int MPP_COMPULSORY = 16;
    public static final int MPP_OPTIONAL = 17;
    /** Seconds after {@code invoice_created_at} the invoice expires when {@code invoice_relative_expiry} is absent. */
    public static final long DEFAULT_RELATIVE_EXPIRY = 7200;

    private final InvoiceRequest invoiceRequest;
    private final List<BlindedPath> paths;
    private final List<BlindedPayInfo> blindedPay;
    private final OptionalLong createdAt;
    private final OptionalLong relativeExpiry;
    private final Optional<PaymentHash> paymentHash;
    private final OptionalLong amountMsat;
    private final List<FallbackAddress> fallbacks;
    private final Features features;
    private final Optional<NodeId> nodeId;
    private final boolean hasPaths;
    private final boolean hasBlindedPay;

    private Bolt12Invoice(List<Tlv> records, List<Tlv> unknownFields, InvoiceRequest invoiceRequest,
            List<BlindedPath> paths, boolean hasPaths, List<BlindedPayInfo> blindedPay, boolean hasBlindedPay,
            OptionalLong createdAt, OptionalLong relativeExpiry, Optional<PaymentHash> paymentHash,
            OptionalLong amountMsat, List<FallbackAddress> fallbacks, Features features, Optional<NodeId> nodeId) {
        super("lni", "invoice", records, unknownFields);
        this.invoiceRequest = invoiceRequest;
        this.paths = paths;
        this.hasPaths = hasPaths;
        this.blindedPay = blindedPay;
        this.hasBlindedPay = hasBlindedPay;
        this.createdAt = createdAt;
        this.relativeExpiry = relativeExpiry;
        this.paymentHash = paymentHash;
        this.amountMsat = amountMsat;
        this.fallbacks = fallbacks;
        this.features = features;
        this.nodeId = nodeId;
    }

    static boolean isKnown(long type) {
        return InvoiceRequest.isKnown(type) || (type >= PATHS && type <= NODE_ID && (type & 1) == 0);
    }

    static Bolt12Invoice read(List<Tlv> stream, List<Tlv> unknown) throws Bolt12Exception {
        List<Tlv> requestPart = stream.stream()
                .filter(t -> InvoiceRequest.inRequestRange(t.type()) && t.type() != InvoiceRequest.SIGNATURE)
                .toList();
        InvoiceRequest request = InvoiceRequest.read(requestPart, requestPart,
                unknown.stream().filter(requestPart::contains).toList());
        List<BlindedPath> paths = List.of();
        boolean hasPaths = false;
        List<BlindedPayInfo> pay = List.of();
        boolean hasPay = false;
        OptionalLong createdAt = OptionalLong.empty();
        OptionalLong relativeExpiry = OptionalLong.empty();
        Optional<PaymentHash> hash = Optional.empty();
        OptionalLong amount = OptionalLong.empty();
        List<FallbackAddress> fallbacks = List.of();
        Features features = Features.NONE;
        Optional<NodeId> nodeId = Optional.empty();
        for (Tlv tlv : stream) {
            if (tlv.type() < PATHS || tlv.type() > NODE_ID) {
                continue;
            }
            switch ((int) tlv.type()) {
                case (int) PATHS -> {
                    paths = Fields.blindedPaths(tlv, "invoice_paths");
                    hasPaths = true;
                }
                case (int) BLINDEDPAY -> {
                    pay = Fields.payInfos(tlv, "invoice_blindedpay");
                    hasPay = true;
                }
                case (int) CREATED_AT -> createdAt = OptionalLong.of(Fields.tu64(tlv, "invoice_created_at"));
                case (int) RELATIVE_EXPIRY ->
                    relativeExpiry = OptionalLong.of(Fields.truncatedInt(tlv, "invoice_relative_expiry", 4));
                case (int) PAYMENT_HASH -> hash = Optional.of(new PaymentHash(Fields.fixed(tlv, "invoice_payment_hash", 32)));
                case (int) AMOUNT -> amount = OptionalLong.of(Fields.tu64(tlv, "invoice_amount"));
                case (int) FALLBACKS -> fallbacks = Fields.fallbacks(tlv, "invoice_fallbacks");
                case (int) FEATURES -> features = Fields.features(tlv.unsafeValue());
                case (int) NODE_ID -> nodeId = Optional.of(Fields.point(tlv, "invoice_node_id"));
                default -> {
                    // unknown odd records are kept in unknownFields
                }
            }
        }
        return new Bolt12Invoice(stream, unknown, request, paths, hasPaths, pay, hasPay, createdAt, relativeExpiry,
                hash, amount, fallbacks, features, nodeId);
    }

    /** The reader's rules that need no invoice request of ours, no chain list, no clock and no arrival path. */
    void checkReaderRules() throws Bolt12Exception {
        if (amountMsat.isEmpty()) {
            throw new Bolt12Exception(Reason.MISSING_FIELD, "invoice_amount is not present");
        }
        if (createdAt.isEmpty()) {
            throw new Bolt12Exception(Reason.MISSING_FIELD, "invoice_created_at is not present");
        }
        if (paymentHash.isEmpty()) {
            throw new Bolt12Exception(Reason.MISSING_FIELD, "invoice_payment_hash is not present");
        }
        if (nodeId.isEmpty()) {
            throw new Bolt12Exception(Reason.MISSING_FIELD, "invoice_node_id is not present");
        }
        Fields.requireKnownEvenBits(features, "invoice_features", MPP_COMPULSORY);
        if (!hasPaths || paths.isEmpty()) {
            throw new Bolt12Exception(Reason.MISSING_FIELD, "invoice_paths is not present or is empty");
        }
        if (!hasBlindedPay) {
            throw new Bolt12Exception(Reason.MISSING_FIELD, "invoice_blindedpay is not present");
        }
        if (blindedPay.size() != paths.size()) {
            throw new Bolt12Exception(Reason.BLINDEDPAY_MISMATCH, blindedPay.size() + " blinded_payinfo for "
                    + paths.size() + " invoice_paths");
        }
        if (usablePaths().isEmpty()) {
            throw new Bolt12Exception(Reason.NO_USABLE_PATH, "every blinded_payinfo sets an unknown even feature");
        }
        Optional<NodeId> issuer = invoiceRequest.offer().issuerId();
        if (issuer.isPresent() && !issuer.get().equals(nodeId.get())) {
            throw new Bolt12Exception(Reason.INVALID_FIELD, "invoice_node_id is not offer_issuer_id");
        }
        if (invoiceRequest.amountMsat().isPresent() && invoiceRequest.amountMsat().getAsLong() != amountMsat.getAsLong()) {
            throw new Bolt12Exception(Reason.INVALID_FIELD, "invoice_amount is not invreq_amount");
        }
        Optional<byte[]> sig = signature();
        if (sig.isEmpty()) {
            throw new Bolt12Exception(Reason.MISSING_SIGNATURE, "the invoice is not signed");
        }
        if (sig.get().length != 64) {
            throw new Bolt12Exception(Reason.INVALID_FIELD_LENGTH, "signature is " + sig.get().length + " bytes, not 64");
        }
        if (!Merkle.verify(sig.get(), signedMessage(), nodeId.get())) {
            throw new Bolt12Exception(Reason.INVALID_SIGNATURE, "signature does not verify against invoice_node_id "
                    + nodeId.get());
        }
    }

    /** The paths whose {@code blinded_payinfo} sets no unknown even feature, in the invoice's order of preference. */
    public List<BlindedPath> usablePaths() {
        return java.util.stream.IntStream.range(0, Math.min(paths.size(), blindedPay.size()))
                .filter(i -> Fields.firstUnknownEvenBit(blindedPay.get(i).features()) < 0)
                .mapToObj(paths::get)
                .toList();
    }

    public byte[] merkleRoot() {
        return Merkle.root(records());
    }

    /** H("lightninginvoicesignature", merkle root): the 32 bytes {@code signature} signs. */
    public byte[] signedMessage() {
        return Merkle.signatureMessage("invoice", "signature", merkleRoot());
    }

    /** Whether {@code now} is past {@code invoice_created_at} plus the relative expiry (7200 s by default). */
    public boolean isExpired(Instant now) {
        long created = createdAt.orElseThrow();
        long expiry = relativeExpiry.orElse(DEFAULT_RELATIVE_EXPIRY);
        return Long.compareUnsigned(now.getEpochSecond(), created + expiry) > 0;
    }

    /** The invoice request fields copied into the invoice (without its signature; not checked on their own). */
    public InvoiceRequest invoiceRequest() {
        return invoiceRequest;
    }

    /** The offer fields copied into the invoice. */
    public Offer offer() {
        return invoiceRequest.offer();
    }

    public List<BlindedPath> paths() {
        return paths;
    }

    public List<BlindedPayInfo> blindedPay() {
        return blindedPay;
    }

    /** {@code invoice_created_at}, seconds since 1970-01-01 UTC. */
    public long createdAt() {
        return createdAt.orElseThrow();
    }

    public OptionalLong relativeExpiry() {
        return relativeExpiry;
    }

    public PaymentHash paymentHash() {
        return paymentHash.orElseThrow();
    }

    /** {@code invoice_amount} in msat (unsigned 64-bit). */
    public long amountMsat() {
        return amountMsat.orElseThrow();
    }

    public List<FallbackAddress> fallbacks() {
        return fallbacks;
    }

    public Features features() {
        return features;
    }

    public NodeId nodeId() {
        return nodeId.orElseThrow();
    }

    public Optional<byte[]> signature() {
        return records().stream().filter(t -> t.type() == InvoiceRequest.SIGNATURE).findFirst().map(Tlv::value);
    }

    @Override
    void putJsonBody(ObjectNode json) {
        invoiceRequest.putFields(json);
        Json.putPaths(json, "invoice_paths", paths);
        ArrayNode pay = json.putArray("invoice_blindedpay");
        for (BlindedPayInfo p : blindedPay) {
            ObjectNode o = pay.addObject()
                    .put("fee_base_msat", p.feeBaseMsat())
                    .put("fee_proportional_millionths", p.feeProportionalMillionths())
                    .put("cltv_expiry_delta", p.cltvExpiryDelta());
            Json.putUnsigned(o, "htlc_minimum_msat", p.htlcMinimumMsat());
            Json.putUnsigned(o, "htlc_maximum_msat", p.htlcMaximumMsat());
            Json.putFeatures(o, "features", p.features());
        }
        Json.putUnsigned(json, "invoice_created_at", createdAt);
        relativeExpiry.ifPresent(r -> json.put("invoice_relative_expiry", r));
        paymentHash.ifPresent(h -> json.put("invoice_payment_hash", h.hex()));
        Json.putUnsigned(json, "invoice_amount_msat", amountMsat);
        if (!fallbacks.isEmpty()) {
            ArrayNode f = json.putArray("invoice_fallbacks");
            fallbacks.forEach(fb -> f.addObject().put("version", fb.version()).put("address", Hex.encode(fb.address())));
        }
        Json.putFeaturesIfAny(json, "invoice_features", features);
        nodeId.ifPresent(n -> json.put("invoice_node_id", n.hex()));
        signature().ifPresent(s -> json.put("signature", Hex.encode(s)));
    }

}
