package org.fleetmesh.settlement.cashu.wallet;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.settlement.cashu.conditions.WellKnownSecret;
import org.fleetmesh.settlement.cashu.mint.ErrorCodes;
import org.fleetmesh.settlement.cashu.mint.MintException;
import org.fleetmesh.settlement.cashu.nut.BlindSignature;
import org.fleetmesh.settlement.cashu.nut.Keyset;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.token.Token;
import org.fleetmesh.spi.settlement.cashu.CashuStore.Op;
import org.fleetmesh.spi.settlement.cashu.CashuStore.ProofState;
import org.fleetmesh.spi.settlement.cashu.CashuStore.StoredProof;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * NUT-03 swaps and what is built on them: sending (split off a token), receiving a token, locking proofs to a
 * NUT-10 condition (an HTLC for a payment), claiming held proofs and refunding locked ones. Every swap is one
 * operation: recorded (inputs, outputs with secrets and r, where each output goes), inputs moved to PENDING, the
 * request, then the outcome in one store write.
 */
public final class Swaps {
    static final String KIND = "swap";
    /** NUT error code: a proof is already spent. */
    static final int TOKEN_ALREADY_SPENT = 11001;

    /** Where an output goes once signed: its state, and the lock (payment hash hex) it serves, if any. */
    public record Use(ProofState state, String lock) {
        static final Use KEEP = new Use(ProofState.UNSPENT, null);
    }

    private final Wallet w;

    Swaps(Wallet w) {
        this.w = w;
    }

    /** A token worth exactly {@code amount}: proofs split off by a swap when no exact set is at hand. */
    public Token send(long amount, String memo) {
        if (amount <= 0) {
            throw new WalletException("the amount to send must be positive");
        }
        String opId = Wallet.newId();
        Op op = record(opId, "send", "UNSPENT", List.of(), List.of(), List.of(), null);
        List<Proof> exact = exactSet(amount, opId);
        if (exact != null) {
            w.store.complete(op.with(Wallet.DONE, op.payload(), w.now()), ProofRows.secrets(exact), ProofState.SENT,
                    List.of());
            return new Token(w.mintUrl, w.unit, memo, exact);
        }
        List<Proof> inputs = reserveOwn(op, amount, true);
        long change = ProofRows.sum(inputs) - amount - w.feeOfProofs(inputs);
        List<Output> send = w.derivedOutputs(amount);
        List<Output> keep = w.derivedOutputs(change);
        List<Output> outputs = new ArrayList<>(send);
        outputs.addAll(keep);
        List<Use> uses = new ArrayList<>();
        send.forEach(o -> uses.add(new Use(ProofState.SENT, null)));
        keep.forEach(o -> uses.add(Use.KEEP));
        List<Proof> out = run(op, inputs, "UNSPENT", outputs, uses);
        return new Token(w.mintUrl, w.unit, memo, out.subList(0, send.size()));
    }

    /** Proofs summing exactly to {@code amount} if the wallet has such a set (greedy, largest first), reserved. */
    private List<Proof> exactSet(long amount, String opId) {
        synchronized (w.reserving) { // else a concurrent selection sees proofs vanish and fails
            List<StoredProof> unspent = new ArrayList<>(w.store.proofs(w.mintUrl, ProofState.UNSPENT));
            unspent.sort((a, b) -> Long.compare(b.amount(), a.amount()));
            List<String> picked = new ArrayList<>();
            List<StoredProof> rows = new ArrayList<>();
            long left = amount;
            for (StoredProof p : unspent) {
                if (p.amount() <= left) {
                    picked.add(p.secret());
                    rows.add(p);
                    left -= p.amount();
                }
            }
            if (left != 0 || !w.store.reserve(picked, opId)) {
                return null;
            }
            return ProofRows.proofs(rows);
        }
    }

