package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.fleetmesh.settlement.cashu.nut.BlindSignature;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;

import java.util.List;

/**
 * NUT-09 {@code PostRestoreResponse}: the subset of the asked outputs the mint had signed, and
 * {@code signatures[i]} is its signature on {@code outputs[i]}. Older mints call the signatures
 * {@code promises}; both names are read.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Restored(@JsonProperty("outputs") List<BlindedMessage> outputs,
                       @JsonProperty("signatures") @JsonAlias("promises") List<BlindSignature> signatures) {
    public Restored {
        outputs = Wire.list(outputs, "outputs");
        signatures = Wire.list(signatures, "signatures");
        if (outputs.size() != signatures.size()) {
            throw new IllegalArgumentException("restore answer pairs " + outputs.size() + " outputs with "
                    + signatures.size() + " signatures");
        }
    }
}
