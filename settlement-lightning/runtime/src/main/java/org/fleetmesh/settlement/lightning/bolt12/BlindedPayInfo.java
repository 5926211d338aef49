package org.fleetmesh.settlement.lightning.bolt12;

import java.util.Objects;
import org.fleetmesh.settlement.lightning.bolt11.Features;

/** A {@code blinded_payinfo}: what paying over the matching {@code invoice_paths} entry costs. */
public record BlindedPayInfo(long feeBaseMsat, long feeProportionalMillionths, int cltvExpiryDelta,
        long htlcMinimumMsat, long htlcMaximumMsat, Features features) {

    public BlindedPayInfo {
        Objects.requireNonNull(features);
    }
}
