package org.fleetmesh.settlement.lightning.bolt12;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.lightning.bolt11.Features;
import org.fleetmesh.settlement.lightning.bolt11.NodeId;
import org.fleetmesh.settlement.lightning.bolt12.Bolt12Exception.Reason;

/**
 * A BOLT #12 {@code invoice_request} ({@code lnr}), immutable: the offer fields it copies, its own
 * {@code invreq_*} fields and its BIP-340 {@code signature} by {@code invreq_payer_id}.
 * {@link Bolt12#decode(String)} returns one only when it passed the reader's rules that need no offer
 * of ours, no chain list and no clock, the signature among them. {@link Bolt12Invoice#invoiceRequest()}
 * gives the same fields as copied into an invoice, unchecked and without a signature.
 */
public final class InvoiceRequest extends TlvMessage implements Bolt12Message {
    static final long METADATA = 0;
    static final long CHAIN = 80;
    static final long AMOUNT = 82;
    static final long FEATURES = 84;
    static final long QUANTITY = 86;
    static final long PAYER_ID = 88;
    static final long PAYER_NOTE = 89;
    static final long PATHS = 90;
    static final long BIP_353_NAME = 91;
    static final long SIGNATURE = 240;

    /** A BIP-353 human-readable name: {@code name@domain}. */
    public record Bip353Name(String name, String domain) {
    }

    private final Offer offer;
    private final Optional<byte[]> metadata;
    private final Optional<ChainHash> chain;
    private final OptionalLong amountMsat;
    private final Features features;
    private final OptionalLong quantity;
    private final Optional<NodeId> payerId;
    private final Optional<String> payerNote;
    private final Optional<List<BlindedPath>> paths;
    private final Optional<Bip353Name> bip353Name;
    private final Optional<byte[]> signature;

    private InvoiceRequest(List<Tlv> records, List<Tlv> unknownFields, Offer offer, Optional<byte[]> metadata,
            Optional<ChainHash> chain, OptionalLong amountMsat, Features features, OptionalLong quantity,
            Optional<NodeId> payerId, Optional<String> payerNote, Optional<List<BlindedPath>> paths,
            Optional<Bip353Name> bip353Name, Optional<byte[]> signature) {
        super("lnr", "invoice_request", records, unknownFields);
        this.offer = offer;
        this.metadata = metadata;
        this.chain = chain;
        this.amountMsat = amountMsat;
        this.features = features;
        this.quantity = quantity;
        this.payerId = payerId;
        this.payerNote = payerNote;
        this.paths = paths;
        this.bip353Name = bip353Name;
        this.signature = signature;
    }

    static boolean isKnown(long type) {
        return Offer.isKnown(type) || type == METADATA || type == CHAIN || type == AMOUNT || type == FEATURES
                || type == QUANTITY || type == PAYER_ID || type == PAYER_NOTE || type == PATHS || type == BIP_353_NAME
                || type == SIGNATURE;
    }

    /** The non-signature ranges an invoice request may use: 0..159 and 1000000000..2999999999. */
    static boolean inRequestRange(long type) {
        return (type >= 0 && type <= 159) || (type >= 1_000_000_000L && type <= 2_999_999_999L);
    }

