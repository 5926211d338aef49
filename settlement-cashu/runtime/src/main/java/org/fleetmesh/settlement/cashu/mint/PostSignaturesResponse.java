package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.fleetmesh.settlement.cashu.nut.BlindSignature;

import java.util.List;

/** {@code {"signatures": [...]}}: NUT-03 {@code PostSwapResponse} and NUT-04/23 {@code PostMintBolt11Response}. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PostSignaturesResponse(@JsonProperty("signatures") List<BlindSignature> signatures) {
    public PostSignaturesResponse {
        signatures = Wire.list(signatures, "signatures");
    }
}
