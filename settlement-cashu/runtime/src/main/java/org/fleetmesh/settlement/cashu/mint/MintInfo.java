package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.settlement.cashu.nut.Nut;

/**
 * NUT-06 {@code GetInfoResponse}. Every field is optional in the NUT: absent strings are null, absent
 * lists empty, an absent {@code nuts} reads as no optional NUT supported.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MintInfo(@JsonProperty("name") String name,
                       @JsonProperty("pubkey") String pubkey,
                       @JsonProperty("version") String version,
                       @JsonProperty("description") String description,
                       @JsonProperty("description_long") String descriptionLong,
                       @JsonProperty("contact") List<Contact> contact,
                       @JsonProperty("motd") String motd,
                       @JsonProperty("icon_url") String iconUrl,
                       @JsonProperty("urls") List<String> urls,
                       @JsonProperty("time") Long time,
                       @JsonProperty("tos_url") String tosUrl,
                       @JsonProperty("nuts") Nuts nuts) {
    public MintInfo {
        contact = Wire.optionalList(contact, "contact");
        urls = Wire.optionalList(urls, "urls");
        nuts = nuts == null ? new Nuts(Map.of()) : nuts;
    }

    /** Whether the mint says it supports NUT-{@code nut}; see {@link Nuts#supported(int)}. */
    public boolean supports(int nut) {
        return nuts.supported(nut);
    }

    /** A way to reach the operator: {@code {"method": "email", "info": "contact@me.com"}}. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Contact(@JsonProperty("method") String method, @JsonProperty("info") String info) {
        public Contact {
            Wire.required(method, "method");
            Wire.required(info, "info");
        }

        /** Also reads the {@code ["email", "contact@me.com"]} pairs that older mints sent. */
        @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
        static Contact fromJson(JsonNode node) {
            if (node.isArray() && node.size() == 2 && node.get(0).isTextual() && node.get(1).isTextual()) {
                return new Contact(node.get(0).textValue(), node.get(1).textValue());
            }
            if (node.isObject() && node.path("method").isTextual() && node.path("info").isTextual()) {
                return new Contact(node.get("method").textValue(), node.get("info").textValue());
            }
            throw new IllegalArgumentException("contact is neither {\"method\",\"info\"} nor a [method, info] pair");
        }
    }

    /** NUT-04/05 {@code MintMethodSetting}/{@code MeltMethodSetting}: a method-unit pair and its limits. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record MethodSetting(@JsonProperty("method") String method,
                                @JsonProperty("unit") String unit,
                                @JsonProperty("method_name") String methodName,
                                @JsonProperty("min_amount") Long minAmount,
                                @JsonProperty("max_amount") Long maxAmount,
                                @JsonProperty("options") JsonNode options) {
        public MethodSetting {
            Wire.required(method, "method");
            Wire.required(unit, "unit");
        }
    }

    /** The settings of NUT-04 ({@code "4"}) or NUT-05 ({@code "5"}). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record MethodSettings(@JsonProperty("methods") List<MethodSetting> methods,
                                 @JsonProperty("disabled") boolean disabled) {
        public MethodSettings {
            methods = Wire.optionalList(methods, "methods");
        }

        /** The setting for {@code method} in {@code unit}, if the mint offers that pair. */
        public Optional<MethodSetting> find(String method, String unit) {
            return methods.stream().filter(m -> m.method().equals(method) && m.unit().equals(unit)).findFirst();
        }
    }

    /**
     * The {@code nuts} object, keyed by NUT number as a string. The whole object is kept as the mint sent
     * it (settings of NUTs this code does not know stay readable); NUT-04 and NUT-05 are also parsed.
     */
    public record Nuts(Map<String, JsonNode> settings) {
        public Nuts {
            settings = Map.copyOf(settings == null ? Map.of() : settings);
        }

        @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
        static Nuts fromJson(LinkedHashMap<String, JsonNode> settings) {
            Nuts nuts = new Nuts(settings);
            nuts.mint();  // a malformed "4" or "5" makes the whole answer malformed, not a later surprise
            nuts.melt();
            return nuts;
        }

        @JsonValue
        @Override
        public Map<String, JsonNode> settings() {
            return settings;
        }

        /** NUT-04 minting methods; none (and not disabled) when the mint leaves {@code "4"} out. */
        public MethodSettings mint() {
            return methodSettings("4");
        }

        /** NUT-05 melting methods; none when the mint leaves {@code "5"} out. */
        public MethodSettings melt() {
            return methodSettings("5");
        }

        /**
         * NUT-04/05: listed, not disabled and with at least one method. Others: listed, and
         * {@code "supported"} true (or a non-empty array, as NUT-17 has it), or when a NUT's settings
         * carry no {@code "supported"} (NUT-15 {@code methods}, NUT-19 {@code cached_endpoints}, ...),
         * not {@code "disabled": true}.
         */
        public boolean supported(int nut) {
            JsonNode node = settings.get(Integer.toString(nut));
            if (node == null || !node.isObject()) {
                return false;
            }
            if (nut == 4 || nut == 5) {
                MethodSettings s = methodSettings(Integer.toString(nut));
                return !s.disabled() && !s.methods().isEmpty();
            }
            if (node.path("disabled").asBoolean(false)) {
                return false;
            }
            JsonNode supported = node.get("supported");
            if (supported == null) {
                return true;
            }
            if (supported.isBoolean()) {
                return supported.booleanValue();
            }
            return supported.isArray() && !supported.isEmpty();
        }

        private MethodSettings methodSettings(String nut) {
            JsonNode node = settings.get(nut);
            if (node == null || node.isNull()) {
                return new MethodSettings(List.of(), false);
            }
            try {
                return Nut.json().treeToValue(node, MethodSettings.class);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("malformed settings of NUT-" + nut + ": " + e.getOriginalMessage(), e);
            }
        }
    }
}
