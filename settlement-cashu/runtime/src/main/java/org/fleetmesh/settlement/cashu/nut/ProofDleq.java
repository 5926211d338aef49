package org.fleetmesh.settlement.cashu.nut;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * NUT-12 DLEQ proof carried in a {@link Proof}: challenge {@code e}, response {@code s} and the blinding factor
 * {@code r} that lets a receiver re-check the mint's signature offline. Each is 32-byte hex; {@code r} is null when
 * the sender left it out.
 */
public record ProofDleq(
        @JsonProperty(value = "e", required = true) String e,
        @JsonProperty(value = "s", required = true) String s,
        @JsonProperty("r") String r) {

    public ProofDleq {
        e = Nut.hex(e, 32, "dleq e");
        s = Nut.hex(s, 32, "dleq s");
        r = r == null ? null : Nut.hex(r, 32, "dleq r");
    }
}
