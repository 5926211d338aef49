package org.fleetmesh.settlement.cashu.conditions;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;
import org.fleetmesh.settlement.cashu.nut.Proof;

/**
 * The rules a mint applies to the inputs of a swap or melt (NUT-10, NUT-11, NUT-14), as a pure function of the
 * request and the clock. Wallets use it to tell which proofs they can spend and to check received tokens.
 */
public final class SpendingConditions {
    private SpendingConditions() {
    }

    /**
     * Checks every input of a transaction. With any SIG_ALL input, all inputs must share kind, data and tags and
     * the first input's witness must sign {@link P2pk#sigAllMessage}; otherwise each locked input is checked on
     * its own and plain secrets pass. {@code quoteId} is the melt quote, null for a swap.
     */
    public static Verdict verify(List<Proof> inputs, List<BlindedMessage> outputs, String quoteId, long now) {
        if (inputs.isEmpty()) {
            return Verdict.fail("no inputs");
        }
        List<Optional<WellKnownSecret>> secrets = new ArrayList<>(inputs.size());
        boolean sigAll = false;
        for (int i = 0; i < inputs.size(); i++) {
            try {
                Optional<WellKnownSecret> s = WellKnownSecret.parse(inputs.get(i).secret());
                secrets.add(s);
                if (s.isPresent() && locking(s.get())
                        && Conditions.parse(s.get()).sigFlag() == SigFlag.SIG_ALL) {
                    sigAll = true;
                }
            } catch (ConditionException e) {
                return Verdict.fail("input " + i + ": malformed secret: " + e.getMessage());
            }
        }
        if (sigAll) {
            WellKnownSecret first = secrets.get(0).orElse(null);
            for (Optional<WellKnownSecret> s : secrets) {
                if (first == null || s.isEmpty() || !s.get().kind().equals(first.kind())
                        || !s.get().data().equals(first.data()) || !s.get().tags().equals(first.tags())) {
                    return Verdict.fail("SIG_ALL: all inputs must have the same kind, data and tags");
                }
            }
            return check(first, inputs.get(0).witness(), sigAllMessage(inputs, outputs, quoteId), now);
        }
        for (int i = 0; i < inputs.size(); i++) {
            if (secrets.get(i).isEmpty()) {
                continue;
            }
            Verdict v = check(secrets.get(i).get(), inputs.get(i).witness(), inputs.get(i).secret(), now);
            if (!v.ok()) {
                return Verdict.fail("input " + i + ": " + v.reason());
            }
        }
        return Verdict.ok("all inputs unlocked");
    }

    /**
     * NUT-11 SIG_ALL message: secret and C of each input, then amount and B_ of each output, then the melt
     * quote id when there is one, concatenated as strings.
     */
    public static String sigAllMessage(List<Proof> inputs, List<BlindedMessage> outputs, String quoteId) {
        StringBuilder sb = new StringBuilder();
        for (Proof p : inputs) {
            sb.append(p.secret()).append(p.c());
        }
        for (BlindedMessage o : outputs) {
            sb.append(o.amount()).append(o.b_());
        }
        if (quoteId != null) {
            sb.append(quoteId);
        }
        return sb.toString();
    }

    /** One proof on its own: its secret is the message, so SIG_ALL proofs need {@link #verify} instead. */
    static Verdict verifyAlone(Proof proof, String kind, long now) {
        WellKnownSecret s;
        try {
            s = WellKnownSecret.parse(proof.secret()).orElse(null);
            if (s == null || !s.kind().equals(kind)) {
                return Verdict.fail("not a " + kind + " secret");
            }
            if (Conditions.parse(s).sigFlag() == SigFlag.SIG_ALL) {
                return Verdict.fail("SIG_ALL: the proof can only be checked with its whole transaction");
            }
        } catch (ConditionException e) {
            return Verdict.fail("malformed secret: " + e.getMessage());
        }
        return check(s, proof.witness(), proof.secret(), now);
    }

    private static boolean locking(WellKnownSecret s) {
        return s.kind().equals(WellKnownSecret.P2PK) || s.kind().equals(WellKnownSecret.HTLC);
    }

