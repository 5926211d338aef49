package org.fleetmesh.settlement.cashu.nut;

import com.fasterxml.jackson.annotation.JsonProperty;

/** NUT-12 DLEQ proof the mint attaches to a {@link BlindSignature}: {@code e} and {@code s}, 32-byte hex each. */
public record BlindSignatureDleq(
        @JsonProperty(value = "e", required = true) String e,
        @JsonProperty(value = "s", required = true) String s) {

    public BlindSignatureDleq {
        e = Nut.hex(e, 32, "dleq e");
        s = Nut.hex(s, 32, "dleq s");
    }
}