    /**
     * Takes a token: checks it is for this mint and unit, in known keysets, unlocked, with a valid DLEQ proof on
     * every proof (NUT-12, when the wallet requires it), then swaps it for fresh proofs of this wallet. Returns the
     * amount credited (the token's amount less the mint's input fee).
     */
    public long receive(Token token) {
        if (!Mints.same(token.mint(), w.mintUrl)) {
            throw new WalletException("the token is from mint " + token.mint() + ", this wallet uses " + w.mintUrl);
        }
        String tokenUnit = token.unit() == null ? "sat" : token.unit();
        if (!tokenUnit.equals(w.unit)) {
            throw new WalletException("the token is in " + tokenUnit + ", this wallet holds " + w.unit);
        }
        List<Proof> proofs = fullIds(token.proofs());
        if (proofs.isEmpty()) {
            throw new WalletException("the token has no proofs");
        }
        Set<String> secrets = new HashSet<>();
        MintKeys keys = w.keys();
        for (Proof p : proofs) {
            if (!secrets.add(p.secret())) {
                throw new WalletException("the token has the same proof twice");
            }
            if (keys.keyset(p.id()).isEmpty()) {
                keys = w.refreshKeys();
                if (keys.keyset(p.id()).isEmpty()) {
                    throw new WalletException("the token has a proof of keyset " + p.id() + ", unknown to the mint in "
                            + w.unit);
                }
            }
            if (isLocked(p.secret())) {
                throw new WalletException("the token is locked to a spending condition (NUT-10); it cannot be received"
                        + " as plain ecash");
            }
            // NUT-12: a DLEQ the sender included must hold; without one, the swap at the mint is the only check
            if (p.dleq() != null && !Outputs.dleqValid(p, keys)) {
                throw new WalletException("the token has a proof with an invalid DLEQ proof (NUT-12): not signed by"
                        + " this mint's key");
            }
        }
        if (!w.store.proofsBySecret(secrets).isEmpty()) {
            throw new WalletException("this wallet already has proofs of this token");
        }
        long fee = w.feeOfProofs(proofs);
        long net = ProofRows.sum(proofs) - fee;
        if (net <= 0) {
            throw new WalletException("the token is worth " + ProofRows.sum(proofs) + " " + w.unit
                    + ", not more than the mint's fee of " + fee);
        }
        String opId = Wallet.newId();
        Op op = record(opId, "receive", "FOREIGN", proofs, List.of(), List.of(), null);
        w.store.addProofs(ProofRows.rows(w.mintUrl, proofs, ProofState.PENDING, opId, null, w.now()));
        List<Output> outputs = w.derivedOutputs(net);
        List<Use> uses = new ArrayList<>();
        outputs.forEach(o -> uses.add(Use.KEEP));
        run(op, proofs, "FOREIGN", outputs, uses);
        return net;
    }

    /**
     * Locks {@code amount} to secrets made by {@code secretOf} (one a proof, e.g. NUT-14 HTLCs on a hash), the
     * change back to the wallet. The locked proofs are SENT under {@code lock}: kept until the mint says they are
     * spent (claimed, or refunded to us).
     */
    public List<Proof> lock(long amount, java.util.function.Supplier<String> secretOf, String lock) {
        String opId = Wallet.newId();
        Op op = record(opId, "lock", "UNSPENT", List.of(), List.of(), List.of(), lock);
        List<Proof> inputs = reserveOwn(op, amount, true);
        long change = ProofRows.sum(inputs) - amount - w.feeOfProofs(inputs);
        Keyset active = w.keys().active();
        List<Output> outputs = new ArrayList<>();
        List<Use> uses = new ArrayList<>();
        for (long a : Amounts.split(amount, w.keys().denominations(active.id()))) {
            outputs.add(Output.withSecret(active.id(), a, secretOf.get()));
            uses.add(new Use(ProofState.SENT, lock));
        }
        int locked = outputs.size();
        for (Output o : w.derivedOutputs(change)) {
            outputs.add(o);
            uses.add(Use.KEEP);
        }
        return run(op, inputs, "UNSPENT", outputs, uses).subList(0, locked);
    }