    /** The pathways of NUT-11 (P2PK) and NUT-14 (HTLC) for one secret, with {@code message} as what is signed. */
    static Verdict check(WellKnownSecret secret, String witnessJson, String message, long now) {
        if (!locking(secret)) {
            return Verdict.fail("unsupported spending condition kind " + secret.kind());
        }
        boolean htlc = secret.kind().equals(WellKnownSecret.HTLC);
        Conditions c;
        List<String> main = new ArrayList<>();
        try {
            c = Conditions.parse(secret);
            if (htlc) {
                if (!secret.data().matches("[0-9a-fA-F]{64}")) {
                    return Verdict.fail("malformed secret: HTLC data must be a 32-byte hex hash");
                }
            } else {
                main.addAll(Conditions.keys(List.of(secret.data()), "data"));
            }
            main.addAll(c.pubkeys());
            distinct(main, "locktime");
            distinct(c.refund(), "refund");
        } catch (ConditionException e) {
            return Verdict.fail("malformed secret: " + e.getMessage());
        }
        if (c.nSigs() > main.size()) {
            return Verdict.fail("malformed secret: n_sigs exceeds the " + main.size() + " keys of its pathway");
        }
        if (c.nSigsRefund() > c.refund().size()) {
            return Verdict.fail("malformed secret: n_sigs_refund exceeds the " + c.refund().size() + " refund keys");
        }
        boolean expired = c.expired(now);
        if (expired && c.refund().isEmpty()) {
            return Verdict.ok("locktime passed and there are no refund keys: anyone can spend");
        }
        Witness w = null;
        if (witnessJson != null) {
            try {
                w = Witness.parse(witnessJson);
            } catch (ConditionException e) {
                return Verdict.fail("malformed witness: " + e.getMessage());
            }
        }
        byte[] hash = sha256(message.getBytes(StandardCharsets.UTF_8));
        List<byte[]> sigs = new ArrayList<>();
        if (w != null) {
            for (String s : w.signatures()) {
                sigs.add(Hex.decodeLower(s));
            }
        }
        int mainValid = validKeys(main, sigs, hash);
        if (htlc) {
            boolean preimage = w != null && preimageMatches(w.preimage(), secret.data());
            if (preimage && (main.isEmpty() || mainValid >= c.requiredSigs())) {
                return Verdict.ok("HTLC receiver pathway: preimage"
                        + (main.isEmpty() ? "" : " and " + mainValid + " valid signatures"));
            }
            if (expired && validKeys(c.refund(), sigs, hash) >= c.requiredRefundSigs()) {
                return Verdict.ok("HTLC sender pathway: locktime passed, refund signatures valid");
            }
            if (!preimage) {
                return Verdict.fail("HTLC: no matching preimage" + (expired ? " and too few refund signatures" : ""));
            }
            return Verdict.fail("HTLC: " + mainValid + " valid signatures from receivers, " + c.requiredSigs()
                    + " needed" + (expired ? "; too few refund signatures" : ""));
        }
        if (mainValid >= c.requiredSigs()) {
            return Verdict.ok("P2PK: " + mainValid + " valid signatures, " + c.requiredSigs() + " needed");
        }
        if (expired) {
            int refundValid = validKeys(c.refund(), sigs, hash);
            if (refundValid >= c.requiredRefundSigs()) {
                return Verdict.ok("P2PK refund pathway: " + refundValid + " valid refund signatures");
            }
            return Verdict.fail("P2PK: " + mainValid + " of " + c.requiredSigs() + " signatures and " + refundValid
                    + " of " + c.requiredRefundSigs() + " refund signatures");
        }
        return Verdict.fail("P2PK: " + mainValid + " valid signatures, " + c.requiredSigs() + " needed"
                + (c.locktime().isPresent() && !c.refund().isEmpty() ? "; refund keys only after locktime" : ""));
    }

    /** NUT-11: a key may appear once per pathway, compared by its lower-case x coordinate. */
    private static void distinct(List<String> keys, String pathway) throws ConditionException {
        Set<String> xs = new HashSet<>();
        for (String k : keys) {
            if (!xs.add(k.substring(2).toLowerCase(Locale.ROOT))) {
                throw new ConditionException("key " + k + " appears twice in the " + pathway + " pathway");
            }
        }
    }

    /** How many distinct keys made at least one of the signatures (BIP-340 over the x-only key). */
    private static int validKeys(List<String> keys, List<byte[]> sigs, byte[] hash) {
        int n = 0;
        for (String k : keys) {
            byte[] xonly = Hex.decodeLower(k.substring(2).toLowerCase(Locale.ROOT));
            for (byte[] sig : sigs) {
                if (Schnorr.verify(sig, hash, xonly)) {
                    n++;
                    break;
                }
            }
        }
        return n;
    }

    private static boolean preimageMatches(String preimage, String hashHex) {
        if (preimage == null || !preimage.matches("[0-9a-fA-F]{64}")) {
            return false;
        }
        byte[] h = sha256(Hex.decodeLower(preimage.toLowerCase(Locale.ROOT)));
        return MessageDigest.isEqual(h, Hex.decodeLower(hashHex.toLowerCase(Locale.ROOT)));
    }

    static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }
}
