package org.fleetmesh.settlement.lightning.bolt12;

import fr.acinq.secp256k1.Secp256k1;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.fleetmesh.settlement.lightning.bolt11.NodeId;

/** Test-side writer of BOLT #12 strings: TLV records to bech32 without checksum, and BIP-340 signing. */
final class Bolt12Strings {
    private static final String CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

    private Bolt12Strings() {
    }

    static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex);
    }

    static String encode(String hrp, List<Tlv> records) {
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        records.forEach(t -> data.writeBytes(t.encoded()));
        return encode(hrp, data.toByteArray());
    }

    /** Raw bytes, 8-bit to 5-bit with zero padding, no checksum. */
    static String encode(String hrp, byte[] bytes) {
        StringBuilder out = new StringBuilder(hrp).append('1');
        int acc = 0;
        int bits = 0;
        for (byte b : bytes) {
            acc = (acc << 8) | (b & 0xff);
            bits += 8;
            while (bits >= 5) {
                bits -= 5;
                out.append(CHARSET.charAt((acc >>> bits) & 31));
            }
            acc &= (1 << bits) - 1;
        }
        if (bits > 0) {
            out.append(CHARSET.charAt((acc << (5 - bits)) & 31));
        }
        return out.toString();
    }

    static byte[] secretKey(int fill) {
        byte[] k = new byte[32];
        java.util.Arrays.fill(k, (byte) fill);
        return k;
    }

    static NodeId nodeId(byte[] secretKey) {
        return NodeId.fromSecretKey(secretKey);
    }

    /** Adds, in type order, a type-240 BIP-340 signature over the records' Merkle root for {@code messageName}. */
    static List<Tlv> signed(String messageName, List<Tlv> records, byte[] secretKey) {
        byte[] message = Merkle.signatureMessage(messageName, "signature", Merkle.root(records));
        byte[] sig = Secp256k1.get().signSchnorr(message, secretKey, null);
        List<Tlv> out = new ArrayList<>(records);
        out.add(Tlv.of(240, sig));
        out.sort((a, b) -> Long.compareUnsigned(a.type(), b.type()));
        return out;
    }

    /** A one-hop blinded path through {@code intro}, path key and blinded node id {@code key}. */
    static byte[] blindedPath(NodeId intro, NodeId key, int numHops) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(intro.bytes());
        out.writeBytes(key.bytes());
        out.write(numHops);
        for (int i = 0; i < numHops; i++) {
            out.writeBytes(key.bytes());
            out.write(0);
            out.write(2);
            out.write(0xab);
            out.write(0xcd);
        }
        return out.toByteArray();
    }
}
