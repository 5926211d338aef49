package org.fleetmesh.settlement.lightning.bolt11;

import org.fleetmesh.nostr.Hex;

/** The payment_secret (`s`) that stops forwarding nodes probing the payee. */
public final class PaymentSecret extends ByteValue {
    public PaymentSecret(byte[] bytes) {
        super(bytes, 32);
    }

    public static PaymentSecret ofHex(String hex) {
        return new PaymentSecret(Hex.decode(hex, 32));
    }
}
