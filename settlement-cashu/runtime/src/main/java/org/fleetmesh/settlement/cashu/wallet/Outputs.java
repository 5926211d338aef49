package org.fleetmesh.settlement.cashu.wallet;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.bouncycastle.math.ec.ECPoint;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.cashu.crypto.Bdhke;
import org.fleetmesh.settlement.cashu.crypto.Dleq;
import org.fleetmesh.settlement.cashu.crypto.Secp256k1;
import org.fleetmesh.settlement.cashu.nut.BlindSignature;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.nut.ProofDleq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Lists of {@link Output}s: their record in an operation, and turning the mint's signatures into proofs. */
public final class Outputs {

    /** How the mint's DLEQ proofs (NUT-12) are checked when unblinding. */
    public enum DleqCheck {
        /** Every signature must carry a valid one. */
        REQUIRE,
        /** Checked when present. */
        IF_PRESENT,
        /** Not checked: only to keep proofs whose inputs are already spent, before reporting the mint. */
        SKIP
    }
    private Outputs() {
    }

    public static List<BlindedMessage> messages(List<Output> outputs) {
        List<BlindedMessage> m = new ArrayList<>(outputs.size());
        for (Output o : outputs) {
            m.add(o.message());
        }
        return m;
    }

    public static ArrayNode toJson(List<Output> outputs) {
        ArrayNode a = Nut.json().createArrayNode();
        for (Output o : outputs) {
            ObjectNode n = a.addObject();
            n.put("amount", o.amount());
            n.put("id", o.keysetId());
            n.put("secret", o.secret());
            n.put("r", Hex.encode(Secp256k1.bytes32(o.r())));
        }
        return a;
    }

    public static List<Output> fromJson(JsonNode a) {
        List<Output> out = new ArrayList<>();
        if (a == null || !a.isArray()) {
            return out;
        }
        for (JsonNode n : a) {
            out.add(new Output(n.get("amount").asLong(), n.get("id").asText(), n.get("secret").asText(),
                    new BigInteger(1, Hex.decode(n.get("r").asText(), 32))));
        }
        return out;
    }

    /**
     * The proofs from the mint's {@code signatures} on {@code outputs}, in order (NUT-03/04: one signature an
     * output; NUT-08 change: fewer signatures, in the order of the blank outputs, with the amounts the mint chose).
     * Every signature's DLEQ proof is checked (NUT-12) when {@code requireDleq}, and when present anyway.
     */
    public static List<Proof> unblind(List<Output> outputs, List<BlindSignature> signatures, MintKeys keys,
            boolean blank, DleqCheck check) {
        if (signatures.size() > outputs.size() || (!blank && signatures.size() != outputs.size())) {
            throw new WalletException("mint: " + signatures.size() + " signatures for " + outputs.size() + " outputs");
        }
        List<Proof> proofs = new ArrayList<>(signatures.size());
        for (int i = 0; i < signatures.size(); i++) {
            proofs.add(unblindOne(outputs.get(i), signatures.get(i), keys, blank, check));
        }
        return proofs;
    }

    /** Proofs unblinded after the inputs were spent, and the DLEQ problem found, if any (then they are unchecked). */
    record Unblinded(List<Proof> proofs, WalletException dleqProblem) {
    }

    /**
     * As {@link #unblind} for outputs whose inputs the mint has spent: a DLEQ failure does not lose the proofs, they
     * are returned unchecked with the problem, for the caller to store before it reports the mint.
     */
    static Unblinded unblindKeeping(List<Output> outputs, List<BlindSignature> signatures, MintKeys keys,
            DleqCheck check) {
        try {
            return new Unblinded(unblind(outputs, signatures, keys, false, check), null);
        } catch (WalletException e) {
            return new Unblinded(unblind(outputs, signatures, keys, false, DleqCheck.SKIP), e);
        }
    }