    /** Reads the offer and {@code invreq_*} fields of {@code stream}; {@code unknown} are the stream's unknown records. */
    static InvoiceRequest read(List<Tlv> stream, List<Tlv> records, List<Tlv> unknown) throws Bolt12Exception {
        Offer offer = Offer.read(stream);
        Optional<byte[]> metadata = Optional.empty();
        Optional<ChainHash> chain = Optional.empty();
        OptionalLong amount = OptionalLong.empty();
        Features features = Features.NONE;
        OptionalLong quantity = OptionalLong.empty();
        Optional<NodeId> payerId = Optional.empty();
        Optional<String> payerNote = Optional.empty();
        Optional<List<BlindedPath>> paths = Optional.empty();
        Optional<Bip353Name> bip353 = Optional.empty();
        Optional<byte[]> signature = Optional.empty();
        for (Tlv tlv : stream) {
            if (tlv.type() < 0 || tlv.type() > SIGNATURE) {
                continue;
            }
            switch ((int) tlv.type()) {
                case (int) METADATA -> metadata = Optional.of(tlv.value());
                case (int) CHAIN -> chain = Optional.of(new ChainHash(Fields.fixed(tlv, "invreq_chain", 32)));
                case (int) AMOUNT -> amount = OptionalLong.of(Fields.tu64(tlv, "invreq_amount"));
                case (int) FEATURES -> features = Fields.features(tlv.unsafeValue());
                case (int) QUANTITY -> quantity = OptionalLong.of(Fields.tu64(tlv, "invreq_quantity"));
                case (int) PAYER_ID -> payerId = Optional.of(Fields.point(tlv, "invreq_payer_id"));
                case (int) PAYER_NOTE -> payerNote = Optional.of(Fields.utf8(tlv, "invreq_payer_note"));
                case (int) PATHS -> paths = Optional.of(Fields.blindedPaths(tlv, "invreq_paths"));
                case (int) BIP_353_NAME -> bip353 = Optional.of(bip353(tlv));
                case (int) SIGNATURE -> signature = Optional.of(Fields.fixed(tlv, "signature", 64));
                default -> {
                    // offer fields and unknown records are read elsewhere
                }
            }
        }
        return new InvoiceRequest(records, unknown, offer, metadata, chain, amount, features, quantity, payerId,
                payerNote, paths, bip353, signature);
    }

    private static Bip353Name bip353(Tlv tlv) throws Bolt12Exception {
        byte[] v = tlv.unsafeValue();
        if (v.length < 1 || v.length < 1 + (v[0] & 0xff) + 1) {
            throw new Bolt12Exception(Reason.INVALID_FIELD_LENGTH, "invreq_bip_353_name is cut short");
        }
        int nameLen = v[0] & 0xff;
        int domainLen = v[1 + nameLen] & 0xff;
        if (v.length != 2 + nameLen + domainLen) {
            throw new Bolt12Exception(Reason.INVALID_FIELD_LENGTH, "invreq_bip_353_name lengths do not add up");
        }
        for (int i = 0; i < v.length; i++) {
            if (i == 0 || i == 1 + nameLen) {
                continue;
            }
            int c = v[i] & 0xff;
            boolean ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                    || c == '-' || c == '_' || c == '.';
            if (!ok) {
                throw new Bolt12Exception(Reason.INVALID_FIELD, "invreq_bip_353_name holds byte " + c);
            }
        }
        return new Bip353Name(new String(v, 1, nameLen, StandardCharsets.US_ASCII),
                new String(v, 2 + nameLen, domainLen, StandardCharsets.US_ASCII));
    }

    /** The reader's rules that need no offer of ours, no chain list and no clock; the signature included. */
    void checkReaderRules() throws Bolt12Exception {
        if (payerId.isEmpty()) {
            throw new Bolt12Exception(Reason.MISSING_FIELD, "invreq_payer_id is not present");
        }
        if (metadata.isEmpty()) {
            throw new Bolt12Exception(Reason.MISSING_FIELD, "invreq_metadata is not present");
        }
        Fields.requireKnownEvenBits(features, "invreq_features");
        if (isForOffer()) {
            if (offer.quantityMax().isPresent()) {
                if (quantity.isEmpty()) {
                    throw new Bolt12Exception(Reason.MISSING_FIELD, "offer_quantity_max is set and invreq_quantity is not");
                }
                long max = offer.quantityMax().getAsLong();
                long q = quantity.getAsLong();
                if (max != 0 && (q == 0 || Long.compareUnsigned(q, max) > 0)) {
                    throw new Bolt12Exception(Reason.INVALID_FIELD, "invreq_quantity " + Long.toUnsignedString(q)
                            + " is not within 1.." + Long.toUnsignedString(max));
                }
            } else if (quantity.isPresent()) {
                throw new Bolt12Exception(Reason.INVALID_FIELD, "invreq_quantity is set and offer_quantity_max is not");
            }
            if (offer.amount().isEmpty() && amountMsat.isEmpty()) {
                throw new Bolt12Exception(Reason.MISSING_FIELD, "neither offer_amount nor invreq_amount is set");
            }
            if (offer.amount().isPresent() && offer.currency().isEmpty() && amountMsat.isPresent()) {
                BigInteger expected = new BigInteger(Long.toUnsignedString(offer.amount().getAsLong()))
                        .multiply(new BigInteger(Long.toUnsignedString(quantity.orElse(1))));
                if (new BigInteger(Long.toUnsignedString(amountMsat.getAsLong())).compareTo(expected) < 0) {
                    throw new Bolt12Exception(Reason.INVALID_FIELD, "invreq_amount is less than the expected " + expected);
                }
            }
        } else {
            if (offer.offerChains().isPresent() || !offer.features().bits().isEmpty()
                    || offer.records().stream().anyMatch(t -> t.type() == Offer.FEATURES)
                    || offer.quantityMax().isPresent()) {
                throw new Bolt12Exception(Reason.INVALID_FIELD,
                        "an invoice request without an offer carries offer_chains, offer_features or offer_quantity_max");
            }
            if (amountMsat.isEmpty()) {
                throw new Bolt12Exception(Reason.MISSING_FIELD, "an invoice request without an offer needs invreq_amount");
            }
        }
        if (signature.isEmpty()) {
            throw new Bolt12Exception(Reason.MISSING_SIGNATURE, "the invoice request is not signed");
        }
        if (!Merkle.verify(signature.get(), signedMessage(), payerId.get())) {
            throw new Bolt12Exception(Reason.INVALID_SIGNATURE, "signature does not verify against invreq_payer_id "
                    + payerId.get());
        }
    }

