package org.fleetmesh.identity.didcomm;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The Concat KDF of NIST SP 800-56A §5.8.1 with SHA-256, its OtherInfo laid out as RFC 7518 §4.6.2 says, and,
 * for ECDH-1PU in key wrapping mode, the content encryption tag appended to SuppPubInfo
 * (draft-madden-jose-ecdh-1pu-04 §2.3).
 */
final class ConcatKdf {
    private ConcatKdf() {
    }

    /**
     * @param z the shared secret (Ze for ECDH-ES, Ze ‖ Zs for ECDH-1PU)
     * @param keyBits keydatalen: 256 for A256KW
     * @param algorithmId the {@code alg} header value in key wrapping mode
     * @param apu the decoded {@code apu} (empty when absent)
     * @param apv the decoded {@code apv} (empty when absent)
     * @param cctag the JWE tag for ECDH-1PU, {@code null} for ECDH-ES
     */
    static byte[] derive(byte[] z, int keyBits, String algorithmId, byte[] apu, byte[] apv, byte[] cctag) {
        ByteArrayOutputStream otherInfo = new ByteArrayOutputStream();
        lengthPrefixed(otherInfo, algorithmId.getBytes(StandardCharsets.US_ASCII));
        lengthPrefixed(otherInfo, apu);
        lengthPrefixed(otherInfo, apv);
        otherInfo.writeBytes(int32(keyBits)); // SuppPubInfo
        if (cctag != null) {
            lengthPrefixed(otherInfo, cctag);
        }
        byte[] info = otherInfo.toByteArray();

        int keyBytes = keyBits / 8;
        byte[] out = new byte[((keyBytes + 31) / 32) * 32];
        MessageDigest sha256 = sha256();
        for (int counter = 1, offset = 0; offset < keyBytes; counter++, offset += 32) {
            sha256.update(int32(counter));
            sha256.update(z);
            sha256.update(info);
            System.arraycopy(sha256.digest(), 0, out, offset, 32);
        }
        return Arrays.copyOf(out, keyBytes);
    }

    private static void lengthPrefixed(ByteArrayOutputStream out, byte[] data) {
        out.writeBytes(int32(data.length));
        out.writeBytes(data);
    }

    private static byte[] int32(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JRE has SHA-256", e);
        }
    }
}
