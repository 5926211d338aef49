package org.fleetmesh.settlement.cashu.rail;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.cashu.conditions.ConditionException;
import org.fleetmesh.settlement.cashu.conditions.Conditions;
import org.fleetmesh.settlement.cashu.conditions.P2pk;
import org.fleetmesh.settlement.cashu.conditions.SigFlag;
import org.fleetmesh.settlement.cashu.conditions.WellKnownSecret;
import org.fleetmesh.settlement.cashu.conditions.Witness;
import org.fleetmesh.settlement.cashu.mint.ProofState;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.request.PaymentRequest;
import org.fleetmesh.settlement.cashu.request.PaymentRequestPayload;
import org.fleetmesh.settlement.cashu.request.Transport;
import org.fleetmesh.settlement.cashu.token.TokenException;
import org.fleetmesh.settlement.cashu.wallet.Amounts;
import org.fleetmesh.settlement.cashu.wallet.Mints;
import org.fleetmesh.settlement.cashu.wallet.Wallet;
import org.fleetmesh.settlement.cashu.wallet.WalletException;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementException.Reason;
import org.fleetmesh.spi.settlement.cashu.CashuStore;
import org.fleetmesh.spi.settlement.cashu.CashuStore.Op;
import org.fleetmesh.spi.settlement.cashu.CashuStore.StoredProof;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The payer's side: locks proofs to the request's HTLC (the payee's key, the request's locktime, our key as the
 * refund key), delivers them by the request's POST transport, and learns the preimage from the mint's NUT-07 witness
 * once the payee claims. A payment is recorded under its hash before anything leaves, so paying the same request
 * again follows the first payment instead of paying twice; proofs never claimed come back after the locktime.
 *
 * <pre>
 *   LOCKING -> LOCKED -> DELIVERED -> PAID            (preimage from the witness)
 *                   \-> REFUSED ---\
 *                    \--------------> REFUNDED        (after the locktime, with our refund signature)
 * </pre>
 */
final class Outgoing {
    private static final Logger LOG = Logger.getLogger(Outgoing.class);
    static final String KIND = "htlc-out";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final CashuRail rail;
    private final Wallet w;
    private final CashuStore store;

    Outgoing(CashuRail rail) {
        this.rail = rail;
        this.w = rail.wallet();
        this.store = rail.store();
    }

    /** What a request asks, checked as a payer must before locking anything. */
    record Terms(PaymentRequest request, PaymentHash hash, long amount, String payee, long locktime, String url) {
    }

    Terms terms(String creq) {
        PaymentRequest r;
        try {
            r = PaymentRequest.decode(creq);
        } catch (TokenException | IllegalArgumentException e) {
            throw new SettlementException(Reason.INVALID_REQUEST, "not a Cashu payment request: " + e.getMessage());
        }
        if (r.nut10() == null || !WellKnownSecret.HTLC.equals(r.nut10().kind())) {
            throw new SettlementException(Reason.INVALID_REQUEST, "the request asks for no HTLC lock (NUT-14)");
        }
        PaymentHash hash;
        try {
            hash = PaymentHash.ofHex(r.nut10().data());
        } catch (IllegalArgumentException e) {
            throw new SettlementException(Reason.INVALID_REQUEST, "the request's hash lock is not 32 bytes of hex");
        }
        if (r.amount().isEmpty()) {
            throw new SettlementException(Reason.INVALID_REQUEST, "the request names no amount");
        }
        if (!w.unit().equals(r.unit())) {
            throw new SettlementException(Reason.INVALID_REQUEST, "the request is in " + r.unit() + "; this wallet holds "
                    + w.unit());
        }
        if (r.mints() != null && !r.mints().isEmpty() && r.mints().stream().noneMatch(m -> Mints.same(m, w.mintUrl()))) {
            throw new SettlementException(Reason.INVALID_REQUEST, "the request takes ecash of " + r.mints()
                    + ", not of " + w.mintUrl());
        }
        Conditions c;
        try {
            c = Conditions.parse(new WellKnownSecret(WellKnownSecret.HTLC, "00", r.nut10().data(),
                    r.nut10().tags() == null ? List.of() : r.nut10().tags()));
        } catch (ConditionException | IllegalArgumentException e) {
            throw new SettlementException(Reason.INVALID_REQUEST, "the request's lock tags: " + e.getMessage());
        }
        if (c.pubkeys().size() != 1 || c.requiredSigs() != 1 || c.sigFlag() != SigFlag.SIG_INPUTS) {
            throw new SettlementException(Reason.INVALID_REQUEST, "the request must lock to exactly one payee key");
        }
        if (c.locktime().isEmpty()) {
            throw new SettlementException(Reason.INVALID_REQUEST, "the request's lock has no locktime, so our refund"
                    + " would be locked forever");
        }
        String url = null;
        for (Transport t : r.transports() == null ? List.<Transport>of() : r.transports()) {
            if (Transport.POST.equals(t.type()) && t.target() != null
                    && (t.target().startsWith("http://") || t.target().startsWith("https://"))) {
                url = t.target();
                break;
            }
        }
        if (url == null) {
            throw new SettlementException(Reason.INVALID_REQUEST, "the request has no HTTP POST transport");
        }
        return new Terms(r, hash, r.amount().getAsLong(), c.pubkeys().get(0), c.locktime().getAsLong(), url);
    }

