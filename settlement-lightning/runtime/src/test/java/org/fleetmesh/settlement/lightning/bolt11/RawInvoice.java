package org.fleetmesh.settlement.lightning.bolt11;

import fr.acinq.secp256k1.Secp256k1;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Writes invoices field by field, rules broken on purpose, and signs them as a payee would. */
final class RawInvoice {
    private final String hrp;
    private final ByteArrayOutputStream groups = new ByteArrayOutputStream();

    RawInvoice(String hrp, long timestamp) {
        this.hrp = hrp;
        for (int i = 6; i >= 0; i--) {
            groups.write((int) ((timestamp >>> (5 * i)) & 31));
        }
    }

    RawInvoice field(char tag, byte... fieldGroups) {
        groups.write(Bech32.CHARSET.indexOf(tag));
        groups.write(fieldGroups.length >>> 5);
        groups.write(fieldGroups.length & 31);
        groups.writeBytes(fieldGroups);
        return this;
    }

    RawInvoice bytes(char tag, byte[] bytes) {
        return field(tag, Bech32.toGroups(bytes));
    }

    RawInvoice text(char tag, String text) {
        return bytes(tag, text.getBytes(StandardCharsets.UTF_8));
    }

    RawInvoice raw(byte... rawGroups) {
        groups.writeBytes(rawGroups);
        return this;
    }

    /** The usual s, p and d fields of a well-formed invoice. */
    RawInvoice basics() {
        return bytes('s', filled(0x11, 32)).bytes('p', filled(0x01, 32)).text('d', "coffee");
    }

    static byte[] filled(int value, int length) {
        byte[] out = new byte[length];
        Arrays.fill(out, (byte) value);
        return out;
    }

    byte[] message() {
        byte[] data = groups.toByteArray();
        byte[] prefix = hrp.getBytes(StandardCharsets.UTF_8);
        byte[] body = Bech32.toBytesPadded(data, 0, data.length);
        byte[] preimage = Arrays.copyOf(prefix, prefix.length + body.length);
        System.arraycopy(body, 0, preimage, prefix.length, body.length);
        return Fallback.sha256(preimage);
    }

    String sign(byte[] secretKey) {
        Secp256k1 secp = Secp256k1.get();
        byte[] message = message();
        byte[] compact = secp.sign(message, secretKey, null);
        byte[] key = NodeId.fromSecretKey(secretKey).bytes();
        for (int id = 0; id < 4; id++) {
            if (Arrays.equals(key, secp.pubKeyCompress(secp.ecdsaRecover(compact, message, id)))) {
                return withSignature(compact, id);
            }
        }
        throw new IllegalStateException("no recovery id");
    }

    String withSignature(byte[] compact, int recoveryId) {
        byte[] sig = Arrays.copyOf(compact, 65);
        sig[64] = (byte) recoveryId;
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.writeBytes(groups.toByteArray());
        all.writeBytes(Bech32.toGroups(sig));
        return Bech32.encode(hrp, all.toByteArray());
    }
}
