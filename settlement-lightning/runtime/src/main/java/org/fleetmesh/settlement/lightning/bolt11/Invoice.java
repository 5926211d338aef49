package org.fleetmesh.settlement.lightning.bolt11;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A BOLT #11 payment request, its defaults applied: {@code expiry} 3600 s and
 * {@code minFinalCltvExpiryDelta} 18 when the fields are absent. Exactly one of {@code description} and
 * {@code descriptionHash} is present. {@code signature} is empty until {@link Bolt11#encode} signs it.
 */
public record Invoice(
        Network network,
        OptionalLong amountMsat,
        long timestamp,
        long expiry,
        PaymentHash paymentHash,
        PaymentSecret paymentSecret,
        Optional<String> description,
        Optional<DescriptionHash> descriptionHash,
        NodeId payee,
        int minFinalCltvExpiryDelta,
        Features features,
        List<RouteHint> routeHints,
        List<Fallback> fallbacks,
        Optional<PaymentMetadata> metadata,
        Optional<InvoiceSignature> signature) {

    public static final long DEFAULT_EXPIRY = 3600;
    public static final int DEFAULT_MIN_FINAL_CLTV_EXPIRY_DELTA = 18;
    static final long MAX_TIMESTAMP = (1L << 35) - 1;

    public Invoice {
        if (network == null || amountMsat == null || paymentHash == null || paymentSecret == null || payee == null
                || description == null || descriptionHash == null || features == null || metadata == null
                || signature == null) {
            throw new IllegalArgumentException("network, payment_hash, payment_secret and payee are required");
        }
        if (description.isPresent() == descriptionHash.isPresent()) {
            throw new IllegalArgumentException("exactly one of description and description_hash");
        }
        if (amountMsat.isPresent() && amountMsat.getAsLong() <= 0) {
            throw new IllegalArgumentException("an amount must be positive");
        }
        if (timestamp < 0 || timestamp > MAX_TIMESTAMP || expiry < 0 || minFinalCltvExpiryDelta < 0) {
            throw new IllegalArgumentException("timestamp is 35 bits; expiry and cltv delta are not negative");
        }
        routeHints = List.copyOf(routeHints);
        fallbacks = List.copyOf(fallbacks);
    }

    public static Builder builder(Network network, PaymentHash paymentHash, PaymentSecret paymentSecret, NodeId payee) {
        return new Builder(network, paymentHash, paymentSecret, payee);
    }

    /** Seconds since 1970 after which the payee will refuse the payment. */
    public long expiresAt() {
        return timestamp + expiry;
    }

    /** The reader's check of an {@code h} field: does it hash exactly this description? */
    public boolean commitsTo(String fullDescription) {
        if (description.isPresent()) {
            return description.get().equals(fullDescription);
        }
        byte[] hash = Fallback.sha256(fullDescription.getBytes(StandardCharsets.UTF_8));
        return MessageDigest.isEqual(hash, descriptionHash.get().unsafeBytes());
    }

    public Invoice withSignature(InvoiceSignature sig) {
        return new Invoice(network, amountMsat, timestamp, expiry, paymentHash, paymentSecret, description,
                descriptionHash, payee, minFinalCltvExpiryDelta, features, routeHints, fallbacks, metadata,
                Optional.of(sig));
    }

    public ObjectNode toJson() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode json = f.objectNode();
        json.put("network", network.name().toLowerCase(Locale.ROOT));
        if (amountMsat.isPresent()) {
            json.put("amount_msat", amountMsat.getAsLong());
        } else {
            json.putNull("amount_msat");
        }
        json.put("timestamp", timestamp);
        json.put("expiry", expiry);
        json.put("expires_at", expiresAt());
        json.put("payment_hash", paymentHash.hex());
        json.put("payment_secret", paymentSecret.hex());
        description.ifPresent(d -> json.put("description", d));
        descriptionHash.ifPresent(h -> json.put("description_hash", h.hex()));
        json.put("payee", payee.hex());
        json.put("min_final_cltv_expiry", minFinalCltvExpiryDelta);
        ArrayNode bits = json.putArray("features");
        features.bits().forEach(bits::add);
        ArrayNode hints = json.putArray("route_hints");
        for (RouteHint hint : routeHints) {
            ArrayNode hops = hints.addArray();
            for (RouteHop hop : hint.hops()) {
                hops.addObject()
                        .put("pubkey", hop.pubkey().hex())
                        .put("short_channel_id", hop.shortChannelId().toString())
                        .put("fee_base_msat", hop.feeBaseMsat())
                        .put("fee_proportional_millionths", hop.feeProportionalMillionths())
                        .put("cltv_expiry_delta", hop.cltvExpiryDelta());
            }
        }
        ArrayNode falls = json.putArray("fallbacks");
        for (Fallback fallback : fallbacks) {
            falls.addObject().put("version", fallback.version()).put("address", fallback.address(network));
        }
        metadata.ifPresent(m -> json.put("payment_metadata", m.hex()));
        signature.ifPresent(s -> json.put("signature", s.hex()));
        return json;
    }

    /** Builds an unsigned invoice with the spec's defaults; {@link Bolt11#encode} signs it. */
    public static final class Builder {
        private final Network network;
        private final PaymentHash paymentHash;
        private final PaymentSecret paymentSecret;
        private final NodeId payee;
        private OptionalLong amountMsat = OptionalLong.empty();
        private long timestamp;
        private long expiry = DEFAULT_EXPIRY;
        private Optional<String> description = Optional.empty();
        private Optional<DescriptionHash> descriptionHash = Optional.empty();
        private int minFinalCltvExpiryDelta = DEFAULT_MIN_FINAL_CLTV_EXPIRY_DELTA;
        private Features features = Features.of(Features.VAR_ONION_OPTIN, Features.PAYMENT_SECRET);
        private final List<RouteHint> routeHints = new ArrayList<>();
        private final List<Fallback> fallbacks = new ArrayList<>();
        private Optional<PaymentMetadata> metadata = Optional.empty();

        private Builder(Network network, PaymentHash paymentHash, PaymentSecret paymentSecret, NodeId payee) {
            this.network = network;
            this.paymentHash = paymentHash;
            this.paymentSecret = paymentSecret;
            this.payee = payee;
        }

        public Builder amountMsat(long msat) {
            this.amountMsat = OptionalLong.of(msat);
            return this;
        }

        public Builder timestamp(long epochSeconds) {
            this.timestamp = epochSeconds;
            return this;
        }

        public Builder expiry(long seconds) {
            this.expiry = seconds;
            return this;
        }

        public Builder description(String text) {
            this.description = Optional.of(text);
            this.descriptionHash = Optional.empty();
            return this;
        }

        public Builder descriptionHash(DescriptionHash hash) {
            this.descriptionHash = Optional.of(hash);
            this.description = Optional.empty();
            return this;
        }

        public Builder minFinalCltvExpiryDelta(int blocks) {
            this.minFinalCltvExpiryDelta = blocks;
            return this;
        }

        public Builder features(Features features) {
            this.features = features;
            return this;
        }

        public Builder routeHint(RouteHint hint) {
            routeHints.add(hint);
            return this;
        }

        public Builder fallback(Fallback fallback) {
            fallbacks.add(fallback);
            return this;
        }

        public Builder metadata(PaymentMetadata metadata) {
            this.metadata = Optional.of(metadata);
            return this;
        }

        public Invoice build() {
            return new Invoice(network, amountMsat, timestamp, expiry, paymentHash, paymentSecret, description,
                    descriptionHash, payee, minFinalCltvExpiryDelta, features, routeHints, fallbacks, metadata,
                    Optional.empty());
        }
    }
}
