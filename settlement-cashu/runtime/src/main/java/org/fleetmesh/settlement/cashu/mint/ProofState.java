package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * NUT-07: what the mint knows of one proof, by its {@code Y}. {@code witness} is the NUT-10 witness the
 * proof was spent with (P2PK signatures, HTLC preimage), null when there is none.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ProofState(@JsonProperty("Y") String y,
                         @JsonProperty("state") State state,
                         @JsonProperty("witness") String witness) {
    public enum State { UNSPENT, PENDING, SPENT }

    public ProofState {
        Wire.required(y, "Y");
        Wire.required(state, "state");
    }
}
