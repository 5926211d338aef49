package org.fleetmesh.settlement.cashu.wallet;

import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.settlement.cashu.nut.Keyset;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.spi.settlement.cashu.CashuStore.ProofState;
import org.fleetmesh.spi.settlement.cashu.CashuStore.StoredProof;

/**
 * NUT-09 with NUT-13: regenerates this seed's outputs keyset by keyset, counter 0 upwards in batches, asks the mint
 * which it signed, and keeps those still unspent, until three batches in a row come back empty. A wallet that lost
 * its database gets its proofs back; the keysets' counters move past everything found.
 */
final class Restore {
    /** What a restore found. */
    public record Result(int signed, int unspent, long amount, List<String> keysets) {
    }

    private final Wallet w;
    private final byte[] seed;

    Restore(Wallet w, byte[] seed) {
        this.w = w;
        this.seed = seed;
    }

    Result run() {
        int signed = 0;
        int unspent = 0;
        long amount = 0;
        List<String> ids = new ArrayList<>();
        int batch = w.options.restoreBatch();
        for (Keyset k : w.keys().all()) {
            ids.add(k.id());
            long counter = 0;
            long next = 0;
            int empty = 0;
            while (empty < w.options.restoreEmptyBatches()) {
                List<Output> outputs = new ArrayList<>(batch);
                for (int i = 0; i < batch; i++) {
                    outputs.add(Output.derived(seed, k.id(), counter + i, 1));
                }
                var restored = w.mint.restore(Outputs.messages(outputs));
                List<Proof> found = Outputs.unblindRestored(outputs, restored.outputs(), restored.signatures(), w.keys(),
                        Outputs.DleqCheck.IF_PRESENT);
                if (found.isEmpty()) {
                    empty++;
                } else {
                    empty = 0;
                    signed += found.size();
                    for (Proof p : found) {
                        for (int i = 0; i < outputs.size(); i++) {
                            if (outputs.get(i).secret().equals(p.secret())) {
                                next = Math.max(next, counter + i + 1);
                            }
                        }
                    }
                    var states = w.states(found);
                    List<StoredProof> rows = new ArrayList<>();
                    for (Proof p : found) {
                        if (states.get(p.secret()).state() == org.fleetmesh.settlement.cashu.mint.ProofState.State.UNSPENT) {
                            rows.add(ProofRows.row(w.mintUrl, p, ProofState.UNSPENT, null, null, w.now()));
                        }
                    }
                    // proofs already known keep their state (a SENT one stays SENT until the mint says spent)
                    List<String> known = w.store.proofsBySecret(rows.stream().map(StoredProof::secret).toList())
                            .stream().map(StoredProof::secret).toList();
                    rows.removeIf(r -> known.contains(r.secret()));
                    w.store.addProofs(rows);
                    unspent += rows.size();
                    for (StoredProof r : rows) {
                        amount += r.amount();
                    }
                }
                counter += batch;
            }
            if (next > w.store.counter(k.id())) {
                w.store.advanceCounter(k.id(), next);
            }
        }
        return new Result(signed, unspent, amount, ids);
    }
}
