package org.fleetmesh.settlement.cashu.wallet;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import org.fleetmesh.settlement.cashu.mint.MintApi;
import org.fleetmesh.settlement.cashu.mint.MintException;
import org.fleetmesh.settlement.cashu.nut.Keyset;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.spi.settlement.cashu.CashuStore;
import org.fleetmesh.spi.settlement.cashu.CashuStore.Op;
import org.fleetmesh.spi.settlement.cashu.CashuStore.ProofState;
import org.fleetmesh.spi.settlement.cashu.CashuStore.StoredProof;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A Cashu wallet for one mint and one unit, crash-safe over a {@link CashuStore} (docs/spec/settlement-cashu.md,
 * "Wallet"): before a request that spends proofs leaves, its inputs are PENDING under an operation that records
 * the outputs asked for (secrets and blinding factors, NUT-13 counters reserved first); the answer is written in one
 * step; after a crash {@link #recover} resolves every operation with NUT-07 (were the inputs spent?) and NUT-09
 * (which of our outputs did the mint sign?). It never spends a proof twice and never forgets one it received.
 *
 * <p>The operations with the mint are {@link Swaps} (swap, send, receive, locks), {@link Minting} (NUT-04) and
 * {@link Melting} (NUT-05/08); this class holds what they share.
 */
public final class Wallet {
    private static final Logger LOG = Logger.getLogger(Wallet.class);

    /** States of an operation, as the store keeps them. */
    static final String PREPARED = "PREPARED";
    static final String DONE = "DONE";
    static final String FAILED = "FAILED";

    /**
     * @param requireDleq         refuse mint signatures without a valid DLEQ proof (NUT-12); a received token's DLEQ is
     *                            checked when present
     * @param restoreBatch        outputs per NUT-09 restore request (NUT-13 recommends 100)
     * @param restoreEmptyBatches consecutive empty batches that end a restore (NUT-13: three)
     */
    public record Options(boolean requireDleq, int restoreBatch, int restoreEmptyBatches) {
        public static Options defaults() {
            return new Options(true, 100, 3);
        }
    }

    final String mintUrl;
    final String unit;
    final MintApi mint;
    final CashuStore store;
    private final byte[] seed;
    final Clock clock;
    final Options options;
    /** Held while choosing and reserving proofs, so that two choices never collide (Swaps' exact sets too). */
    final Object reserving = new Object();
    private volatile MintKeys keys;

    public Wallet(String mintUrl, String unit, MintApi mint, CashuStore store, byte[] seed, Clock clock,
            Options options) {
        this.mintUrl = Objects.requireNonNull(mintUrl, "mintUrl");
        this.unit = Objects.requireNonNull(unit, "unit");
        this.mint = Objects.requireNonNull(mint, "mint");
        this.store = Objects.requireNonNull(store, "store");
        this.seed = seed.clone();
        this.clock = Objects.requireNonNull(clock, "clock");
        this.options = Objects.requireNonNull(options, "options");
    }

    public String mintUrl() {
        return mintUrl;
    }

    public String unit() {
        return unit;
    }

    public MintApi mint() {
        return mint;
    }

    /** The mint's keysets in this unit, fetched once (NUT-01/02) and checked against their ids; cached in the store. */
    public MintKeys keys() {
        MintKeys k = keys;
        if (k == null) {
            synchronized (this) {
                if (keys == null) {
                    keys = fetchKeys();
                }
                k = keys;
            }
        }
        return k;
    }

    /** Fetches the keysets again (a new keyset id seen, or a keyset rotated). */
    public synchronized MintKeys refreshKeys() {
        keys = fetchKeys();
        return keys;
    }

    private MintKeys fetchKeys() {
        List<Keyset> listed = mint.keysets();
        List<Keyset> full = new ArrayList<>();
        for (Keyset k : listed) {
            if (!unit.equals(k.unit())) {
                continue;
            }
            Keyset withKeys = mint.keys(k.id());
            // NUT-02 carries active and the fee; NUT-01 the keys
            full.add(new Keyset(k.id(), k.unit(), k.active(), k.inputFeePpk(), k.finalExpiry(), withKeys.keys()));
        }
        MintKeys mk = MintKeys.of(unit, full);
        if (mk.isEmpty()) {
            throw new WalletException("mint " + mintUrl + " has no keyset in unit " + unit);
        }
        for (Keyset k : mk.all()) {
            try {
                store.saveKeyset(new CashuStore.KeysetRow(mintUrl, k.id(), k.unit(), k.active(), k.inputFeePpk(),
                        Nut.json().writeValueAsString(k.keys())));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        return mk;
    }

    /** What this wallet can spend now, in the mint's unit. */
    public long balance() {
        long s = 0;
        for (StoredProof p : store.proofs(mintUrl, ProofState.UNSPENT)) {
            s = Math.addExact(s, p.amount());
        }
        return s;
    }

    /** Amounts in each state (for status and the CLI). */
    public Map<ProofState, Long> balances() {
        Map<ProofState, Long> m = new java.util.EnumMap<>(ProofState.class);
        for (ProofState st : ProofState.values()) {
            long s = 0;
            for (StoredProof p : store.proofs(mintUrl, st)) {
                s = Math.addExact(s, p.amount());
            }
            m.put(st, s);
        }
        return m;
    }

    // ---- shared by the operations ----

    long now() {
        return clock.instant().getEpochSecond();
    }

    static String newId() {
        return UUID.randomUUID().toString();
    }

    /** NUT-13 outputs for {@code amounts} in keyset {@code keysetId}, the counters reserved in the store first. */
    List<Output> derivedOutputs(String keysetId, List<Long> amounts) {
        if (amounts.isEmpty()) {
            return List.of();
        }
        long first = store.reserveCounters(keysetId, amounts.size());
        List<Output> out = new ArrayList<>(amounts.size());
        for (int i = 0; i < amounts.size(); i++) {
            out.add(Output.derived(seed, keysetId, first + i, amounts.get(i)));
        }
        return out;
    }

    /** Outputs worth {@code amount} in the active keyset (none for 0). */
    List<Output> derivedOutputs(long amount) {
        Keyset active = keys().active();
        return derivedOutputs(active.id(), Amounts.split(amount, keys().denominations(active.id())));
    }

    /**
     * Picks UNSPENT proofs worth at least {@code amount} plus the input fee of the proofs picked, and reserves them
     * under {@code opId}. Largest first, then the smallest single proofs that finish it.
     */
    List<Proof> selectAndReserve(long amount, String opId, boolean withFee) {
        synchronized (reserving) {
            List<StoredProof> unspent = new ArrayList<>(store.proofs(mintUrl, ProofState.UNSPENT));
            unspent.removeIf(p -> keys().keyset(p.keysetId()).isEmpty());
            unspent.sort(Comparator.comparingLong(StoredProof::amount).reversed());
            List<StoredProof> picked = new ArrayList<>();
            long sum = 0;
            for (StoredProof p : unspent) {
                long fee = withFee ? feeOf(picked) : 0;
                if (sum >= amount + fee && !picked.isEmpty()) {
                    break;
                }
                picked.add(p);
                sum += p.amount();
            }
            long fee = withFee ? feeOf(picked) : 0;
            if (sum < amount + fee || picked.isEmpty() && amount > 0) {
                throw new WalletException("insufficient funds: " + balance() + " " + unit + " spendable, "
                        + (amount + fee) + " needed");
            }
            List<String> secrets = new ArrayList<>();
            for (StoredProof p : picked) {
                secrets.add(p.secret());
            }
            if (!store.reserve(secrets, opId)) {
                throw new WalletException("proofs were taken by another operation; try again");
            }
            return ProofRows.proofs(picked);
        }
    }

    long feeOf(List<StoredProof> ps) {
        List<String> ids = new ArrayList<>(ps.size());
        for (StoredProof p : ps) {
            ids.add(p.keysetId());
        }
        return keys().fee(ids);
    }

    long feeOfProofs(List<Proof> ps) {
        List<String> ids = new ArrayList<>(ps.size());
        for (Proof p : ps) {
            ids.add(p.id());
        }
        return keys().fee(ids);
    }

    static ObjectNode payload() {
        return Nut.json().createObjectNode();
    }

    static JsonNode parse(String payload) {
        try {
            return Nut.json().readTree(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an operation's record does not parse", e);
        }
    }

    static String text(JsonNode n) {
        return n.toString();
    }

    static ArrayNode proofsJson(List<Proof> ps) {
        return Nut.json().valueToTree(ps);
    }

    static List<Proof> proofsOf(JsonNode a) {
        List<Proof> out = new ArrayList<>();
        if (a != null && a.isArray()) {
            for (JsonNode n : a) {
                try {
                    out.add(Nut.json().treeToValue(n, Proof.class));
                } catch (JsonProcessingException e) {
                    throw new IllegalStateException("a recorded proof does not parse", e);
                }
            }
        }
        return out;
    }

    /** NUT-07 states of {@code proofs}, by secret. */
    Map<String, org.fleetmesh.settlement.cashu.mint.ProofState> states(Collection<Proof> proofs) {
        List<String> ys = new ArrayList<>();
        Map<String, String> secretOfY = new HashMap<>();
        for (Proof p : proofs) {
            String y = p.y();
            ys.add(y);
            secretOfY.put(y, p.secret());
        }
        Map<String, org.fleetmesh.settlement.cashu.mint.ProofState> out = new HashMap<>();
        for (org.fleetmesh.settlement.cashu.mint.ProofState s : mint.checkState(ys)) {
            String secret = secretOfY.get(s.y());
            if (secret != null) {
                out.put(secret, s);
            }
        }
        if (out.size() != proofs.size()) {
            throw new WalletException("mint: checkstate answered " + out.size() + " of " + proofs.size() + " proofs");
        }
        return out;
    }

    /** Every open operation resolved as far as the mint's answers allow (at start, before anything else). */
    public Recovery recover() {
        Recovery r = new Recovery();
        for (Op op : store.opsInStates(List.of(PREPARED, Minting.ISSUING))) {
            if (!op.mint().equals(mintUrl)) {
                continue;
            }
            try {
                r.add(op, resolve(op));
            } catch (MintException | WalletException e) {
                LOG.warnf("cashu: operation %s (%s) could not be resolved yet: %s", op.id(), op.kind(), e.getMessage());
                r.add(op, "unresolved: " + e.getMessage());
            }
        }
        return r;
    }

    /**
     * {@link #recover} for one operation, by a caller that saw it end without an answer and owns it (no other thread
     * is running it); returns what was done. MintException or WalletException when the mint cannot tell yet.
     */
    public String recover(String opId) {
        Op op = store.op(opId).orElseThrow(() -> new WalletException("no operation " + opId));
        if (!op.state().equals(PREPARED) && !op.state().equals(Minting.ISSUING)) {
            return "already " + op.state().toLowerCase(java.util.Locale.ROOT);
        }
        return resolve(op);
    }

    private String resolve(Op op) {
        return switch (op.kind()) {
            case Swaps.KIND -> new Swaps(this).recover(op);
            case Minting.KIND -> new Minting(this).recover(op);
            case Melting.KIND -> new Melting(this).recover(op);
            default -> "left: unknown kind " + op.kind();
        };
    }

    /** What {@link #recover} did with each open operation. */
    public static final class Recovery {
        private final List<String> lines = new ArrayList<>();

        public Recovery() {
        }

        void add(Op op, String outcome) {
            lines.add(op.kind() + " " + op.id() + ": " + outcome);
        }

        public List<String> lines() {
            return List.copyOf(lines);
        }

        public boolean complete() {
            return lines.stream().noneMatch(l -> l.contains("unresolved") || l.contains("pending"));
        }
    }

    // ---- the operations, as a user sees them ----

    public Minting minting() {
        return new Minting(this);
    }

    public Melting melting() {
        return new Melting(this);
    }

    public Swaps swaps() {
        return new Swaps(this);
    }

    /** NUT-09 + NUT-13: proofs of this seed that the mint signed and that are still unspent, added back. */
    public Restore.Result restore() {
        return new Restore(this, seed).run();
    }
}
