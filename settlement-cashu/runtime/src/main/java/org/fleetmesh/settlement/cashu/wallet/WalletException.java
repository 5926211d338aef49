package org.fleetmesh.settlement.cashu.wallet;

/** The wallet refused or could not finish an operation; the message says why in words an operator understands. */
public class WalletException extends RuntimeException {
    public WalletException(String message) {
        super(message);
    }

    public WalletException(String message, Throwable cause) {
        super(message, cause);
    }
}
