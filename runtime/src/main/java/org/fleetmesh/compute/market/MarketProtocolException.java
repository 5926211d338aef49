package org.fleetmesh.compute.market;

/** A compute/1.0 message or record that breaks the protocol; the message says how, in the spec's words. */
public final class MarketProtocolException extends Exception {
    public MarketProtocolException(String message) {
        super(message, null, false, false);
    }
}
