package org.fleetmesh.compute.nip90;

/** Why a job request is refused: the text of the {@code error} feedback (kind 7000) the customer gets. */
public final class DvmException extends Exception {
    public DvmException(String reason) {
        super(reason);
    }
}
