package org.fleetmesh.spi.settlement;

import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of {@link SettlementRail#pay}: the preimage and the fee paid, or why it failed.
 * A payment that is still in flight when the rail gives up waiting is {@link Status#PENDING}: its
 * outcome is not known and the caller must not pay again.
 */
public record PaymentResult(Status status, Optional<Preimage> preimage, long feeMsat,
        Optional<SettlementException.Reason> failure, String detail) {

    public enum Status { SUCCEEDED, FAILED, PENDING }

    public PaymentResult {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(preimage, "preimage");
        Objects.requireNonNull(failure, "failure");
        Objects.requireNonNull(detail, "detail");
        Msat.checked(feeMsat, "fee");
        if ((status == Status.SUCCEEDED) != preimage.isPresent()) {
            throw new IllegalArgumentException("a preimage comes with, and only with, a successful payment");
        }
        if ((status == Status.FAILED) != failure.isPresent()) {
            throw new IllegalArgumentException("a failure reason comes with, and only with, a failed payment");
        }
    }

    public static PaymentResult succeeded(Preimage preimage, long feeMsat) {
        return new PaymentResult(Status.SUCCEEDED, Optional.of(preimage), feeMsat, Optional.empty(), "");
    }

    public static PaymentResult failed(SettlementException.Reason reason, String detail) {
        return new PaymentResult(Status.FAILED, Optional.empty(), 0, Optional.of(reason), detail);
    }

    public static PaymentResult pending(String detail) {
        return new PaymentResult(Status.PENDING, Optional.empty(), 0, Optional.empty(), detail);
    }

    public boolean succeeded() {
        return status == Status.SUCCEEDED;
    }
}
