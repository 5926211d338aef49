package org.fleetmesh.settlement.cashu.wallet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.settlement.cashu.mint.MintException;
import org.fleetmesh.settlement.cashu.mint.MintQuote;
import org.fleetmesh.settlement.cashu.nut.BlindSignature;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.spi.settlement.cashu.CashuStore.Op;
import org.fleetmesh.spi.settlement.cashu.CashuStore.ProofState;
import org.fleetmesh.spi.settlement.cashu.CashuStore.StoredProof;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * NUT-04 (bolt11): a quote to pay, then the proofs. The outputs (NUT-13) are recorded before the mint request, so a
 * crash after the mint signed is recovered with NUT-09 and a crash before it simply asks again with the same outputs.
 */
public final class Minting {
    static final String KIND = "mint";
    static final String QUOTED = "QUOTED";
    static final String ISSUING = "ISSUING";
    /** NUT error codes. */
    static final int QUOTE_NOT_PAID = 20001;
    static final int QUOTE_ALREADY_ISSUED = 20002;
    static final int OUTPUTS_ALREADY_SIGNED = 11003;

    private final Wallet w;

    Minting(Wallet w) {
        this.w = w;
    }

    /** Asks the mint for a quote of {@code amount}: its {@code request} is the Lightning invoice to pay. */
    public MintQuote quote(long amount) {
        if (amount <= 0) {
            throw new WalletException("the amount to mint must be positive");
        }
        MintQuote q = w.mint.mintQuote(amount, w.unit);
        ObjectNode p = Wallet.payload();
        p.put("amount", amount);
        p.put("request", q.request());
        w.store.saveOp(new Op(Wallet.newId(), KIND, q.quote(), w.mintUrl, QUOTED, Wallet.text(p), w.now(), w.now()));
        return q;
    }

    /** Waits until the quote is paid (polling every {@code poll}), then issues the proofs. */
    public List<Proof> await(String quote, Duration timeout, Duration poll) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            MintQuote q = w.mint.mintQuoteState(quote);
            if (q.state() != MintQuote.State.UNPAID) {
                return issue(quote);
            }
            if (System.nanoTime() > deadline) {
                throw new WalletException("the invoice of quote " + quote + " was not paid within " + timeout.toSeconds() + " s");
            }
            Thread.sleep(poll.toMillis());
        }
    }

    /** Issues the proofs of a paid quote. */
    public List<Proof> issue(String quote) {
        Op op = w.store.opByKey(KIND, quote).orElseThrow(() -> new WalletException("no quote " + quote + " in this wallet"));
        if (op.state().equals(Wallet.DONE)) {
            throw new WalletException("quote " + quote + " was already issued to this wallet");
        }
        JsonNode p = Wallet.parse(op.payload());
        List<Output> outputs = Outputs.fromJson(p.get("outputs"));
        if (outputs.isEmpty()) {
            outputs = w.derivedOutputs(p.get("amount").asLong());
            ObjectNode np = ((ObjectNode) p.deepCopy());
            np.set("outputs", Outputs.toJson(outputs));
            op = op.with(ISSUING, Wallet.text(np), w.now());
            w.store.saveOp(op);
        }
        List<BlindSignature> sigs;
        try {
            sigs = w.mint.mint(quote, Outputs.messages(outputs));
        } catch (MintException e) {
            if (!e.definite()) {
                throw new WalletException("mint: no answer to the mint request (" + e.getMessage()
                        + "); it is resolved by the next recovery", e);
            }
            if (e.code() == OUTPUTS_ALREADY_SIGNED || e.code() == QUOTE_ALREADY_ISSUED) {
                String outcome = recover(op);
                if (outcome.startsWith("done")) {
                    return ProofRows.proofs(w.store.proofsOfOp(op.id()));
                }
            }
            throw new WalletException("mint refused to issue: " + e.detail() + " (code " + e.code() + ")", e);
        }
        Outputs.Unblinded u = Outputs.unblindKeeping(outputs, sigs, w.keys(),
                w.options.requireDleq() ? Outputs.DleqCheck.REQUIRE : Outputs.DleqCheck.IF_PRESENT);
        store(op, u.proofs());
        if (u.dleqProblem() != null) {
            throw u.dleqProblem();
        }
        return u.proofs();
    }

    private void store(Op op, List<Proof> proofs) {
        List<StoredProof> rows = ProofRows.rows(w.mintUrl, proofs, ProofState.UNSPENT, op.id(), null, w.now());
        w.store.complete(op.with(Wallet.DONE, op.payload(), w.now()), List.of(), ProofState.SPENT, rows);
    }

    String recover(Op op) {
        JsonNode p = Wallet.parse(op.payload());
        List<Output> outputs = Outputs.fromJson(p.get("outputs"));
        if (outputs.isEmpty()) {
            return "quoted; not paid or not issued yet";
        }
        var restored = w.mint.restore(Outputs.messages(outputs));
        if (!restored.signatures().isEmpty()) {
            List<Proof> proofs = Outputs.unblindRestored(outputs, restored.outputs(), restored.signatures(), w.keys(),
                    Outputs.DleqCheck.IF_PRESENT);
            store(op, proofs);
            return "done by the mint; " + proofs.size() + " proofs restored";
        }
        MintQuote q = w.mint.mintQuoteState(op.key());
        switch (q.state()) {
            case PAID -> {
                issue(op.key());
                return "done: issued again with the recorded outputs";
            }
            case ISSUED -> {
                w.store.saveOp(op.with(Wallet.FAILED, op.payload(), w.now()));
                return "failed: the quote was issued to other outputs";
            }
            default -> {
                return "quoted; not paid yet";
            }
        }
    }

    /** Quotes of this wallet not yet issued. */
    public List<String> open() {
        List<String> out = new ArrayList<>();
        for (Op op : w.store.opsInStates(List.of(QUOTED, ISSUING))) {
            if (op.kind().equals(KIND) && op.mint().equals(w.mintUrl)) {
                out.add(op.key());
            }
        }
        return out;
    }
}
