package org.fleetmesh.settlement.cashu.crypto;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import org.bouncycastle.math.ec.ECPoint;
import org.fleetmesh.nostr.Hex;

/**
 * NUT-02 keyset ids and input fees. Amounts are unsigned 64-bit (NUT-01 allows 2^63, which a Java
 * long holds as Long.MIN_VALUE), so keys are ordered with Long.compareUnsigned whatever the map's own order.
 */
public final class KeysetIds {
    private KeysetIds() {
    }

    /** Deprecated v1 id: "00" + first 14 hex of SHA256 over the compressed keys in ascending amount order. */
    public static String v1(SortedMap<Long, ECPoint> keys) {
        MessageDigest sha = Bdhke.sha256();
        for (Map.Entry<Long, ECPoint> e : ascending(keys)) {
            sha.update(Secp256k1.encode(e.getValue()));
        }
        return "00" + Hex.encode(sha.digest()).substring(0, 14);
    }

    /**
     * v2 id: "01" + hex SHA256 of "amount:pubkey,..." + "|unit:" + unit, then "|input_fee_ppk:" when the fee
     * is non-zero and "|final_expiry:" when an expiry is given and non-zero.
     */
    public static String v2(SortedMap<Long, ECPoint> keys, String unit, long inputFeePpk, OptionalLong finalExpiry) {
        if (unit == null || unit.isEmpty()) {
            throw new IllegalArgumentException("keyset unit is missing");
        }
        if (inputFeePpk < 0) {
            throw new IllegalArgumentException("input_fee_ppk must not be negative");
        }
        if (finalExpiry == null) {
            throw new IllegalArgumentException("final expiry must be an OptionalLong, empty when absent");
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Long, ECPoint> e : ascending(keys)) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(Long.toUnsignedString(e.getKey())).append(':').append(Secp256k1.hex(e.getValue()));
        }
        sb.append("|unit:").append(unit);
        if (inputFeePpk != 0) {
            sb.append("|input_fee_ppk:").append(inputFeePpk);
        }
        if (finalExpiry.isPresent() && finalExpiry.getAsLong() != 0) {
            sb.append("|final_expiry:").append(finalExpiry.getAsLong());
        }
        return "01" + Hex.encode(Bdhke.sha256().digest(sb.toString().getBytes(StandardCharsets.UTF_8)));
    }

    /** True when id is the v1 or v2 id of these keys and metadata; ids of other versions or lengths never match. */
    public static boolean matches(String id, SortedMap<Long, ECPoint> keys, String unit, long inputFeePpk,
            OptionalLong finalExpiry) {
        if (id == null) {
            return false;
        }
        if (id.length() == 16 && id.startsWith("00")) {
            return id.equals(v1(keys));
        }
        if (id.length() == 66 && id.startsWith("01")) {
            return id.equals(v2(keys, unit, inputFeePpk, finalExpiry));
        }
        return false;
    }

    /** Total input fee: ceil(sum(input_fee_ppk of each input) / 1000), in the keyset unit. */
    public static long inputFee(List<Long> inputFeePpkPerInput) {
        long sum = 0;
        for (Long ppk : inputFeePpkPerInput) {
            if (ppk == null || ppk < 0) {
                throw new IllegalArgumentException("input_fee_ppk must be a non-negative number");
            }
            sum = Math.addExact(sum, ppk);
        }
        return sum / 1000 + (sum % 1000 == 0 ? 0 : 1);
    }

    private static List<Map.Entry<Long, ECPoint>> ascending(SortedMap<Long, ECPoint> keys) {
        if (keys == null || keys.isEmpty()) {
            throw new IllegalArgumentException("keyset has no keys");
        }
        List<Map.Entry<Long, ECPoint>> entries = new ArrayList<>(keys.entrySet());
        entries.sort((a, b) -> Long.compareUnsigned(a.getKey(), b.getKey()));
        for (Map.Entry<Long, ECPoint> e : entries) {
            if (e.getKey() == null || e.getKey() == 0) {
                throw new IllegalArgumentException("keyset amount must be a positive number");
            }
            Secp256k1.requirePoint(e.getValue(), "key for amount " + Long.toUnsignedString(e.getKey()));
        }
        return entries;
    }
}
