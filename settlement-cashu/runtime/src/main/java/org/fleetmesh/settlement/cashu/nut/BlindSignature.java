package org.fleetmesh.settlement.cashu.nut;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** A NUT-00 blind signature (a promise): {@code {"amount","id","C_","dleq"?}}; dleq is NUT-12's, or null. */
@JsonPropertyOrder({ "amount", "id", "C_", "dleq" })
public record BlindSignature(
        @JsonProperty(value = "amount", required = true) long amount,
        @JsonProperty(value = "id", required = true) String id,
        @JsonProperty(value = "C_", required = true) String c_,
        @JsonProperty("dleq") BlindSignatureDleq dleq) {

    public BlindSignature {
        if (amount <= 0) {
            throw new IllegalArgumentException("signature amount must be positive");
        }
        id = Nut.keysetId(id, "signature id");
        c_ = Nut.point(c_, "signature C_");
    }
}