    /** Whether this answers an offer: {@code offer_issuer_id} or {@code offer_paths} is present. */
    public boolean isForOffer() {
        return offer.issuerId().isPresent() || offer.paths().isPresent();
    }

    /** The Merkle root of the non-signature records (BOLT #12 "Signature Calculation"). */
    public byte[] merkleRoot() {
        return Merkle.root(records());
    }

    /** H("lightninginvoice_requestsignature", merkle root): the 32 bytes {@code signature} signs. */
    public byte[] signedMessage() {
        return Merkle.signatureMessage("invoice_request", "signature", merkleRoot());
    }

    /** The offer fields copied into the request (not checked against the offer reader's rules). */
    public Offer offer() {
        return offer;
    }

    public Optional<byte[]> metadata() {
        return metadata.map(byte[]::clone);
    }

    /** {@code invreq_chain}; absent means bitcoin. */
    public Optional<ChainHash> chain() {
        return chain;
    }

    /** {@code invreq_amount} in msat (unsigned 64-bit). */
    public OptionalLong amountMsat() {
        return amountMsat;
    }

    public Features features() {
        return features;
    }

    public OptionalLong quantity() {
        return quantity;
    }

    public Optional<NodeId> payerId() {
        return payerId;
    }

    public Optional<String> payerNote() {
        return payerNote;
    }

    public Optional<List<BlindedPath>> paths() {
        return paths;
    }

    public Optional<Bip353Name> bip353Name() {
        return bip353Name;
    }

    /** The 64-byte BIP-340 {@code signature}, when present. */
    public Optional<byte[]> signature() {
        return signature.map(byte[]::clone);
    }

    @Override
    void putJsonBody(ObjectNode json) {
        putFields(json);
        signature.ifPresent(s -> json.put("signature", Hex.encode(s)));
    }

    /** The offer and {@code invreq_*} fields, shared with the invoice's JSON. */
    void putFields(ObjectNode json) {
        metadata.ifPresent(m -> json.put("invreq_metadata", Hex.encode(m)));
        offer.putFields(json);
        chain.ifPresent(c -> json.put("invreq_chain", c.name().orElse(c.hex())));
        Json.putUnsigned(json, "invreq_amount_msat", amountMsat);
        Json.putFeaturesIfAny(json, "invreq_features", features);
        Json.putUnsigned(json, "invreq_quantity", quantity);
        payerId.ifPresent(p -> json.put("invreq_payer_id", p.hex()));
        payerNote.ifPresent(n -> json.put("invreq_payer_note", n));
        paths.ifPresent(p -> Json.putPaths(json, "invreq_paths", p));
        bip353Name.ifPresent(b -> json.put("invreq_bip_353_name", b.name() + "@" + b.domain()));
    }

}
