package org.fleetmesh.settlement.cashu.conditions;

import java.util.List;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;

/**
 * NUT-14 hashed timelock contracts: the receiver pathway (preimage of {@code data}, plus signatures by the
 * {@code pubkeys} tag when it is present) is always open; the sender pathway (refund keys) opens after locktime,
 * and without refund keys an expired HTLC is anyone-can-spend.
 */
public final class Htlc {
    private Htlc() {
    }

    /** The hash lock for a 32-byte preimage: lower-case hex SHA256. */
    public static String hashLock(byte[] preimage32) {
        if (preimage32.length != 32) {
            throw new IllegalArgumentException("an HTLC preimage is 32 bytes");
        }
        return Hex.encode(SpendingConditions.sha256(preimage32));
    }

    /** One HTLC proof signed SIG_INPUTS; a SIG_ALL proof fails here: use {@link SpendingConditions#verify}. */
    public static Verdict verify(Proof proof, long now) {
        return SpendingConditions.verifyAlone(proof, WellKnownSecret.HTLC, now);
    }

    /** The proof with the preimage in its witness and, when a key is given, our signature on its secret. */
    public static Proof unlock(Proof proof, String preimageHex, byte[] privKey32OrNull) throws ConditionException {
        Witness w = proof.witness() == null ? new Witness(null, List.of()) : Witness.parse(proof.witness());
        w = new Witness(Nut.hex(preimageHex, 32, "preimage"), w.signatures());
        if (privKey32OrNull != null) {
            w = w.plus(P2pk.sign(proof.secret(), privKey32OrNull));
        }
        return proof.withWitness(w.json());
    }
}
