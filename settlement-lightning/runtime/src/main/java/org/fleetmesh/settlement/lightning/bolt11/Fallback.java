package org.fleetmesh.settlement.lightning.bolt11;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.fleetmesh.nostr.Hex;

/**
 * An {@code f} field: an on-chain address to pay if Lightning fails. {@code version} 0..16 is a
 * witness version with its program; 17 is a P2PKH and 18 a P2SH 20-byte hash.
 */
public record Fallback(int version, byte[] program) {
    public static final int P2PKH = 17;
    public static final int P2SH = 18;
    private static final String BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

    public Fallback {
        if (version < 0 || version > P2SH || program == null) {
            throw new IllegalArgumentException("fallback version is 0..18");
        }
        program = program.clone();
        if (!hasValidLength(version, program.length)) {
            throw new IllegalArgumentException("a version " + version + " fallback cannot be " + program.length + " bytes");
        }
    }

    /** BIP-141 program lengths, and the 20-byte hashes of P2PKH and P2SH. */
    static boolean hasValidLength(int version, int length) {
        if (version == P2PKH || version == P2SH) {
            return length == 20;
        }
        if (version == 0) {
            return length == 20 || length == 32;
        }
        return length >= 2 && length <= 40;
    }

    @Override
    public byte[] program() {
        return program.clone();
    }

    /** The address as a wallet shows it: base58check for P2PKH/P2SH, bech32 (v0) or bech32m (v1+) for segwit. */
    public String address(Network network) {
        if (version == P2PKH || version == P2SH) {
            byte[] payload = new byte[21];
            payload[0] = (byte) (version == P2PKH ? network.p2pkhVersion() : network.p2shVersion());
            System.arraycopy(program, 0, payload, 1, 20);
            return base58Check(payload);
        }
        byte[] groups = Bech32.toGroups(program);
        byte[] data = new byte[groups.length + 1];
        data[0] = (byte) version;
        System.arraycopy(groups, 0, data, 1, groups.length);
        return version == 0 ? Bech32.encode(network.segwitHrp(), data) : Bech32.encodeBech32m(network.segwitHrp(), data);
    }

    private static String base58Check(byte[] payload) {
        byte[] check = sha256(sha256(payload));
        byte[] full = Arrays.copyOf(payload, payload.length + 4);
        System.arraycopy(check, 0, full, payload.length, 4);
        StringBuilder out = new StringBuilder();
        BigInteger n = new BigInteger(1, full);
        BigInteger base = BigInteger.valueOf(58);
        while (n.signum() > 0) {
            BigInteger[] qr = n.divideAndRemainder(base);
            out.append(BASE58.charAt(qr[1].intValue()));
            n = qr[0];
        }
        for (int i = 0; i < full.length && full[i] == 0; i++) {
            out.append('1'); // each leading zero byte is a leading '1'
        }
        return out.reverse().toString();
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM ships SHA-256", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Fallback other && other.version == version && Arrays.equals(other.program, program);
    }

    @Override
    public int hashCode() {
        return 31 * version + Arrays.hashCode(program);
    }

    @Override
    public String toString() {
        return "Fallback[version=" + version + ", program=" + Hex.encode(program) + "]";
    }
}