    PaymentResult pay(String creq, long maxFeeMsat) {
        // a request paid before is followed whatever the time: its locktime may well have passed (the refund)
        Optional<Op> existing = paidBefore(creq);
        if (existing.isPresent()) {
            return follow(existing.get(), rail.settings().payTimeout().toMillis());
        }
        Terms t = terms(creq);
        existing = store.opByKey(KIND, t.hash().hex());
        if (existing.isPresent()) {
            return follow(existing.get(), rail.settings().payTimeout().toMillis());
        }
        // only new locks are bound by the window: decoding, or following a payment, works past the locktime too
        long now = rail.now();
        if (t.locktime() <= now || t.locktime() > now + rail.settings().maxLocktime().toSeconds()) {
            throw new SettlementException(Reason.INVALID_REQUEST, "the request's locktime must lie between now and "
                    + rail.settings().maxLocktime().toMinutes() + " minutes from now, so our refund is not locked forever");
        }
        // the payee claims with one input per proof: its fee is ours to add, so it gets the amount asked
        var denominations = w.keys().denominations(w.keys().active().id());
        long lockAmount = lockAmount(t.amount(), a -> Amounts.split(a, denominations).size(), w.keys()::feeOfInputs);
        long claimFee = lockAmount - t.amount();
        long estimate = claimFee + w.keys().feeOfInputs(Math.max(1, Long.bitCount(lockAmount)));
        if (rail.units().toMsat(estimate) > maxFeeMsat) {
            return PaymentResult.failed(Reason.FEE_LIMIT_EXCEEDED, "the mint's fees (about " + estimate + " "
                    + w.unit() + ") exceed the limit of " + maxFeeMsat + " msat");
        }
        ObjectNode p = CashuRail.json();
        p.put("request", creq);
        p.put("amount", t.amount());
        p.put("lock_amount", lockAmount);
        p.put("payee", t.payee());
        p.put("locktime", t.locktime());
        p.put("url", t.url());
        p.put("request_id", t.request().id() == null ? "" : t.request().id());
        Op op = new Op(java.util.UUID.randomUUID().toString(), KIND, t.hash().hex(), w.mintUrl(), "LOCKING",
                p.toString(), rail.now(), rail.now());
        try {
            store.saveOp(op);
        } catch (IllegalStateException e) {
            return follow(store.opByKey(KIND, t.hash().hex()).orElseThrow(), rail.settings().payTimeout().toMillis());
        }
        List<Proof> locked;
        try {
            locked = w.swaps().lock(lockAmount, () -> secret(t), t.hash().hex());
        } catch (WalletException e) {
            store.saveOp(op.with("FAILED", op.payload(), rail.now()));
            Reason r = e.getMessage().startsWith("insufficient funds") ? Reason.INSUFFICIENT_FUNDS : Reason.RAIL_ERROR;
            return PaymentResult.failed(r, e.getMessage());
        }
        // what we pay beyond the amount: the claim's fee we added, and the input fee of our own lock swap
        long fee = locked.stream().mapToLong(Proof::amount).sum() - t.amount() + swapFee(locked);
        p.put("fee", fee);
        op = op.with("LOCKED", p.toString(), rail.now());
        store.saveOp(op);
        deliver(op);
        return follow(store.op(op.id()).orElseThrow(), rail.settings().payTimeout().toMillis());
    }

    /** The input fee the swap that made {@code locked} paid: its recorded inputs less its recorded outputs. */
    private long swapFee(List<Proof> locked) {
        String opId = store.proofsBySecret(List.of(locked.get(0).secret())).get(0).opId();
        JsonNode p = CashuRail.parse(store.op(opId).orElseThrow().payload());
        long fee = 0;
        for (JsonNode in : p.path("inputs")) {
            fee += in.get("amount").asLong();
        }
        for (JsonNode out : p.path("outputs")) {
            fee -= out.get("amount").asLong();
        }
        return fee;
    }

