package org.fleetmesh.settlement.cashu.nut;

import java.nio.charset.StandardCharsets;

import org.fleetmesh.settlement.cashu.crypto.Bdhke;
import org.fleetmesh.settlement.cashu.crypto.Secp256k1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * A NUT-00 proof (an input): {@code {"amount","id","secret","C","dleq"?,"witness"?}}.
 *
 * <p>The amount is positive and need not be a power of two; {@code id} is a keyset id (or a V4 short id until the
 * wallet resolves it); {@code c} is the unblinded signature, a compressed point; {@code witness} is the NUT-10
 * witness as the JSON string the NUTs carry, or null.
 */
@JsonPropertyOrder({ "amount", "id", "secret", "C", "dleq", "witness" })
public record Proof(
        @JsonProperty(value = "amount", required = true) long amount,
        @JsonProperty(value = "id", required = true) String id,
        @JsonProperty(value = "secret", required = true) String secret,
        @JsonProperty(value = "C", required = true) String c,
        @JsonProperty("dleq") ProofDleq dleq,
        @JsonProperty("witness") String witness) {

    public Proof {
        if (amount <= 0) {
            throw new IllegalArgumentException("proof amount must be positive");
        }
        id = Nut.keysetId(id, "proof id");
        secret = Nut.secret(secret);
        c = Nut.point(c, "proof C");
        if (witness != null && witness.length() > Nut.MAX_WITNESS_CHARS) {
            throw new IllegalArgumentException("proof witness is longer than " + Nut.MAX_WITNESS_CHARS + " characters");
        }
    }

    public Proof withWitness(String witness) {
        return new Proof(amount, id, secret, c, dleq, witness);
    }

    public Proof withoutDleq() {
        return new Proof(amount, id, secret, c, null, witness);
    }

    public Proof withId(String id) {
        return new Proof(amount, id, secret, c, dleq, witness);
    }

    /** NUT-07 {@code Y}: hex of hash_to_curve over the secret's UTF-8 bytes; the mint's key for spent state. */
    public String y() {
        return Secp256k1.hex(Bdhke.hashToCurve(secret.getBytes(StandardCharsets.UTF_8)));
    }
}
