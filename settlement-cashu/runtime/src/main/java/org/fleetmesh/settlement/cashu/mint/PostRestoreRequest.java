package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;

import java.util.List;

/** NUT-09 {@code POST /v1/restore} body. */
public record PostRestoreRequest(@JsonProperty("outputs") List<BlindedMessage> outputs) {
    public PostRestoreRequest {
        outputs = Wire.list(outputs, "outputs");
    }
}
