package org.fleetmesh.settlement.cashu.wallet;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

import org.bouncycastle.math.ec.ECPoint;
import org.fleetmesh.settlement.cashu.crypto.Bdhke;
import org.fleetmesh.settlement.cashu.crypto.Derivation;
import org.fleetmesh.settlement.cashu.crypto.Secp256k1;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;

/**
 * One output the wallet asks the mint to sign: its amount (for a NUT-08 blank output, a placeholder the mint
 * replaces), keyset, secret and blinding factor r. Kept in the operation's record before the request leaves, so
 * that the signature can be recovered (NUT-09) after a crash.
 */
public record Output(long amount, String keysetId, String secret, BigInteger r) {

    /** NUT-13: the secret and r of counter {@code counter} of the keyset, from the wallet's seed. */
    public static Output derived(byte[] seed, String keysetId, long counter, long amount) {
        Derivation.Derived d = Derivation.derive(seed, keysetId, counter);
        return new Output(amount, keysetId, d.secret(), d.r());
    }

    /** An output with a secret the caller chose (a NUT-10 spending condition), blinded with a random r. */
    public static Output withSecret(String keysetId, long amount, String secret) {
        return new Output(amount, keysetId, secret, Secp256k1.randomScalar());
    }

    public ECPoint blinded() {
        return Bdhke.blind(secret.getBytes(StandardCharsets.UTF_8), r);
    }

    public BlindedMessage message() {
        return new BlindedMessage(amount, keysetId, Secp256k1.hex(blinded()));
    }

    @Override
    public String toString() {
        return "Output[" + amount + " " + keysetId + "]"; // never the secret or r
    }
}
