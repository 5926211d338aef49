package org.fleetmesh.settlement.cashu.conditions;

/** A NUT-10 secret, its tags or a witness that is malformed; NUT-11 says such a proof is unspendable. */
public final class ConditionException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConditionException(String reason) {
        super(reason);
    }
}
