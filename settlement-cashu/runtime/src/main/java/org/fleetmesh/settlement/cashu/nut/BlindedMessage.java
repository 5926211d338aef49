package org.fleetmesh.settlement.cashu.nut;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * A NUT-00 blinded message (an output): {@code {"amount","id","B_"}}. The amount may be zero: NUT-08 blank
 * outputs for melt change carry no amount yet.
 */
@JsonPropertyOrder({ "amount", "id", "B_" })
public record BlindedMessage(
        @JsonProperty(value = "amount", required = true) long amount,
        @JsonProperty(value = "id", required = true) String id,
        @JsonProperty(value = "B_", required = true) String b_) {

    public BlindedMessage {
        if (amount < 0) {
            throw new IllegalArgumentException("output amount must not be negative");
        }
        id = Nut.keysetId(id, "output id");
        b_ = Nut.point(b_, "output B_");
    }
}
