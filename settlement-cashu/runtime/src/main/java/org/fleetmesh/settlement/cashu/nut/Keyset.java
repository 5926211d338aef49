package org.fleetmesh.settlement.cashu.nut;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;

import org.fleetmesh.settlement.cashu.crypto.Secp256k1;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * A mint keyset (NUT-01 {@code /v1/keys}, NUT-02 {@code /v1/keysets}):
 * {@code {"id","unit","active","input_fee_ppk"?,"final_expiry"?,"keys"?}}.
 *
 * <p>{@code keys} maps amount to the 66-hex compressed key, and is empty when the keyset was only listed
 * (NUT-02). Amounts are unsigned 64-bit, as NUT-01's vectors demand (2^63 is a valid amount): a key above
 * {@link Long#MAX_VALUE} is held as a negative long and the map is ordered with {@link Long#compareUnsigned}.
 * Our amounts are signed longs, so a wallet never uses such a key; it only matters for the keyset id.
 */
public record Keyset(String id, String unit, boolean active, long inputFeePpk, OptionalLong finalExpiry,
        SortedMap<Long, String> keys) {
    /** More keys than any real keyset has (64 powers of two). */
    public static final int MAX_KEYS = 256;

    public Keyset {
        id = Nut.keysetId(id, "keyset id");
        if (unit == null || unit.isEmpty() || unit.length() > 64) {
            throw new IllegalArgumentException("keyset unit is missing or too long");
        }
        if (inputFeePpk < 0) {
            throw new IllegalArgumentException("input_fee_ppk must not be negative");
        }
        finalExpiry = finalExpiry == null ? OptionalLong.empty() : finalExpiry;
        if (finalExpiry.isPresent() && finalExpiry.getAsLong() < 0) {
            throw new IllegalArgumentException("final_expiry must not be negative");
        }
        TreeMap<Long, String> sorted = new TreeMap<>(Long::compareUnsigned);
        if (keys != null) {
            if (keys.size() > MAX_KEYS) {
                throw new IllegalArgumentException("keyset has more than " + MAX_KEYS + " keys");
            }
            for (Map.Entry<Long, String> e : keys.entrySet()) {
                if (e.getKey() == 0) {
                    throw new IllegalArgumentException("keyset amount must be positive");
                }
                sorted.put(e.getKey(), Nut.point(e.getValue(), "keyset key " + Long.toUnsignedString(e.getKey())));
            }
        }
        keys = Collections.unmodifiableSortedMap(sorted);
    }

    /** The key that signs {@code amount}, or null when this keyset has none for it. */
    public String key(long amount) {
        return keys.get(amount);
    }

    /** Reads the keyset JSON; keys must be valid compressed points on secp256k1. */
    @JsonCreator
    static Keyset fromJson(@JsonProperty(value = "id", required = true) String id,
            @JsonProperty(value = "unit", required = true) String unit,
            @JsonProperty("active") Boolean active,
            @JsonProperty("input_fee_ppk") Long inputFeePpk,
            @JsonProperty("final_expiry") Long finalExpiry,
            @JsonProperty("keys") Map<String, String> keys) {
        // NUT-01 serves only active keysets, and some mints leave the flag out there.
        return new Keyset(id, unit, active == null || active, inputFeePpk == null ? 0 : inputFeePpk,
                finalExpiry == null ? OptionalLong.empty() : OptionalLong.of(finalExpiry),
                keys == null ? null : parseKeys(keys));
    }

    /**
     * Reads a NUT-01 {@code keys} object: decimal amounts (unsigned 64-bit, no sign or leading zero) to compressed
     * points on the curve. IllegalArgumentException names the first bad entry.
     */
    public static SortedMap<Long, String> parseKeys(Map<String, String> json) {
        if (json.size() > MAX_KEYS) {
            throw new IllegalArgumentException("keyset has more than " + MAX_KEYS + " keys");
        }
        TreeMap<Long, String> out = new TreeMap<>(Long::compareUnsigned);
        for (Map.Entry<String, String> e : json.entrySet()) {
            long amount = amount(e.getKey());
            String point = Nut.point(e.getValue(), "keyset key " + e.getKey());
            try {
                Secp256k1.decodeHex(point);
            } catch (IllegalArgumentException notOnCurve) {
                throw new IllegalArgumentException("keyset key " + e.getKey() + " is not a point on secp256k1");
            }
            out.put(amount, point);
        }
        return out;
    }

    private static long amount(String s) {
        if (s == null || s.isEmpty() || s.length() > 20 || s.charAt(0) == '0') {
            throw new IllegalArgumentException("keyset amount '" + s + "' is not a positive decimal integer");
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                throw new IllegalArgumentException("keyset amount '" + s + "' is not a positive decimal integer");
            }
        }
        try {
            return Long.parseUnsignedLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("keyset amount '" + s + "' does not fit 64 bits");
        }
    }

    @JsonValue
    Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("unit", unit);
        m.put("active", active);
        m.put("input_fee_ppk", inputFeePpk);
        if (finalExpiry.isPresent()) {
            m.put("final_expiry", finalExpiry.getAsLong());
        }
        if (!keys.isEmpty()) {
            Map<String, String> k = new LinkedHashMap<>();
            keys.forEach((amount, key) -> k.put(Long.toUnsignedString(amount), key));
            m.put("keys", k);
        }
        return m;
    }
}