    /** Our payment of this very request, if there is one (same hash, same request string). */
    private Optional<Op> paidBefore(String creq) {
        try {
            PaymentRequest r = PaymentRequest.decode(creq);
            if (r.nut10() == null || r.nut10().data() == null) {
                return Optional.empty();
            }
            return store.opByKey(KIND, PaymentHash.ofHex(r.nut10().data()).hex())
                    .filter(op -> creq.equals(CashuRail.parse(op.payload()).path("request").asText()));
        } catch (TokenException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * The least amount to lock so that what is left after the claim's input fee (one input per locked proof, as many
     * proofs as the amount splits into) is still {@code amount}. The fee falls as well as rises with the amount (128
     * is one proof, 127 seven), so this searches upwards from {@code amount} instead of iterating amount + fee, which
     * can cycle and stop on an amount the payee refuses.
     */
    static long lockAmount(long amount, java.util.function.LongToIntFunction proofs,
            java.util.function.IntToLongFunction feeOfInputs) {
        long lock = amount;
        while (lock - feeOfInputs.applyAsLong(proofs.applyAsInt(lock)) < amount) {
            lock = Math.addExact(lock, 1);
        }
        return lock;
    }

    /** An HTLC secret of the request's terms, our key as the refund key, a fresh nonce. */
    private String secret(Terms t) {
        byte[] nonce = new byte[16];
        RANDOM.nextBytes(nonce);
        Conditions c = new Conditions(SigFlag.SIG_INPUTS, List.of(t.payee()), 0,
                java.util.OptionalLong.of(t.locktime()), List.of(rail.payeeKey()), 0);
        return WellKnownSecret.htlc(Hex.encode(nonce), t.hash().hex(), c).serialize();
    }

    /** Sends the locked proofs to the payee (NUT-18 POST). A refusal stops trying; a failure is retried later. */
    private void deliver(Op op) {
        JsonNode p = CashuRail.parse(op.payload());
        List<Proof> locked = lockedProofs(op.key());
        PaymentRequestPayload body = new PaymentRequestPayload(p.path("request_id").asText(null), null, w.mintUrl(),
                w.unit(), locked);
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create(p.get("url").asText()))
                    .timeout(rail.settings().callTimeout()).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(CashuRail.write(body))).build();
            HttpResponse<String> res = rail.http().send(req, HttpResponse.BodyHandlers.ofString());
            ObjectNode np = (ObjectNode) p.deepCopy();
            if (res.statusCode() / 100 == 2) {
                store.saveOp(op.with("DELIVERED", np.toString(), rail.now()));
            } else if (res.statusCode() / 100 == 4) {
                np.put("refused", res.statusCode() + " " + abbreviate(res.body()));
                store.saveOp(op.with("REFUSED", np.toString(), rail.now()));
            } else {
                LOG.warnf("cashu: payee %s answered %d; delivery is retried", p.get("url").asText(), res.statusCode());
            }
        } catch (java.io.IOException | IllegalArgumentException e) {
            LOG.warnf("cashu: payee %s unreachable (%s); delivery is retried", p.get("url").asText(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    private List<Proof> lockedProofs(String hashHex) {
        List<Proof> out = new ArrayList<>();
        for (StoredProof sp : store.proofsOfLock(hashHex)) {
            if (sp.state() == CashuStore.ProofState.SENT || sp.state() == CashuStore.ProofState.SPENT
                    || sp.state() == CashuStore.ProofState.PENDING) {
                out.add(new Proof(sp.amount(), sp.keysetId(), sp.secret(), sp.c(),
                        sp.dleqJson() == null ? null : CashuRail.read(sp.dleqJson(),
                                org.fleetmesh.settlement.cashu.nut.ProofDleq.class), null));
            }
        }
        return out;
    }

    /** Waits up to {@code waitMillis} for the payment to end; PENDING if it has not. */
    PaymentResult follow(Op op, long waitMillis) {
        long deadline = System.currentTimeMillis() + waitMillis;
        while (true) {
            op = step(store.op(op.id()).orElseThrow());
            JsonNode p = CashuRail.parse(op.payload());
            switch (op.state()) {
                case "PAID" -> {
                    return PaymentResult.succeeded(Preimage.ofHex(p.get("preimage").asText()),
                            rail.units().toMsat(p.path("fee").asLong()));
                }
                case "REFUNDED" -> {
                    return PaymentResult.failed(Reason.EXPIRED, "the payee did not claim before the locktime; refunded"
                            + (p.hasNonNull("refused") ? " (it refused: " + p.get("refused").asText() + ")" : ""));
                }
                case "FAILED" -> {
                    return PaymentResult.failed(Reason.RAIL_ERROR, "the payment failed before anything was locked");
                }
                default -> {
                }
            }
            if (System.currentTimeMillis() >= deadline) {
                String why = op.state().equals("REFUSED") ? "the payee refused the proofs ("
                        + p.path("refused").asText() + "); they are refunded after the locktime"
                        : "not claimed yet (" + op.state().toLowerCase() + ")";
                return PaymentResult.pending(why);
            }
            try {
                Thread.sleep(rail.settings().poll().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return PaymentResult.pending("interrupted");
            }
        }
    }

    /** One step of an unfinished payment: finish the lock, deliver, learn the preimage, or refund. */
    synchronized Op step(Op op) {
        try {
            switch (op.state()) {
                case "LOCKING" -> {
                    // crashed around the lock: the wallet's recovery has run, so the proofs are there or not
                    if (lockedProofs(op.key()).isEmpty()) {
                        store.saveOp(op.with("FAILED", op.payload(), rail.now()));
                    } else {
                        store.saveOp(op.with("LOCKED", op.payload(), rail.now()));
                    }
                }
                case "LOCKED", "DELIVERED", "REFUSED" -> {
                    if (op.state().equals("LOCKED")) {
                        deliver(op);
                        op = store.op(op.id()).orElseThrow();
                    }
                    claimedOrRefund(op);
                }
                default -> {
                }
            }
        } catch (RuntimeException e) {
            LOG.warnf("cashu: payment %s: %s", op.key(), e.getMessage());
        }
        return store.op(op.id()).orElseThrow();
    }

    private void claimedOrRefund(Op op) {
        List<Proof> locked = lockedProofs(op.key());
        if (locked.isEmpty()) {
            return;
        }
        Map<String, ProofState> states = new java.util.HashMap<>();
        List<String> ys = locked.stream().map(Proof::y).toList();
        for (ProofState s : w.mint().checkState(ys)) {
            states.put(s.y(), s);
        }
        PaymentHash hash = PaymentHash.ofHex(op.key());
        for (Proof x : locked) {
            ProofState s = states.get(x.y());
            if (s != null && s.state() == ProofState.State.SPENT && s.witness() != null) {
                Optional<Preimage> k = preimage(s.witness(), hash);
                if (k.isPresent()) {
                    ObjectNode p = (ObjectNode) CashuRail.parse(op.payload());
                    p.put("preimage", k.get().revealHex());
                    store.setState(locked.stream().map(Proof::secret).toList(), CashuStore.ProofState.SPENT, null);
                    store.saveOp(op.with("PAID", p.toString(), rail.now()));
                    return;
                }
            }
        }
        long locktime = CashuRail.parse(op.payload()).get("locktime").asLong();
        boolean allUnspent = locked.stream().allMatch(x -> states.containsKey(x.y())
                && states.get(x.y()).state() == ProofState.State.UNSPENT);
        if (rail.now() > locktime && allUnspent) {
            refund(op, locked);
        }
    }

    /** The preimage in a spent proof's witness, if it opens {@code hash}. */
    static Optional<Preimage> preimage(String witness, PaymentHash hash) {
        try {
            Witness wt = Witness.parse(witness);
            if (wt.preimage() != null) {
                Preimage k = Preimage.ofHex(wt.preimage());
                if (k.unlocks(hash)) {
                    return Optional.of(k);
                }
            }
        } catch (ConditionException | IllegalArgumentException e) {
            // a witness without our preimage: the refund pathway, or garbage
        }
        return Optional.empty();
    }

    /** NUT-14 sender pathway: after the locktime our refund key spends the proofs back to us. */
    private void refund(Op op, List<Proof> locked) {
        List<Proof> signed = new ArrayList<>();
        for (Proof x : locked) {
            String sig = P2pk.sign(x.secret(), rail.payeePrivateKey());
            signed.add(x.withWitness(new Witness(null, List.of(sig)).json()));
        }
        w.swaps().redeem(signed, CashuStore.ProofState.SENT, "refund");
        store.saveOp(store.op(op.id()).orElseThrow().with("REFUNDED", op.payload(), rail.now()));
    }

    /** Unfinished payments, stepped by the rail's timer. */
    void tick() {
        for (Op op : store.opsInStates(List.of("LOCKING", "LOCKED", "DELIVERED", "REFUSED"))) {
            if (op.kind().equals(KIND) && op.mint().equals(w.mintUrl())) {
                step(op);
            }
        }
    }
}
