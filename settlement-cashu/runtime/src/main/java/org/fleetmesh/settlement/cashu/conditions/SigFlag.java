package org.fleetmesh.settlement.cashu.conditions;

/** NUT-11 signature flag: sign each input's secret, or one signature over all inputs and outputs. */
public enum SigFlag {
    SIG_INPUTS,
    SIG_ALL
}
