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
import org.fleetmesh.settlement.lightning.bolt12.Bolt12Exception.Reason;

/**
 * The offer fields of BOLT #12 (types 1 to 79 and 1000000000 to 1999999999), immutable. Returned by
 * {@link Bolt12#decodeOffer(String)} for an {@code lno} string, which has passed every "reader of an
 * offer MUST NOT respond" rule that does not depend on the reader's chains or clock; the chain check
 * is {@link #chains()} against what the reader accepts, the clock check {@link #isExpired(Instant)}.
 * {@link InvoiceRequest#offer()} and {@link Bolt12Invoice#offer()} give the same fields as copied into
 * those messages, where the offer reader's rules are not applied.
 *
 * <p>Paying or answering an offer is outside this decoder. LND 0.18 and 0.19 can neither pay nor create
 * BOLT #12 offers natively (no offer RPC, no onion-message invoice request); with LND as the node that
 * needs LNDK (the Lightning Development Kit based daemon run beside LND), so this rail only decodes them.
 */
public final class Offer extends TlvMessage implements Bolt12Message {
    static final long CHAINS = 2;
    static final long METADATA = 4;
    static final long CURRENCY = 6;
    static final long AMOUNT = 8;
    static final long DESCRIPTION = 10;
    static final long FEATURES = 12;
    static final long ABSOLUTE_EXPIRY = 14;
    static final long PATHS = 16;
    static final long ISSUER = 18;
    static final long QUANTITY_MAX = 20;
    static final long ISSUER_ID = 22;

    private final Optional<List<ChainHash>> offerChains;
    private final Optional<byte[]> metadata;
    private final Optional<String> currency;
    private final OptionalLong amount;
    private final Optional<String> description;
    private final Features features;
    private final OptionalLong absoluteExpiry;
    private final Optional<List<BlindedPath>> paths;
    private final Optional<String> issuer;
    private final OptionalLong quantityMax;
    private final Optional<NodeId> issuerId;

    private Offer(List<Tlv> records, List<Tlv> unknownFields, Optional<List<ChainHash>> offerChains,
            Optional<byte[]> metadata, Optional<String> currency, OptionalLong amount, Optional<String> description,
            Features features, OptionalLong absoluteExpiry, Optional<List<BlindedPath>> paths, Optional<String> issuer,
            OptionalLong quantityMax, Optional<NodeId> issuerId) {
        super("lno", "offer", records, unknownFields);
        this.offerChains = offerChains;
        this.metadata = metadata;
        this.currency = currency;
        this.amount = amount;
        this.description = description;
        this.features = features;
        this.absoluteExpiry = absoluteExpiry;
        this.paths = paths;
        this.issuer = issuer;
        this.quantityMax = quantityMax;
        this.issuerId = issuerId;
    }

    /** Whether a type is in one of the two offer ranges, 1..79 and 1000000000..1999999999. */
    static boolean inOfferRange(long type) {
        return (type >= 1 && type <= 79) || (type >= 1_000_000_000L && type <= 1_999_999_999L);
    }

    static boolean isKnown(long type) {
        return type >= CHAINS && type <= ISSUER_ID && (type & 1) == 0;
    }

    /** Reads the offer fields among {@code stream} (records outside the offer ranges are left to the caller). */
    static Offer read(List<Tlv> stream) throws Bolt12Exception {
        List<Tlv> mine = stream.stream().filter(t -> inOfferRange(t.type())).toList();
        List<Tlv> unknown = mine.stream().filter(t -> !isKnown(t.type())).toList();
        Optional<List<ChainHash>> chains = Optional.empty();
        Optional<byte[]> metadata = Optional.empty();
        Optional<String> currency = Optional.empty();
        OptionalLong amount = OptionalLong.empty();
        Optional<String> description = Optional.empty();
        Features features = Features.NONE;
        OptionalLong expiry = OptionalLong.empty();
        Optional<List<BlindedPath>> paths = Optional.empty();
        Optional<String> issuer = Optional.empty();
        OptionalLong quantityMax = OptionalLong.empty();
        Optional<NodeId> issuerId = Optional.empty();
        for (Tlv tlv : mine) {
            switch ((int) tlv.type()) {
                case (int) CHAINS -> chains = Optional.of(Fields.chains(tlv, "offer_chains"));
                case (int) METADATA -> metadata = Optional.of(tlv.value());
                case (int) CURRENCY -> currency = Optional.of(Fields.utf8(tlv, "offer_currency"));
                case (int) AMOUNT -> amount = OptionalLong.of(Fields.tu64(tlv, "offer_amount"));
                case (int) DESCRIPTION -> description = Optional.of(Fields.utf8(tlv, "offer_description"));
                case (int) FEATURES -> features = Fields.features(tlv.unsafeValue());
                case (int) ABSOLUTE_EXPIRY -> expiry = OptionalLong.of(Fields.tu64(tlv, "offer_absolute_expiry"));
                case (int) PATHS -> paths = Optional.of(Fields.blindedPaths(tlv, "offer_paths"));
                case (int) ISSUER -> issuer = Optional.of(Fields.utf8(tlv, "offer_issuer"));
                case (int) QUANTITY_MAX -> quantityMax = OptionalLong.of(Fields.tu64(tlv, "offer_quantity_max"));
                case (int) ISSUER_ID -> issuerId = Optional.of(Fields.point(tlv, "offer_issuer_id"));
                default -> {
                    // unknown: kept in unknownFields; an unknown even type was refused by the caller
                }
            }
        }
        return new Offer(mine, unknown, chains, metadata, currency, amount, description, features, expiry, paths,
                issuer, quantityMax, issuerId);
    }

