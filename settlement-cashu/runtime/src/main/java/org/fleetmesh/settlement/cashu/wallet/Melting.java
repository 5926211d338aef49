package org.fleetmesh.settlement.cashu.wallet;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.fleetmesh.settlement.cashu.mint.MeltQuote;
import org.fleetmesh.settlement.cashu.mint.MintException;
import org.fleetmesh.settlement.cashu.nut.BlindSignature;
import org.fleetmesh.settlement.cashu.nut.Keyset;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.spi.settlement.cashu.CashuStore.Op;
import org.fleetmesh.spi.settlement.cashu.CashuStore.ProofState;
import org.fleetmesh.spi.settlement.cashu.CashuStore.StoredProof;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * NUT-05 (bolt11) with NUT-08 change: pays a Lightning invoice with proofs worth the amount, the fee reserve and the
 * input fee, and takes back what the fee did not use in blank outputs recorded before the request.
 */
public final class Melting {
    static final String KIND = "melt";

    /** How a melt ended: paid (with the preimage when the mint gives it), failed, or still pending at the mint. */
    public record Result(String quote, String state, String preimage, long amount, long spent, long change) {
        public boolean paid() {
            return "PAID".equals(state);
        }
    }

    private final Wallet w;

    Melting(Wallet w) {
        this.w = w;
    }

    public MeltQuote quote(String bolt11) {
        return w.mint.meltQuote(bolt11, w.unit);
    }

    /** Pays {@code bolt11}: quote, then melt. */
    public Result pay(String bolt11) {
        return melt(quote(bolt11));
    }

    public Result melt(MeltQuote q) {
        String opId = Wallet.newId();
        var earlier = w.store.opByKey(KIND, q.quote());
        if (earlier.isPresent()) {
            switch (earlier.get().state()) {
                case Wallet.DONE -> throw new WalletException("quote " + q.quote() + " was already paid by this wallet");
                case Wallet.FAILED -> opId = earlier.get().id(); // try again under the same record
                default -> throw new WalletException("a melt of quote " + q.quote()
                        + " is under way; it is resolved by recovery (`cashu pending`)");
            }
        }
        ObjectNode p = Wallet.payload();
        p.put("amount", q.amount());
        p.put("fee_reserve", q.feeReserve());
        Op op = new Op(opId, KIND, q.quote(), w.mintUrl, Wallet.PREPARED, Wallet.text(p), w.now(), w.now());
        w.store.saveOp(op);
        List<Proof> inputs;
        try {
            inputs = w.selectAndReserve(q.amount() + q.feeReserve(), opId, true);
        } catch (WalletException e) {
            w.store.saveOp(op.with(Wallet.FAILED, op.payload(), w.now()));
            throw e;
        }
        Keyset active = w.keys().active();
        // NUT-08 sizes the blanks by the fee reserve; what the selection adds beyond it comes back too
        int blanks = Amounts.blankOutputs(ProofRows.sum(inputs) - q.amount() - w.feeOfProofs(inputs));
        List<Output> outputs = w.derivedOutputs(active.id(), Collections.nCopies(blanks, 1L));
        p.set("inputs", Wallet.proofsJson(inputs));
        p.set("outputs", Outputs.toJson(outputs));
        op = op.with(Wallet.PREPARED, Wallet.text(p), w.now());
        w.store.saveOp(op);
        MeltQuote res;
        try {
            res = w.mint.melt(q.quote(), inputs, Outputs.messages(outputs));
        } catch (MintException e) {
            if (!e.definite()) {
                throw new WalletException("mint: no answer to the melt (" + e.getMessage()
                        + "); it is resolved by the next recovery", e);
            }
            ProofState back = e.code() == Swaps.TOKEN_ALREADY_SPENT ? ProofState.SPENT : ProofState.UNSPENT;
            w.store.complete(op.with(Wallet.FAILED, op.payload(), w.now()), ProofRows.secrets(inputs), back, List.of());
            throw new WalletException("mint refused the melt: " + e.detail() + " (code " + e.code() + ")", e);
        }
        return settle(op, q, inputs, outputs, res);
    }

    private Result settle(Op op, MeltQuote q, List<Proof> inputs, List<Output> outputs, MeltQuote res) {
        switch (res.state()) {
            case PAID -> {
                List<BlindSignature> change = res.change() == null ? List.of() : res.change();
                List<Proof> proofs = Outputs.unblind(outputs, change, w.keys(), true, Outputs.DleqCheck.IF_PRESENT);
                store(op, inputs, proofs);
                long back = ProofRows.sum(proofs);
                return new Result(q.quote(), "PAID", res.paymentPreimage(), q.amount(), ProofRows.sum(inputs) - back, back);
            }
            case UNPAID -> {
                w.store.complete(op.with(Wallet.FAILED, op.payload(), w.now()), ProofRows.secrets(inputs),
                        ProofState.UNSPENT, List.of());
                return new Result(q.quote(), "UNPAID", null, q.amount(), 0, 0);
            }
            default -> {
                return new Result(q.quote(), "PENDING", null, q.amount(), 0, 0);
            }
        }
    }

    private void store(Op op, List<Proof> inputs, List<Proof> change) {
        List<StoredProof> rows = ProofRows.rows(w.mintUrl, change, ProofState.UNSPENT, op.id(), null, w.now());
        w.store.complete(op.with(Wallet.DONE, op.payload(), w.now()), ProofRows.secrets(inputs), ProofState.SPENT, rows);
    }

    String recover(Op op) {
        JsonNode p = Wallet.parse(op.payload());
        List<Proof> inputs = Wallet.proofsOf(p.get("inputs"));
        List<Output> outputs = Outputs.fromJson(p.get("outputs"));
        if (inputs.isEmpty()) {
            List<StoredProof> reserved = w.store.proofsOfOp(op.id());
            w.store.complete(op.with(Wallet.FAILED, op.payload(), w.now()),
                    reserved.stream().map(StoredProof::secret).toList(), ProofState.UNSPENT, List.of());
            return "failed before the request; " + reserved.size() + " proofs released";
        }
        MeltQuote q = w.mint.meltQuoteState(op.key());
        switch (q.state()) {
            case PAID -> {
                List<Proof> change;
                if (q.change() != null && !q.change().isEmpty()) {
                    change = Outputs.unblind(outputs, q.change(), w.keys(), true, Outputs.DleqCheck.IF_PRESENT);
                } else {
                    var restored = w.mint.restore(Outputs.messages(outputs));
                    change = Outputs.unblindRestored(outputs, restored.outputs(), restored.signatures(), w.keys(),
                            Outputs.DleqCheck.IF_PRESENT);
                }
                store(op, inputs, new ArrayList<>(change));
                return "done: paid; " + change.size() + " change proofs";
            }
            case UNPAID -> {
                var states = w.states(inputs);
                boolean anySpent = states.values().stream().anyMatch(s -> s.state() != org.fleetmesh.settlement.cashu.mint.ProofState.State.UNSPENT);
                if (anySpent) {
                    return "pending: the quote is unpaid but the inputs are not free";
                }
                w.store.complete(op.with(Wallet.FAILED, op.payload(), w.now()), ProofRows.secrets(inputs),
                        ProofState.UNSPENT, List.of());
                return "failed: not paid; " + inputs.size() + " inputs released";
            }
            default -> {
                return "pending at the mint; left for later";
            }
        }
    }
}