    /**
     * Swaps proofs this wallet holds under a condition ({@code from}: HELD for received HTLCs, SENT for our own
     * locked proofs being refunded), each carrying its witness, into plain proofs of the wallet. Returns the amount
     * credited.
     */
    public long redeem(List<Proof> withWitness, ProofState from, String purpose) {
        String opId = Wallet.newId();
        long net = ProofRows.sum(withWitness) - w.feeOfProofs(withWitness);
        if (net <= 0) {
            throw new WalletException("the proofs are worth no more than the mint's fee");
        }
        Op op = record(opId, purpose, from.name(), withWitness, List.of(), List.of(), null);
        if (!w.store.reserve(ProofRows.secrets(withWitness), from, opId)) {
            w.store.saveOp(op.with(Wallet.FAILED, op.payload(), w.now()));
            throw new WalletException("the proofs are not " + from + " (another operation has them)");
        }
        List<Output> outputs = w.derivedOutputs(net);
        List<Use> uses = new ArrayList<>();
        outputs.forEach(o -> uses.add(Use.KEEP));
        run(op, withWitness, from.name(), outputs, uses);
        return net;
    }

    /**
     * Claims a token locked by a NUT-14 HTLC to the hash of {@code preimageHex} (and, when it names receivers, to our
     * key): the preimage and our signature go in each proof's witness and the proofs are swapped into the wallet.
     */
    public long claimHtlc(Token token, String preimageHex, byte[] lockKey) {
        String hash;
        try {
            hash = org.fleetmesh.settlement.cashu.conditions.Htlc.hashLock(org.fleetmesh.nostr.Hex.decode(preimageHex, 32));
        } catch (IllegalArgumentException e) {
            throw new WalletException("the preimage must be 32 bytes of hex");
        }
        if (!Mints.same(token.mint(), w.mintUrl)) {
            throw new WalletException("the token is from mint " + token.mint() + ", this wallet uses " + w.mintUrl);
        }
        List<Proof> proofs = fullIds(token.proofs());
        MintKeys keys = w.keys();
        List<Proof> unlocked = new ArrayList<>();
        for (Proof p : proofs) {
            WellKnownSecret s;
            try {
                s = WellKnownSecret.parse(p.secret()).orElse(null);
            } catch (org.fleetmesh.settlement.cashu.conditions.ConditionException e) {
                s = null;
            }
            if (s == null || !WellKnownSecret.HTLC.equals(s.kind()) || !hash.equals(s.data())) {
                throw new WalletException("the token has a proof that is not an HTLC on this preimage's hash");
            }
            if (keys.keyset(p.id()).isEmpty()) {
                throw new WalletException("the token has a proof of keyset " + p.id() + ", unknown to the mint in " + w.unit);
            }
            if (p.dleq() != null && !Outputs.dleqValid(p, keys)) {
                throw new WalletException("the token has a proof with an invalid DLEQ proof (NUT-12)");
            }
            try {
                unlocked.add(org.fleetmesh.settlement.cashu.conditions.Htlc.unlock(p.withWitness(null), preimageHex, lockKey));
            } catch (org.fleetmesh.settlement.cashu.conditions.ConditionException e) {
                throw new WalletException("cannot unlock: " + e.getMessage());
            }
        }
        if (!w.store.proofsBySecret(ProofRows.secrets(proofs)).isEmpty()) {
            throw new WalletException("this wallet already has proofs of this token");
        }
        w.store.addProofs(ProofRows.rows(w.mintUrl, proofs, ProofState.HELD, null, hash, w.now()));
        return redeem(unlocked, ProofState.HELD, "claim");
    }