    /**
     * NUT-09: the proofs of those {@code outputs} that the mint says it signed ({@code restoredOutputs} with their
     * {@code signatures}, matched by B_).
     */
    public static List<Proof> unblindRestored(List<Output> outputs, List<BlindedMessage> restoredOutputs,
            List<BlindSignature> signatures, MintKeys keys, DleqCheck check) {
        if (restoredOutputs.size() != signatures.size()) {
            throw new WalletException("mint: restore returned " + restoredOutputs.size() + " outputs and "
                    + signatures.size() + " signatures");
        }
        Map<String, Output> byB = new HashMap<>();
        for (Output o : outputs) {
            byB.put(o.message().b_(), o);
        }
        List<Proof> proofs = new ArrayList<>();
        for (int i = 0; i < restoredOutputs.size(); i++) {
            Output o = byB.get(restoredOutputs.get(i).b_());
            if (o == null) {
                throw new WalletException("mint: restore returned an output this wallet did not ask for");
            }
            BlindSignature s = signatures.get(i);
            proofs.add(unblindOne(o, s, keys, true, check));
        }
        return proofs;
    }

    private static Proof unblindOne(Output o, BlindSignature s, MintKeys keys, boolean amountFromMint,
            DleqCheck check) {
        if (!s.id().equals(o.keysetId())) {
            throw new WalletException("mint: a signature in keyset " + s.id() + " for an output in keyset " + o.keysetId());
        }
        long amount = amountFromMint ? s.amount() : o.amount();
        if (s.amount() != amount || amount <= 0) {
            throw new WalletException("mint: a signature of amount " + s.amount() + " for an output of " + o.amount());
        }
        ECPoint mintKey = keys.key(s.id(), amount);
        ECPoint blindSig;
        try {
            blindSig = Secp256k1.decodeHex(s.c_());
        } catch (IllegalArgumentException e) {
            throw new WalletException("mint: a blind signature that is not a curve point");
        }
        ECPoint blinded = Bdhke.blind(o.secret().getBytes(StandardCharsets.UTF_8), o.r());
        ProofDleq dleq = null;
        if (s.dleq() != null) {
            Dleq.Proof p = new Dleq.Proof(new BigInteger(1, Hex.decode(s.dleq().e(), 32)),
                    new BigInteger(1, Hex.decode(s.dleq().s(), 32)));
            if (check != DleqCheck.SKIP && !Dleq.verifyBlinded(mintKey, blinded, blindSig, p)) {
                throw new WalletException("mint: invalid DLEQ proof on a blind signature (NUT-12)");
            }
            dleq = new ProofDleq(s.dleq().e(), s.dleq().s(), Hex.encode(Secp256k1.bytes32(o.r())));
        } else if (check == DleqCheck.REQUIRE) {
            throw new WalletException("mint: a blind signature without the DLEQ proof this wallet requires (NUT-12)");
        }
        ECPoint c = Bdhke.unblind(blindSig, o.r(), mintKey);
        return new Proof(amount, o.keysetId(), o.secret(), Secp256k1.hex(c), dleq, null);
    }

    /** NUT-12 as Carol: is this proof's DLEQ (with r) valid for the mint's key of its amount? */
    public static boolean dleqValid(Proof p, MintKeys keys) {
        if (p.dleq() == null || p.dleq().r() == null) {
            return false;
        }
        try {
            ECPoint mintKey = keys.key(p.id(), p.amount());
            Dleq.Proof d = new Dleq.Proof(new BigInteger(1, Hex.decode(p.dleq().e(), 32)),
                    new BigInteger(1, Hex.decode(p.dleq().s(), 32)));
            return Dleq.verifyUnblinded(mintKey, p.secret().getBytes(StandardCharsets.UTF_8),
                    Secp256k1.decodeHex(p.c()), new BigInteger(1, Hex.decode(p.dleq().r(), 32)), d);
        } catch (RuntimeException e) {
            return false;
        }
    }
}
