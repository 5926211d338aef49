package org.fleetmesh.settlement.cashu.wallet;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

import org.bouncycastle.math.ec.ECPoint;
import org.fleetmesh.settlement.cashu.crypto.KeysetIds;
import org.fleetmesh.settlement.cashu.crypto.Secp256k1;
import org.fleetmesh.settlement.cashu.nut.Keyset;

/**
 * The keysets of one mint in one unit that this wallet trusts: each one's keys were checked against its id
 * (NUT-02: a mint that serves keys not matching the id it names is refused), with the fee each input costs.
 */
public final class MintKeys {
    private final String unit;
    private final Map<String, Keyset> keysets;
    private final Map<String, SortedMap<Long, ECPoint>> points;

    private MintKeys(String unit, Map<String, Keyset> keysets, Map<String, SortedMap<Long, ECPoint>> points) {
        this.unit = unit;
        this.keysets = keysets;
        this.points = points;
    }

    /**
     * The keysets of {@code unit} among {@code all}, each with keys; a keyset whose keys do not hash to its id, or
     * whose keys are not points of the curve, is a {@link WalletException} (the mint misbehaves).
     */
    public static MintKeys of(String unit, Collection<Keyset> all) {
        Map<String, Keyset> ks = new LinkedHashMap<>();
        Map<String, SortedMap<Long, ECPoint>> pts = new LinkedHashMap<>();
        for (Keyset k : all) {
            if (!unit.equals(k.unit()) || k.keys() == null || k.keys().isEmpty()) {
                continue;
            }
            SortedMap<Long, ECPoint> p = new TreeMap<>();
            try {
                for (Map.Entry<Long, String> e : k.keys().entrySet()) {
                    p.put(e.getKey(), Secp256k1.decodeHex(e.getValue()));
                }
            } catch (IllegalArgumentException e) {
                throw new WalletException("mint: keyset " + k.id() + " has a key that is not a curve point: " + e.getMessage());
            }
            if (!KeysetIds.matches(k.id(), p, k.unit(), k.inputFeePpk(), k.finalExpiry())) {
                throw new WalletException("mint: keyset " + k.id() + " does not match its keys (NUT-02)");
            }
            ks.put(k.id(), k);
            pts.put(k.id(), Collections.unmodifiableSortedMap(p));
        }
        return new MintKeys(unit, Collections.unmodifiableMap(ks), Collections.unmodifiableMap(pts));
    }

    public String unit() {
        return unit;
    }

    public boolean isEmpty() {
        return keysets.isEmpty();
    }

    public Optional<Keyset> keyset(String id) {
        return Optional.ofNullable(keysets.get(id));
    }

    public Collection<Keyset> all() {
        return keysets.values();
    }

    /** The active keyset new outputs go to: the active one with the lowest input fee, then the first listed. */
    public Keyset active() {
        Keyset best = null;
        for (Keyset k : keysets.values()) {
            if (k.active() && (best == null || k.inputFeePpk() < best.inputFeePpk())) {
                best = k;
            }
        }
        if (best == null) {
            throw new WalletException("mint: no active keyset in unit " + unit);
        }
        return best;
    }

    /** The key signing {@code amount} in keyset {@code id}. */
    public ECPoint key(String id, long amount) {
        SortedMap<Long, ECPoint> p = points.get(id);
        if (p == null) {
            throw new WalletException("unknown keyset " + id);
        }
        ECPoint k = p.get(amount);
        if (k == null) {
            throw new WalletException("keyset " + id + " has no key for amount " + amount);
        }
        return k;
    }

    public NavigableSet<Long> denominations(String id) {
        SortedMap<Long, ECPoint> p = points.get(id);
        if (p == null) {
            throw new WalletException("unknown keyset " + id);
        }
        TreeSet<Long> d = new TreeSet<>();
        for (long a : p.keySet()) {
            if (a > 0) { // 2^63 reads as a negative long (unsigned); no amount of ours reaches it
                d.add(a);
            }
        }
        return d;
    }

    /** NUT-02: the fee for spending proofs of these keysets together, in the unit: ceil(sum(input_fee_ppk) / 1000). */
    public long fee(List<String> inputKeysetIds) {
        List<Long> ppk = new java.util.ArrayList<>(inputKeysetIds.size());
        for (String id : inputKeysetIds) {
            Keyset k = keysets.get(id);
            if (k == null) {
                throw new WalletException("unknown keyset " + id);
            }
            ppk.add(k.inputFeePpk());
        }
        return KeysetIds.inputFee(ppk);
    }

    /** The fee of {@code n} inputs of the active keyset. */
    public long feeOfInputs(int n) {
        return KeysetIds.inputFee(Collections.nCopies(n, active().inputFeePpk()));
    }
}