    /**
     * Tokens this wallet handed out (SENT without a lock) that their receiver has redeemed: the mint is asked (NUT-07)
     * and those it says are spent are marked SPENT, so they no longer count as sent. Returns the amount settled.
     */
    public long settleSent() {
        List<StoredProof> sent = w.store.proofs(w.mintUrl, ProofState.SENT).stream().filter(p -> p.lock() == null).toList();
        if (sent.isEmpty()) {
            return 0;
        }
        List<Proof> proofs = ProofRows.proofs(sent);
        var states = w.states(proofs);
        List<String> spent = new ArrayList<>();
        long amount = 0;
        for (Proof p : proofs) {
            if (states.get(p.secret()).state() == org.fleetmesh.settlement.cashu.mint.ProofState.State.SPENT) {
                spent.add(p.secret());
                amount = Math.addExact(amount, p.amount());
            }
        }
        if (!spent.isEmpty()) {
            w.store.setState(spent, ProofState.SPENT, null);
        }
        return amount;
    }

    /**
     * NUT-14 sender pathway: our locked proofs (SENT under a lock) whose locktime has passed and that name our key as
     * refund key are swapped back; those the mint says are spent (claimed) are marked so. Returns the amount refunded.
     */
    public long refundExpired(byte[] lockKey, String ourKey) {
        List<StoredProof> sent = w.store.proofs(w.mintUrl, ProofState.SENT).stream().filter(p -> p.lock() != null).toList();
        if (sent.isEmpty()) {
            return 0;
        }
        List<Proof> proofs = ProofRows.proofs(sent);
        var states = w.states(proofs);
        List<Proof> due = new ArrayList<>();
        for (Proof p : proofs) {
            var st = states.get(p.secret()).state();
            if (st == org.fleetmesh.settlement.cashu.mint.ProofState.State.SPENT) {
                w.store.setState(List.of(p.secret()), ProofState.SPENT, null);
                continue;
            }
            if (st != org.fleetmesh.settlement.cashu.mint.ProofState.State.UNSPENT) {
                continue;
            }
            try {
                WellKnownSecret s = WellKnownSecret.parse(p.secret()).orElse(null);
                if (s == null) {
                    continue;
                }
                var c = org.fleetmesh.settlement.cashu.conditions.Conditions.parse(s);
                if (c.expired(w.now()) && c.refund().contains(ourKey)) {
                    String sig = org.fleetmesh.settlement.cashu.conditions.P2pk.sign(p.secret(), lockKey);
                    due.add(p.withWitness(new org.fleetmesh.settlement.cashu.conditions.Witness(null, List.of(sig)).json()));
                }
            } catch (org.fleetmesh.settlement.cashu.conditions.ConditionException e) {
                // not a condition we can refund
            }
        }
        return due.isEmpty() ? 0 : redeem(due, ProofState.SENT, "refund");
    }

    /** Locks {@code amount} to an HTLC on {@code hashHex} for {@code receiver}, refundable to {@code refund} after {@code locktime}. */
    public Token lockHtlc(long amount, String hashHex, String receiver, long locktime, String refund, String memo) {
        var c = new org.fleetmesh.settlement.cashu.conditions.Conditions(
                org.fleetmesh.settlement.cashu.conditions.SigFlag.SIG_INPUTS, List.of(receiver), 0,
                java.util.OptionalLong.of(locktime), List.of(refund), 0);
        java.security.SecureRandom rnd = new java.security.SecureRandom();
        List<Proof> locked = lock(amount, () -> {
            byte[] nonce = new byte[16];
            rnd.nextBytes(nonce);
            return WellKnownSecret.htlc(org.fleetmesh.nostr.Hex.encode(nonce), hashHex, c).serialize();
        }, hashHex);
        return new Token(w.mintUrl, w.unit, memo, locked);
    }

    /** V4 tokens name v2 keysets by their first 8 bytes: the full id, by the mint's keysets. */
    private List<Proof> fullIds(List<Proof> proofs) {
        List<Proof> out = new ArrayList<>(proofs.size());
        for (Proof p : proofs) {
            String id = p.id();
            if (id.startsWith("01") && id.length() == 16) {
                List<String> matches = w.keys().all().stream().map(Keyset::id).filter(k -> k.startsWith(id)).toList();
                if (matches.isEmpty()) {
                    matches = w.refreshKeys().all().stream().map(Keyset::id).filter(k -> k.startsWith(id)).toList();
                }
                if (matches.size() > 1) {
                    throw new WalletException("the token's short keyset id " + id + " is ambiguous (NUT-00)");
                }
                String full = matches.isEmpty() ? id : matches.get(0);
                p = new Proof(p.amount(), full, p.secret(), p.c(), p.dleq(), p.witness());
            }
            out.add(p);
        }
        return out;
    }

