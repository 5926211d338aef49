package org.fleetmesh.settlement.cashu.wallet;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.nut.ProofDleq;
import org.fleetmesh.spi.settlement.cashu.CashuStore.ProofState;
import org.fleetmesh.spi.settlement.cashu.CashuStore.StoredProof;

import com.fasterxml.jackson.core.JsonProcessingException;

/** Between the wire's {@link Proof} and the store's {@link StoredProof}. */
final class ProofRows {
    private ProofRows() {
    }

    static StoredProof row(String mint, Proof p, ProofState state, String opId, String lock, long now) {
        String dleq = null;
        if (p.dleq() != null) {
            try {
                dleq = Nut.json().writeValueAsString(p.dleq());
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        return new StoredProof(mint, p.id(), p.amount(), p.secret(), p.c(), dleq, state, opId, lock, now);
    }

    static List<StoredProof> rows(String mint, Collection<Proof> ps, ProofState state, String opId, String lock,
            long now) {
        List<StoredProof> out = new ArrayList<>(ps.size());
        for (Proof p : ps) {
            out.add(row(mint, p, state, opId, lock, now));
        }
        return out;
    }

    static Proof proof(StoredProof r) {
        ProofDleq dleq = null;
        if (r.dleqJson() != null) {
            try {
                dleq = Nut.json().readValue(r.dleqJson(), ProofDleq.class);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("a stored DLEQ proof does not parse", e);
            }
        }
        return new Proof(r.amount(), r.keysetId(), r.secret(), r.c(), dleq, null);
    }

    static List<Proof> proofs(Collection<StoredProof> rs) {
        List<Proof> out = new ArrayList<>(rs.size());
        for (StoredProof r : rs) {
            out.add(proof(r));
        }
        return out;
    }

    static List<String> secrets(Collection<Proof> ps) {
        List<String> out = new ArrayList<>(ps.size());
        for (Proof p : ps) {
            out.add(p.secret());
        }
        return out;
    }

    static long sum(Collection<Proof> ps) {
        long s = 0;
        for (Proof p : ps) {
            s = Math.addExact(s, p.amount());
        }
        return s;
    }
}
