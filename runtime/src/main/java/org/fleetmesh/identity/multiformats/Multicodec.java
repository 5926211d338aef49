package org.fleetmesh.identity.multiformats;

import java.util.Arrays;
import java.util.Optional;

/** The entries of the multicodec table that DIDs here use, with the code as the table gives it. */
public enum Multicodec {
    SHA2_256(0x12, "sha2-256"),
    SECP256K1_PUB(0xe7, "secp256k1-pub"),
    X25519_PUB(0xec, "x25519-pub"),
    ED25519_PUB(0xed, "ed25519-pub"),
    JSON(0x0200, "json"),
    P256_PUB(0x1200, "p256-pub"),
    P384_PUB(0x1201, "p384-pub");

    private final long code;
    private final String tableName;
    private final byte[] prefix;

    Multicodec(long code, String tableName) {
        this.code = code;
        this.tableName = tableName;
        this.prefix = Varint.encode(code);
    }

    public long code() {
        return code;
    }

    /** The name in the multicodec table, e.g. {@code ed25519-pub}. */
    public String tableName() {
        return tableName;
    }

    /** The varint prefix a multicodec value starts with. */
    public byte[] prefix() {
        return prefix.clone();
    }

    public static Optional<Multicodec> of(long code) {
        return Arrays.stream(values()).filter(c -> c.code == code).findFirst();
    }

    /** {@code prefix ‖ content}. */
    public byte[] wrap(byte[] content) {
        byte[] out = Arrays.copyOf(prefix, prefix.length + content.length);
        System.arraycopy(content, 0, out, prefix.length, content.length);
        return out;
    }

    /** A multicodec value split into its code (possibly not one in this table) and the bytes after it. */
    public record Value(long code, byte[] content) {
        public Optional<Multicodec> codec() {
            return Multicodec.of(code);
        }

        /** The code as the multicodec table writes it: {@code 0xed}. */
        public String codeHex() {
            return "0x" + Long.toHexString(code);
        }
    }

    public static Value unwrap(byte[] bytes) {
        Varint.Read read = Varint.decode(bytes, 0);
        return new Value(read.value(), Arrays.copyOfRange(bytes, read.length(), bytes.length));
    }
}
