package org.fleetmesh.settlement.cashu.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

import org.fleetmesh.spi.settlement.cashu.CashuStore;

/**
 * {@link CashuStore} in memory, for tests and for a node without a database: the same contract as the PostgreSQL
 * store (orders included), every call under one lock, and everything lost at exit. A wallet on it holds money that
 * a crash forgets, so it is meant for test amounts only.
 */
public final class MemoryCashuStore implements CashuStore {
    private static final Comparator<StoredProof> OLDEST_FIRST = Comparator.comparingLong(StoredProof::createdAt)
            .thenComparing(StoredProof::secret);
    private static final Comparator<Op> OPS_OLDEST_FIRST = Comparator.comparingLong(Op::createdAt).thenComparing(Op::id);

    private final Map<String, StoredProof> proofs = new HashMap<>();
    private final Map<String, Op> ops = new HashMap<>();
    private final Map<List<String>, String> opIdByKindKey = new HashMap<>();
    private final Map<String, Long> counters = new HashMap<>();
    private final Map<String, TreeMap<String, KeysetRow>> keysets = new HashMap<>();

    @Override
    public synchronized void addProofs(Collection<StoredProof> add) {
        for (StoredProof p : add) {
            Objects.requireNonNull(p, "proof"); // all or none, like the database's one transaction
        }
        for (StoredProof p : add) {
            proofs.putIfAbsent(p.secret(), p);
        }
    }

    @Override
    public synchronized List<StoredProof> proofs(String mint, ProofState state) {
        return select(p -> p.mint().equals(mint) && p.state() == state);
    }

    @Override
    public synchronized List<StoredProof> proofsBySecret(Collection<String> secrets) {
        List<StoredProof> out = new ArrayList<>();
        for (String s : new LinkedHashSet<>(secrets)) {
            StoredProof p = proofs.get(s);
            if (p != null) {
                out.add(p);
            }
        }
        return out;
    }

    @Override
    public synchronized List<StoredProof> proofsOfOp(String opId) {
        return select(p -> Objects.equals(p.opId(), opId));
    }

    @Override
    public synchronized List<StoredProof> proofsOfLock(String lock) {
        return select(p -> Objects.equals(p.lock(), lock));
    }

    @Override
    public synchronized boolean reserve(Collection<String> secrets, ProofState from, String opId) {
        Objects.requireNonNull(opId, "opId");
        if (from == ProofState.PENDING) {
            throw new IllegalArgumentException("pending proofs belong to their operation: reserve from another state");
        }
        Set<String> wanted = new LinkedHashSet<>(secrets);
        for (String s : wanted) {
            StoredProof p = proofs.get(s);
            if (p == null || p.state() != from) {
                return false;
            }
        }
        for (String s : wanted) {
            proofs.put(s, proofs.get(s).withState(ProofState.PENDING, opId));
        }
        return true;
    }

    @Override
    public synchronized void setState(Collection<String> secrets, ProofState state, String opId) {
        Objects.requireNonNull(state, "state");
        move(secrets, state, opId);
    }

    @Override
    public synchronized void complete(Op op, Collection<String> inputs, ProofState inputsTo,
            Collection<StoredProof> outputs) {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(inputsTo, "inputsTo");
        // everything that can refuse runs before the first change
        outputs.forEach(p -> Objects.requireNonNull(p, "output"));
        inputs.forEach(s -> Objects.requireNonNull(s, "input"));
        checkKey(op);
        move(inputs, inputsTo, null);
        addProofs(outputs);
        putOp(op);
    }

    @Override
    public synchronized void saveOp(Op op) {
        Objects.requireNonNull(op, "op");
        checkKey(op);
        putOp(op);
    }

    @Override
    public synchronized Optional<Op> op(String id) {
        return Optional.ofNullable(ops.get(id));
    }

    @Override
    public synchronized Optional<Op> opByKey(String kind, String key) {
        if (kind == null || key == null) {
            return Optional.empty();
        }
        String id = opIdByKindKey.get(List.of(kind, key));
        return id == null ? Optional.empty() : Optional.of(ops.get(id));
    }

    @Override
    public synchronized List<Op> opsInStates(Collection<String> states) {
        Set<String> wanted = Set.copyOf(states);
        return ops.values().stream().filter(o -> wanted.contains(o.state())).sorted(OPS_OLDEST_FIRST).toList();
    }

    @Override
    public synchronized long reserveCounters(String keysetId, int n) {
        Objects.requireNonNull(keysetId, "keysetId");
        if (n < 0) {
            throw new IllegalArgumentException("cannot reserve " + n + " counters");
        }
        long first = counters.getOrDefault(keysetId, 0L);
        counters.put(keysetId, Math.addExact(first, n));
        return first;
    }

    @Override
    public synchronized long counter(String keysetId) {
        return counters.getOrDefault(keysetId, 0L);
    }

    @Override
    public synchronized void advanceCounter(String keysetId, long next) {
        Objects.requireNonNull(keysetId, "keysetId");
        if (next < 0) {
            throw new IllegalArgumentException("a counter is not negative: " + next);
        }
        counters.merge(keysetId, next, Math::max);
    }

    @Override
    public synchronized void saveKeyset(KeysetRow keyset) {
        Objects.requireNonNull(keyset, "keyset");
        keysets.computeIfAbsent(keyset.mint(), m -> new TreeMap<>()).put(keyset.id(), keyset);
    }

    @Override
    public synchronized List<KeysetRow> keysets(String mint) {
        TreeMap<String, KeysetRow> m = keysets.get(mint);
        return m == null ? List.of() : List.copyOf(m.values());
    }

    private List<StoredProof> select(Predicate<StoredProof> p) {
        return proofs.values().stream().filter(p).sorted(OLDEST_FIRST).toList();
    }

    private void move(Collection<String> secrets, ProofState state, String opId) {
        for (String s : secrets) {
            StoredProof p = proofs.get(s);
            if (p != null) {
                proofs.put(s, p.withState(state, opId == null ? p.opId() : opId));
            }
        }
    }

    private void checkKey(Op op) {
        if (op.key() == null) {
            return;
        }
        String holder = opIdByKindKey.get(List.of(op.kind(), op.key()));
        if (holder != null && !holder.equals(op.id())) {
            throw new IllegalStateException("cashu op " + op.id() + ": another " + op.kind() + " op already has key "
                    + op.key());
        }
    }

    private void putOp(Op op) {
        Op before = ops.put(op.id(), op);
        if (before != null && before.key() != null) {
            opIdByKindKey.remove(List.of(before.kind(), before.key()));
        }
        if (op.key() != null) {
            opIdByKindKey.put(List.of(op.kind(), op.key()), op.id());
        }
    }
}
