package org.fleetmesh.settlement.cashu.conditions;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;

/**
 * NUT-11 pay-to-public-key: BIP-340 signatures on SHA256 of the UTF-8 message (a proof's secret, or the SIG_ALL
 * message), by 33-byte compressed keys of which only the x coordinate counts.
 */
public final class P2pk {
    private P2pk() {
    }

    /** Hex of a BIP-340 signature over SHA256(utf8(message)). */
    public static String sign(String message, byte[] privKey32) {
        return Hex.encode(Schnorr.sign(SpendingConditions.sha256(message.getBytes(StandardCharsets.UTF_8)), privKey32));
    }

    public static boolean verifySignature(String sigHex, String message, String pubkey33hex) {
        try {
            byte[] sig = Hex.decodeLower(Nut.hex(sigHex, 64, "signature"));
            String key = Nut.point(pubkey33hex, "pubkey");
            return Schnorr.verify(sig, SpendingConditions.sha256(message.getBytes(StandardCharsets.UTF_8)),
                    Hex.decodeLower(key.substring(2).toLowerCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * The mint's rules for one P2PK proof signed SIG_INPUTS (locktime, refund, n_sigs, n_sigs_refund, key
     * canonicalisation). A SIG_ALL proof fails here: use {@link SpendingConditions#verify}.
     */
    public static Verdict verify(Proof proof, long now) {
        return SpendingConditions.verifyAlone(proof, WellKnownSecret.P2PK, now);
    }

    /** See {@link SpendingConditions#sigAllMessage}. */
    public static String sigAllMessage(List<Proof> inputs, List<BlindedMessage> outputs, String quoteIdOrNull) {
        return SpendingConditions.sigAllMessage(inputs, outputs, quoteIdOrNull);
    }

    /** SIG_INPUTS: the proof with our signature on its secret added to its witness (kept: a preimage, others' signatures). */
    public static Proof signProof(Proof proof, byte[] privKey32) throws ConditionException {
        Witness w = proof.witness() == null ? new Witness(null, List.of()) : Witness.parse(proof.witness());
        return proof.withWitness(w.plus(sign(proof.secret(), privKey32)).json());
    }

    /** SIG_ALL: the inputs with our signature over the whole transaction added to the first input's witness. */
    public static List<Proof> signSigAll(List<Proof> inputs, List<BlindedMessage> outputs, String quoteIdOrNull,
            byte[] privKey32) throws ConditionException {
        String sig = sign(sigAllMessage(inputs, outputs, quoteIdOrNull), privKey32);
        Proof first = inputs.get(0);
        Witness w = first.witness() == null ? new Witness(null, List.of()) : Witness.parse(first.witness());
        List<Proof> out = new ArrayList<>(inputs);
        out.set(0, first.withWitness(w.plus(sig).json()));
        return out;
    }
}