    private static boolean isLocked(String secret) {
        try {
            return WellKnownSecret.parse(secret).isPresent();
        } catch (org.fleetmesh.settlement.cashu.conditions.ConditionException e) {
            return true; // a malformed NUT-10 secret is no plain secret either
        }
    }

    private List<Proof> reserveOwn(Op op, long amount, boolean withFee) {
        try {
            return w.selectAndReserve(amount, op.id(), withFee);
        } catch (WalletException e) {
            w.store.saveOp(op.with(Wallet.FAILED, op.payload(), w.now()));
            throw e;
        }
    }

    private Op record(String opId, String purpose, String from, List<Proof> inputs, List<Output> outputs,
            List<Use> uses, String lock) {
        Op op = new Op(opId, KIND, null, w.mintUrl, Wallet.PREPARED,
                Wallet.text(payload(purpose, from, inputs, outputs, uses, lock)), w.now(), w.now());
        w.store.saveOp(op);
        return op;
    }

    private static ObjectNode payload(String purpose, String from, List<Proof> inputs, List<Output> outputs,
            List<Use> uses, String lock) {
        ObjectNode p = Wallet.payload();
        p.put("purpose", purpose);
        p.put("from", from);
        if (lock != null) {
            p.put("lock", lock);
        }
        p.set("inputs", Wallet.proofsJson(inputs));
        p.set("outputs", Outputs.toJson(outputs));
        ArrayNode u = p.putArray("uses");
        for (Use use : uses) {
            ObjectNode n = u.addObject();
            n.put("state", use.state().name());
            if (use.lock() != null) {
                n.put("lock", use.lock());
            }
        }
        return p;
    }

    /** The swap itself, its inputs already PENDING under {@code op}. */
    private List<Proof> run(Op op, List<Proof> inputs, String from, List<Output> outputs, List<Use> uses) {
        JsonNode old = Wallet.parse(op.payload());
        Op recorded = op.with(Wallet.PREPARED, Wallet.text(payload(old.path("purpose").asText(), from, inputs, outputs,
                uses, old.hasNonNull("lock") ? old.get("lock").asText() : null)), w.now());
        w.store.saveOp(recorded);
        List<BlindSignature> sigs;
        try {
            sigs = w.mint.swap(inputs, Outputs.messages(outputs));
        } catch (MintException e) {
            if (!e.definite()) {
                throw new WalletException("mint: no answer to the swap (" + e.getMessage()
                        + "); it is resolved by the next recovery", e);
            }
            // a received token's proofs the mint calls invalid are worthless: never credit them
            ProofState back = e.code() == TOKEN_ALREADY_SPENT
                    || "FOREIGN".equals(from) && e.code() == ErrorCodes.PROOF_VERIFICATION_FAILED ? ProofState.SPENT
                    : origin(from);
            w.store.complete(recorded.with(Wallet.FAILED, recorded.payload(), w.now()), ProofRows.secrets(inputs), back,
                    List.of());
            throw new WalletException("mint refused the swap: " + e.detail() + " (code " + e.code() + ")", e);
        }
        Outputs.Unblinded u = Outputs.unblindKeeping(outputs, sigs, w.keys(), dleqCheck());
        store(recorded, inputs, outputs, uses, u.proofs());
        if (u.dleqProblem() != null) {
            throw u.dleqProblem();
        }
        return u.proofs();
    }

