package org.fleetmesh.settlement.lightning.bolt11;

import fr.acinq.secp256k1.Secp256k1;
import org.fleetmesh.nostr.Hex;

/** A Lightning node's 33-byte compressed secp256k1 public key. */
public final class NodeId extends ByteValue {
    public NodeId(byte[] bytes) {
        super(bytes, 33);
    }

    public static NodeId ofHex(String hex) {
        return new NodeId(Hex.decode(hex, 33));
    }

    /** The node id of a 32-byte secret key. */
    public static NodeId fromSecretKey(byte[] secretKey) {
        Secp256k1 secp = Secp256k1.get();
        return new NodeId(secp.pubKeyCompress(secp.pubkeyCreate(secretKey)));
    }
}
