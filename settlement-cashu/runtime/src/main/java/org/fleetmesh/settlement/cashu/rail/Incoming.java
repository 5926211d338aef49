package org.fleetmesh.settlement.cashu.rail;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import org.fleetmesh.settlement.cashu.conditions.ConditionException;
import org.fleetmesh.settlement.cashu.conditions.Conditions;
import org.fleetmesh.settlement.cashu.conditions.Htlc;
import org.fleetmesh.settlement.cashu.conditions.SigFlag;
import org.fleetmesh.settlement.cashu.conditions.WellKnownSecret;
import org.fleetmesh.settlement.cashu.mint.ProofState;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.request.Nut10Option;
import org.fleetmesh.settlement.cashu.request.PaymentRequest;
import org.fleetmesh.settlement.cashu.request.PaymentRequestPayload;
import org.fleetmesh.settlement.cashu.request.Transport;
import org.fleetmesh.settlement.cashu.wallet.MintKeys;
import org.fleetmesh.settlement.cashu.wallet.Mints;
import org.fleetmesh.settlement.cashu.wallet.Outputs;
import org.fleetmesh.settlement.cashu.wallet.Wallet;
import org.fleetmesh.settlement.cashu.wallet.WalletException;
import org.fleetmesh.spi.settlement.InvoiceState;
import org.fleetmesh.spi.settlement.PaymentHash;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementException.Reason;
import org.fleetmesh.spi.settlement.cashu.CashuStore;
import org.fleetmesh.spi.settlement.cashu.CashuStore.Op;
import org.fleetmesh.spi.settlement.cashu.CashuStore.StoredProof;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The payee's side of a Cashu escrow (docs/spec/settlement-cashu.md, "Escrow"): a NUT-18 request asking for proofs
 * locked by a NUT-14 HTLC to the payment hash and this wallet's key, with a locktime far enough past the request's
 * expiry for the claim; the payer's proofs arrive by the request's HTTP POST transport and are checked (mint, unit,
 * keysets, DLEQ, the exact lock, the amount after the claim's fee, unspent at the mint) before the escrow is
 * ACCEPTED; settling claims them with the preimage and our signature.
 */
final class Incoming {
    static final String KIND = "htlc-in";
    /** At most this many proofs in one payment. */
    static final int MAX_PROOFS = 64;

    private final CashuRail rail;
    private final Wallet w;
    private final CashuStore store;

    Incoming(CashuRail rail) {
        this.rail = rail;
        this.w = rail.wallet();
        this.store = rail.store();
    }

    /** The request for {@code amount} (the mint's unit) on {@code hash}; recorded OPEN. */
    String open(PaymentHash hash, long amountMsat, String memo, long expiresAt, Preimage autoSettle) {
        long amount = rail.units().fromMsat(amountMsat);
        if (store.opByKey(KIND, hash.hex()).isPresent()) {
            throw new SettlementException(Reason.DUPLICATE_PAYMENT_HASH, "a Cashu request on " + hash + " exists");
        }
        long minLocktime = expiresAt + rail.settings().claimWindow().toSeconds();
        Nut10Option lock = new Nut10Option(WellKnownSecret.HTLC, hash.hex(),
                List.of(List.of("pubkeys", rail.payeeKey()), List.of("locktime", Long.toString(minLocktime))));
        PaymentRequest req = new PaymentRequest(hash.hex().substring(0, 16), OptionalLong.of(amount), w.unit(), true,
                List.of(w.mintUrl()), memo == null || memo.isEmpty() ? null : memo,
                List.of(new Transport(Transport.POST, rail.receiveUrl(), null)), lock);
        String creq = req.encode();
        ObjectNode p = CashuRail.json();
        p.put("amount", amount);
        p.put("amount_msat", amountMsat);
        p.put("memo", memo == null ? "" : memo);
        p.put("request_id", req.id());
        p.put("expires_at", expiresAt);
        p.put("min_locktime", minLocktime);
        p.put("request", creq);
        if (autoSettle != null) {
            p.put("preimage", autoSettle.revealHex());
        }
        try {
            store.saveOp(new Op(java.util.UUID.randomUUID().toString(), KIND, hash.hex(), w.mintUrl(),
                    InvoiceState.OPEN.name(), p.toString(), rail.now(), rail.now()));
        } catch (IllegalStateException e) {
            throw new SettlementException(Reason.DUPLICATE_PAYMENT_HASH, "a Cashu request on " + hash + " exists");
        }
        return creq;
    }

    /**
     * A payment arriving for one of our requests (NUT-18 POST transport): empty when ACCEPTED (or already), else why
     * it is refused. Nothing is stored for a refused payment.
     */
    Optional<String> accept(PaymentRequestPayload payload) {
        if (payload.id() == null) {
            return Optional.of("the payment names no request id");
        }
        Op op = null;
        for (Op o : store.opsInStates(List.of(InvoiceState.OPEN.name(), InvoiceState.ACCEPTED.name()))) {
            if (o.kind().equals(KIND) && payload.id().equals(CashuRail.parse(o.payload()).path("request_id").asText())) {
                op = o;
            }
        }
        if (op == null) {
            op = settled(payload).orElse(null);
        }
        if (op == null) {
            return Optional.of("no open request " + payload.id());
        }
        PaymentHash hash = PaymentHash.ofHex(op.key());
        JsonNode p = CashuRail.parse(op.payload());
        if (!op.state().equals(InvoiceState.OPEN.name())) {
            // ACCEPTED or SETTLED: a payer repeating its POST (its answer was lost) hears 200 again for the very same
            // proofs (keyset, amount, secret, C, the same set), and anything else that the request is already paid
            Set<String> have = new HashSet<>();
            store.proofsOfLock(hash.hex()).forEach(sp -> have.add(sp.keysetId() + "|" + sp.amount() + "|" + sp.secret()
                    + "|" + sp.c()));
            Set<String> sent = new HashSet<>();
            payload.proofs().forEach(x -> sent.add(x.id() + "|" + x.amount() + "|" + x.secret() + "|" + x.c()));
            boolean same = sent.size() == payload.proofs().size() && sent.equals(have)
                    && Mints.same(payload.mint(), w.mintUrl());
            return same ? Optional.empty() : Optional.of("request " + payload.id() + " is already paid");
        }
        if (rail.now() >= p.get("expires_at").asLong()) {
            return Optional.of("request " + payload.id() + " has expired");
        }
        Optional<String> bad = check(payload, hash, p.get("amount").asLong(), p.get("min_locktime").asLong());
        if (bad.isPresent()) {
            return bad;
        }
        synchronized (this) {
            Op now = store.op(op.id()).orElseThrow();
            if (!now.state().equals(InvoiceState.OPEN.name())) {
                boolean paid = now.state().equals(InvoiceState.ACCEPTED.name())
                        || now.state().equals(InvoiceState.SETTLED.name());
                return Optional.of("request " + payload.id() + (paid ? " is already paid" : " is "
                        + now.state().toLowerCase(java.util.Locale.ROOT)));
            }
            List<StoredProof> rows = new ArrayList<>();
            for (Proof x : payload.proofs()) {
                rows.add(new StoredProof(w.mintUrl(), x.id(), x.amount(), x.secret(), x.c(),
                        x.dleq() == null ? null : CashuRail.write(x.dleq()), CashuStore.ProofState.HELD, op.id(),
                        hash.hex(), rail.now()));
            }
            store.addProofs(rows);
            store.saveOp(now.with(InvoiceState.ACCEPTED.name(), now.payload(), rail.now()));
        }
        rail.report(hash, InvoiceState.ACCEPTED);
        if (p.hasNonNull("preimage")) {
            rail.background(() -> rail.settle(Preimage.ofHex(p.get("preimage").asText())));
        }
        return Optional.empty();
    }

    private Optional<String> check(PaymentRequestPayload payload, PaymentHash hash, long amount, long minLocktime) {
        if (!Mints.same(payload.mint(), w.mintUrl())) {
            return Optional.of("this request takes ecash of " + w.mintUrl() + ", not " + payload.mint());
        }
        if (!w.unit().equals(payload.unit())) {
            return Optional.of("this request is in " + w.unit() + ", not " + payload.unit());
        }
        List<Proof> proofs = payload.proofs();
        if (proofs.size() > MAX_PROOFS) {
            return Optional.of("at most " + MAX_PROOFS + " proofs in one payment");
        }
        MintKeys keys = w.keys();
        Set<String> secrets = new HashSet<>();
        long sum = 0;
        for (Proof x : proofs) {
            if (!secrets.add(x.secret())) {
                return Optional.of("the same proof twice");
            }
            if (keys.keyset(x.id()).isEmpty()) {
                return Optional.of("a proof of keyset " + x.id() + ", not one of the mint's in " + w.unit());
            }
            if (!Outputs.dleqValid(x, keys)) {
                return Optional.of("a proof without a valid DLEQ proof (NUT-12): it cannot be checked offline");
            }
            Optional<String> lock = lockProblem(x, hash, minLocktime);
            if (lock.isPresent()) {
                return lock;
            }
            sum = Math.addExact(sum, x.amount());
        }
        if (!store.proofsBySecret(secrets).isEmpty()) {
            return Optional.of("these proofs were received before");
        }
        List<String> ids = proofs.stream().map(Proof::id).toList();
        long fee = keys.fee(ids);
        if (sum - fee < amount) {
            return Optional.of("the proofs are worth " + sum + " " + w.unit() + "; the request is " + amount
                    + " after the mint's fee of " + fee + " for claiming them");
        }
        try {
            for (ProofState s : w.mint().checkState(proofs.stream().map(Proof::y).toList())) {
                if (s.state() != ProofState.State.UNSPENT) {
                    return Optional.of("the mint says a proof is " + s.state().name().toLowerCase());
                }
            }
        } catch (RuntimeException e) {
            return Optional.of("the mint could not be asked whether the proofs are unspent: " + e.getMessage());
        }
        return Optional.empty();
    }

    /**
     * The SETTLED request a repeated payment is for: found by the hash its first proof is locked to (one lookup, not a
     * scan of every request ever settled, which anyone posting an unknown id would otherwise make the node read).
     */
    private Optional<Op> settled(PaymentRequestPayload payload) {
        if (payload.proofs() == null || payload.proofs().isEmpty() || payload.proofs().get(0).secret() == null) {
            return Optional.empty();
        }
        String data;
        try {
            Optional<WellKnownSecret> s = WellKnownSecret.parse(payload.proofs().get(0).secret());
            if (s.isEmpty() || !WellKnownSecret.HTLC.equals(s.get().kind())) {
                return Optional.empty();
            }
            data = PaymentHash.ofHex(s.get().data()).hex();
        } catch (ConditionException | RuntimeException e) {
            return Optional.empty();
        }
        return store.opByKey(KIND, data).filter(o -> o.state().equals(InvoiceState.SETTLED.name()))
                .filter(o -> payload.id().equals(CashuRail.parse(o.payload()).path("request_id").asText()));
    }

    /** Is {@code x} locked exactly as we asked: HTLC on the hash, to our key alone, SIG_INPUTS, late enough? */
    private Optional<String> lockProblem(Proof x, PaymentHash hash, long minLocktime) {
        WellKnownSecret s;
        Conditions c;
        try {
            Optional<WellKnownSecret> parsed = WellKnownSecret.parse(x.secret());
            if (parsed.isEmpty() || !WellKnownSecret.HTLC.equals(parsed.get().kind())) {
                return Optional.of("a proof that is not locked by an HTLC (NUT-14)");
            }
            s = parsed.get();
            c = Conditions.parse(s);
        } catch (ConditionException e) {
            return Optional.of("a proof with a malformed secret: " + e.getMessage());
        }
        if (!hash.hex().equals(s.data())) {
            return Optional.of("a proof locked to another hash");
        }
        if (!c.pubkeys().equals(List.of(rail.payeeKey()))) {
            return Optional.of("a proof not locked to this node's key " + rail.payeeKey() + " alone");
        }
        if (c.requiredSigs() != 1) {
            return Optional.of("a proof asking " + c.requiredSigs() + " signatures (n_sigs); one, this node's, is asked");
        }
        if (c.sigFlag() != SigFlag.SIG_INPUTS) {
            return Optional.of("a proof with sigflag " + c.sigFlag() + "; SIG_INPUTS is asked");
        }
        if (c.locktime().isEmpty() || c.locktime().getAsLong() < minLocktime) {
            return Optional.of("a proof whose locktime is before " + minLocktime + ", too early for the claim");
        }
        return Optional.empty();
    }

    /** Claims the held proofs with the preimage: SETTLED. Idempotent. */
    void settle(Preimage k) {
        PaymentHash hash = k.hash();
        Op op = store.opByKey(KIND, hash.hex())
                .orElseThrow(() -> new SettlementException(Reason.UNKNOWN_PAYMENT_HASH, "no Cashu request on " + hash));
        switch (InvoiceState.valueOf(op.state())) {
            case SETTLED -> {
                return;
            }
            case CANCELED, EXPIRED -> throw new SettlementException(Reason.ALREADY_CANCELED,
                    "the Cashu request on " + hash + " is " + op.state().toLowerCase());
            case OPEN -> throw new SettlementException(Reason.NOT_ACCEPTED, "nothing is locked to " + hash + " yet");
            default -> {
            }
        }
        synchronized (this) {
            // a claim that ended without an answer: resolve it first, else its proofs would never be claimed again
            Set<String> inFlight = new HashSet<>();
            store.proofsOfLock(hash.hex()).stream().filter(sp -> sp.state() == CashuStore.ProofState.PENDING)
                    .forEach(sp -> inFlight.add(sp.opId()));
            for (String claim : inFlight) {
                try {
                    w.recover(claim);
                } catch (RuntimeException e) {
                    throw new SettlementException(Reason.RAIL_ERROR, "the last claim at the mint is still unresolved: "
                            + e.getMessage(), e);
                }
            }
            if (store.proofsOfLock(hash.hex()).stream().anyMatch(sp -> sp.state() == CashuStore.ProofState.PENDING)) {
                throw new SettlementException(Reason.RAIL_ERROR, "the last claim is pending at the mint; settle again");
            }
            List<StoredProof> held = store.proofsOfLock(hash.hex()).stream()
                    .filter(sp -> sp.state() == CashuStore.ProofState.HELD).toList();
            if (!held.isEmpty()) {
                List<Proof> unlocked = new ArrayList<>();
                for (StoredProof sp : held) {
                    try {
                        unlocked.add(Htlc.unlock(new Proof(sp.amount(), sp.keysetId(), sp.secret(), sp.c(), null, null),
                                k.revealHex(), rail.payeePrivateKey()));
                    } catch (ConditionException e) {
                        throw new SettlementException(Reason.RAIL_ERROR, "cannot unlock a held proof: " + e.getMessage());
                    }
                }
                try {
                    w.swaps().redeem(unlocked, CashuStore.ProofState.HELD, "claim");
                } catch (WalletException e) {
                    throw new SettlementException(Reason.RAIL_ERROR, "claiming the HTLC at the mint failed: "
                            + e.getMessage(), e);
                }
            }
            ObjectNode p = (ObjectNode) CashuRail.parse(op.payload());
            p.put("preimage", k.revealHex());
            store.saveOp(store.op(op.id()).orElseThrow().with(InvoiceState.SETTLED.name(), p.toString(), rail.now()));
        }
        rail.report(hash, InvoiceState.SETTLED);
    }

    /** Gives the request up: the payer refunds after the locktime. */
    void cancel(PaymentHash hash) {
        Op op = store.opByKey(KIND, hash.hex())
                .orElseThrow(() -> new SettlementException(Reason.UNKNOWN_PAYMENT_HASH, "no Cashu request on " + hash));
        switch (InvoiceState.valueOf(op.state())) {
            case SETTLED -> throw new SettlementException(Reason.ALREADY_SETTLED, "the Cashu request on " + hash
                    + " is settled");
            case CANCELED, EXPIRED -> {
                return;
            }
            default -> {
            }
        }
        store.saveOp(op.with(InvoiceState.CANCELED.name(), op.payload(), rail.now()));
        rail.report(hash, InvoiceState.CANCELED);
    }

    InvoiceState state(PaymentHash hash) {
        return store.opByKey(KIND, hash.hex()).map(o -> InvoiceState.valueOf(o.state()))
                .orElseThrow(() -> new SettlementException(Reason.UNKNOWN_PAYMENT_HASH, "no Cashu request on " + hash));
    }

    /**
     * Time passing: an OPEN request past its expiry, or an ACCEPTED one whose claim window is closing (the payer
     * could refund soon), is EXPIRED.
     */
    void tick() {
        long now = rail.now();
        for (Op op : store.opsInStates(List.of(InvoiceState.OPEN.name(), InvoiceState.ACCEPTED.name()))) {
            if (!op.kind().equals(KIND) || !op.mint().equals(w.mintUrl())) {
                continue;
            }
            JsonNode p = CashuRail.parse(op.payload());
            boolean open = op.state().equals(InvoiceState.OPEN.name());
            long limit = open ? p.get("expires_at").asLong()
                    : p.get("min_locktime").asLong() - rail.settings().claimMargin().toSeconds();
            if (now >= limit) {
                store.saveOp(op.with(InvoiceState.EXPIRED.name(), op.payload(), now));
                rail.report(PaymentHash.ofHex(op.key()), InvoiceState.EXPIRED);
            }
        }
    }
}