    /** The "reader of an offer" rules that need neither the reader's chains nor a clock. */
    void checkReaderRules() throws Bolt12Exception {
        Fields.requireKnownEvenBits(features, "offer_features");
        if (amount.isPresent() && description.isEmpty()) {
            throw new Bolt12Exception(Reason.AMOUNT_WITHOUT_DESCRIPTION, "offer_amount is set and offer_description is not");
        }
        if (amount.isPresent() && amount.getAsLong() == 0) {
            throw new Bolt12Exception(Reason.ZERO_AMOUNT, "offer_amount is not greater than zero");
        }
        if (currency.isPresent() && amount.isEmpty()) {
            throw new Bolt12Exception(Reason.CURRENCY_WITHOUT_AMOUNT, "offer_currency is set and offer_amount is not");
        }
        if (issuerId.isEmpty() && paths.isEmpty()) {
            throw new Bolt12Exception(Reason.NO_ISSUER_ID_OR_PATHS, "neither offer_issuer_id nor offer_paths is set");
        }
    }

    /** {@code offer_chains} as written; absent means bitcoin only. */
    public Optional<List<ChainHash>> offerChains() {
        return offerChains;
    }

    /** The chains the offer is valid for: {@code offer_chains}, or bitcoin alone when it is absent. */
    public List<ChainHash> chains() {
        return offerChains.orElse(List.of(ChainHash.BITCOIN));
    }

    public Optional<byte[]> metadata() {
        return metadata.map(byte[]::clone);
    }

    /** {@code offer_currency}: an ISO 4217 code; absent means {@link #amount()} is in the chain's msat. */
    public Optional<String> currency() {
        return currency;
    }

    /** {@code offer_amount}, an unsigned 64-bit number: msat, or the currency's minor units when {@link #currency()} is set. */
    public OptionalLong amount() {
        return amount;
    }

    public Optional<String> description() {
        return description;
    }

    /** {@code offer_features} ({@link Features#NONE} when absent). */
    public Features features() {
        return features;
    }

    /** {@code offer_absolute_expiry}: seconds since 1970-01-01 UTC. */
    public OptionalLong absoluteExpiry() {
        return absoluteExpiry;
    }

    /** "if the current time is after offer_absolute_expiry: MUST NOT respond to the offer". */
    public boolean isExpired(Instant now) {
        return absoluteExpiry.isPresent() && Long.compareUnsigned(now.getEpochSecond(), absoluteExpiry.getAsLong()) > 0;
    }

    /** {@code offer_paths}, when set. */
    public Optional<List<BlindedPath>> paths() {
        return paths;
    }

    public Optional<String> issuer() {
        return issuer;
    }

    /** {@code offer_quantity_max}: 0 means no known maximum; absent means one item per invoice. */
    public OptionalLong quantityMax() {
        return quantityMax;
    }

    public Optional<NodeId> issuerId() {
        return issuerId;
    }

    @Override
    void putJsonBody(ObjectNode json) {
        putFields(json);
    }

    /** The offer fields, shared by the three messages' JSON. */
    void putFields(ObjectNode json) {
        offerChains.ifPresent(list -> {
            ArrayNode array = json.putArray("offer_chains");
            list.forEach(c -> array.add(c.name().orElse(c.hex())));
        });
        metadata.ifPresent(m -> json.put("offer_metadata", Hex.encode(m)));
        currency.ifPresent(c -> json.put("offer_currency", c));
        Json.putUnsigned(json, currency.isPresent() ? "offer_amount" : "offer_amount_msat", amount);
        description.ifPresent(d -> json.put("offer_description", d));
        Json.putFeaturesIfAny(json, "offer_features", features);
        Json.putUnsigned(json, "offer_absolute_expiry", absoluteExpiry);
        paths.ifPresent(p -> Json.putPaths(json, "offer_paths", p));
        issuer.ifPresent(i -> json.put("offer_issuer", i));
        Json.putUnsigned(json, "offer_quantity_max", quantityMax);
        issuerId.ifPresent(i -> json.put("offer_issuer_id", i.hex()));
    }

}