    private void store(Op op, List<Proof> inputs, List<Output> outputs, List<Use> uses, List<Proof> proofs) {
        Map<String, Integer> indexOf = new HashMap<>();
        for (int i = 0; i < outputs.size(); i++) {
            indexOf.put(outputs.get(i).secret(), i);
        }
        List<StoredProof> rows = new ArrayList<>();
        for (Proof p : proofs) {
            Use use = uses.get(indexOf.get(p.secret()));
            rows.add(ProofRows.row(w.mintUrl, p, use.state(), op.id(), use.lock(), w.now()));
        }
        w.store.complete(op.with(Wallet.DONE, op.payload(), w.now()), ProofRows.secrets(inputs), ProofState.SPENT, rows);
    }

    private Outputs.DleqCheck dleqCheck() {
        return w.options.requireDleq() ? Outputs.DleqCheck.REQUIRE : Outputs.DleqCheck.IF_PRESENT;
    }

    static ProofState origin(String from) {
        return switch (from) {
            case "HELD" -> ProofState.HELD;
            case "SENT" -> ProofState.SENT;
            default -> ProofState.UNSPENT; // ours, or a received token's proofs, which we hold and may swap again
        };
    }

    /** After a crash: were the inputs spent? Then recover our outputs' signatures (NUT-09); else release them. */
    String recover(Op op) {
        JsonNode p = Wallet.parse(op.payload());
        List<Proof> inputs = Wallet.proofsOf(p.get("inputs"));
        List<Output> outputs = Outputs.fromJson(p.get("outputs"));
        String from = p.path("from").asText("UNSPENT");
        if (inputs.isEmpty()) {
            // crashed before the inputs were chosen: release whatever was reserved under it
            List<StoredProof> reserved = w.store.proofsOfOp(op.id());
            w.store.complete(op.with(Wallet.FAILED, op.payload(), w.now()),
                    reserved.stream().map(StoredProof::secret).toList(), ProofState.UNSPENT, List.of());
            return "failed before the request; " + reserved.size() + " proofs released";
        }
        var states = w.states(inputs);
        int spent = 0;
        int pending = 0;
        for (var s : states.values()) {
            switch (s.state()) {
                case SPENT -> spent++;
                case PENDING -> pending++;
                default -> {
                }
            }
        }
        if (pending > 0) {
            return "pending at the mint; left for later";
        }
        if (spent == 0) {
            w.store.complete(op.with(Wallet.FAILED, op.payload(), w.now()), ProofRows.secrets(inputs), origin(from),
                    List.of());
            return "not done by the mint; " + inputs.size() + " inputs released";
        }
        // a send that threw never handed its token to anyone: those proofs are the wallet's again
        boolean undelivered = "send".equals(p.path("purpose").asText());
        List<Use> uses = new ArrayList<>();
        for (JsonNode u : p.path("uses")) {
            ProofState st = ProofState.valueOf(u.get("state").asText());
            uses.add(new Use(undelivered && st == ProofState.SENT ? ProofState.UNSPENT : st,
                    u.hasNonNull("lock") ? u.get("lock").asText() : null));
        }
        var restored = w.mint.restore(Outputs.messages(outputs));
        List<Proof> proofs = Outputs.unblindRestored(outputs, restored.outputs(), restored.signatures(), w.keys(),
                Outputs.DleqCheck.IF_PRESENT);
        List<String> spentSecrets = new ArrayList<>();
        List<String> unspentSecrets = new ArrayList<>();
        for (Proof in : inputs) {
            (states.get(in.secret()).state() == org.fleetmesh.settlement.cashu.mint.ProofState.State.SPENT ? spentSecrets : unspentSecrets).add(in.secret());
        }
        if (!unspentSecrets.isEmpty()) {
            w.store.setState(unspentSecrets, origin(from), null);
        }
        store(op, inputs.stream().filter(i -> spentSecrets.contains(i.secret())).toList(), outputs, uses, proofs);
        return proofs.isEmpty() ? "inputs spent elsewhere; nothing to restore"
                : "done by the mint; " + proofs.size() + " of " + outputs.size() + " outputs restored";
    }
}
