package org.fleetmesh.settlement.lightning.bolt11;

import fr.acinq.secp256k1.Secp256k1;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11Exception.Reason;

/** Reads and writes BOLT #11 payment requests: bech32 text in, {@link Invoice} out, and back. */
public final class Bolt11 {

    /**
     * What a reader does with a {@code p}, {@code h}, {@code s} or {@code n} field of the wrong length.
     * The spec has said REFUSE since lightning/bolts#1243 (2025); its example "including fields which
     * must be ignored" still expects SKIP, as every reader did before.
     */
    public enum WrongLengthFields { REFUSE, SKIP }

    static final int TYPE_P = 1;
    static final int TYPE_R = 3;
    static final int TYPE_9 = 5;
    static final int TYPE_X = 6;
    static final int TYPE_F = 9;
    static final int TYPE_D = 13;
    static final int TYPE_S = 16;
    static final int TYPE_N = 19;
    static final int TYPE_H = 23;
    static final int TYPE_C = 24;
    static final int TYPE_M = 27;

    private static final int TIMESTAMP_GROUPS = 7;
    private static final int SIGNATURE_GROUPS = 104;
    private static final int MAX_DATA_LENGTH = 1023;

    private Bolt11() {
    }

    /** Decodes and verifies a payment request as the current spec's reader must. */
    public static Invoice decode(String paymentRequest) throws Bolt11Exception {
        return decode(paymentRequest, WrongLengthFields.REFUSE);
    }

    public static Invoice decode(String paymentRequest, WrongLengthFields wrongLength) throws Bolt11Exception {
        Bech32.Decoded bech32 = Bech32.decode(paymentRequest);
        HumanReadablePart hrp = HumanReadablePart.parse(bech32.hrp());
        byte[] data = bech32.data();
        if (data.length < TIMESTAMP_GROUPS + SIGNATURE_GROUPS) {
            throw new Bolt11Exception(Reason.TOO_SHORT,
                    data.length + " groups cannot hold a timestamp and a signature");
        }
        int end = data.length - SIGNATURE_GROUPS;
        long timestamp = Bech32.toLong(data, 0, TIMESTAMP_GROUPS);
        Fields fields = readFields(data, TIMESTAMP_GROUPS, end, wrongLength);

        if (fields.paymentHash == null) {
            throw new Bolt11Exception(Reason.MISSING_PAYMENT_HASH, "no p field");
        }
        if (fields.paymentSecret == null) {
            throw new Bolt11Exception(Reason.MISSING_PAYMENT_SECRET, "no s field");
        }
        if ((fields.description == null) == (fields.descriptionHash == null)) {
            throw new Bolt11Exception(Reason.DESCRIPTION_AMBIGUOUS,
                    fields.description == null ? "neither d nor h field" : "both d and h fields");
        }
        Features features = fields.features == null ? Features.NONE : fields.features;
        int unknown = features.firstUnknownEvenBit();
        if (unknown >= 0) {
            throw new Bolt11Exception(Reason.UNKNOWN_REQUIRED_FEATURE, "feature bit " + unknown + " is required and unknown");
        }
        if (features.supports(Features.BASIC_MPP) && !features.supports(Features.PAYMENT_SECRET)) {
            throw new Bolt11Exception(Reason.MISSING_FEATURE_DEPENDENCY, "basic_mpp without payment_secret");
        }

        InvoiceSignature signature = readSignature(data, end);
        byte[] message = signedHash(bech32.hrp(), data, end);
        NodeId payee = fields.payee != null ? checkPayee(signature, message, fields.payee) : recover(signature, message);

        return new Invoice(hrp.network(), hrp.amountMsat(), timestamp,
                fields.expiry >= 0 ? fields.expiry : Invoice.DEFAULT_EXPIRY,
                fields.paymentHash, fields.paymentSecret,
                Optional.ofNullable(fields.description), Optional.ofNullable(fields.descriptionHash), payee,
                fields.minFinalCltvExpiryDelta >= 0 ? fields.minFinalCltvExpiryDelta : Invoice.DEFAULT_MIN_FINAL_CLTV_EXPIRY_DELTA,
                features, fields.routeHints, fields.fallbacks, Optional.ofNullable(fields.metadata),
                Optional.of(signature));
    }

    /** The first field of each kind wins: the spec has writers put the preferred one first. */
    private static final class Fields {
        PaymentHash paymentHash;
        PaymentSecret paymentSecret;
        String description;
        DescriptionHash descriptionHash;
        NodeId payee;
        PaymentMetadata metadata;
        long expiry = -1;
        int minFinalCltvExpiryDelta = -1;
        Features features;
        final List<RouteHint> routeHints = new ArrayList<>();
        final List<Fallback> fallbacks = new ArrayList<>();
    }

    private static Fields readFields(byte[] data, int pos, int end, WrongLengthFields wrongLength)
            throws Bolt11Exception {
        Fields f = new Fields();
        while (pos < end) {
            if (end - pos < 3) {
                throw new Bolt11Exception(Reason.MALFORMED_FIELD, "field header cut short at group " + pos);
            }
            int type = data[pos];
            int length = (data[pos + 1] << 5) | data[pos + 2];
            int at = pos + 3;
            if (at + length > end) {
                throw new Bolt11Exception(Reason.MALFORMED_FIELD,
                        "field " + Bech32.CHARSET.charAt(type) + " of " + length + " groups runs into the signature");
            }
            pos = at + length;
            switch (type) {
                case TYPE_P -> {
                    if (hasLength(type, length, 52, wrongLength) && f.paymentHash == null) {
                        f.paymentHash = new PaymentHash(Bech32.toBytes(data, at, length));
                    }
                }
                case TYPE_S -> {
                    if (hasLength(type, length, 52, wrongLength) && f.paymentSecret == null) {
                        f.paymentSecret = new PaymentSecret(Bech32.toBytes(data, at, length));
                    }
                }
                case TYPE_H -> {
                    if (hasLength(type, length, 52, wrongLength) && f.descriptionHash == null) {
                        f.descriptionHash = new DescriptionHash(Bech32.toBytes(data, at, length));
                    }
                }
                case TYPE_N -> {
                    if (hasLength(type, length, 53, wrongLength) && f.payee == null) {
                        f.payee = parseNodeId(Bech32.toBytes(data, at, length), "n");
                    }
                }
                case TYPE_D -> {
                    if (f.description == null) {
                        f.description = utf8(Bech32.toBytes(data, at, length));
                    }
                }
                case TYPE_M -> {
                    if (f.metadata == null) {
                        f.metadata = new PaymentMetadata(Bech32.toBytes(data, at, length));
                    }
                }
                case TYPE_X -> {
                    long expiry = readNumber(data, at, length, 'x', 12);
                    if (f.expiry < 0) {
                        f.expiry = expiry;
                    }
                }
                case TYPE_C -> {
                    long delta = readNumber(data, at, length, 'c', 7);
                    if (delta > Integer.MAX_VALUE) {
                        throw new Bolt11Exception(Reason.MALFORMED_FIELD, "min_final_cltv_expiry_delta " + delta + " is absurd");
                    }
                    if (f.minFinalCltvExpiryDelta < 0) {
                        f.minFinalCltvExpiryDelta = (int) delta;
                    }
                }
                case TYPE_9 -> {
                    if (length > 0 && data[at] == 0) {
                        throw new Bolt11Exception(Reason.NON_MINIMAL_FIELD, "9 field starts with a 0 group");
                    }
                    if (f.features == null) {
                        f.features = Features.fromGroups(data, at, length);
                    }
                }
                case TYPE_F -> readFallback(data, at, length).ifPresent(f.fallbacks::add);
                case TYPE_R -> f.routeHints.add(readRouteHint(Bech32.toBytes(data, at, length)));
                default -> {
                    // unknown fields are skipped: that is how the format grows
                }
            }
        }
        return f;
    }

    private static boolean hasLength(int type, int length, int expected, WrongLengthFields rule) throws Bolt11Exception {
        if (length == expected) {
            return true;
        }
        if (rule == WrongLengthFields.SKIP) {
            return false;
        }
        throw new Bolt11Exception(Reason.WRONG_FIELD_LENGTH,
                Bech32.CHARSET.charAt(type) + " field has data_length " + length + ", not " + expected);
    }

    /** A big-endian number; a leading 0 group is a non-minimal encoding the spec says to treat as invalid. */
    private static long readNumber(byte[] data, int at, int length, char tag, int maxGroups) throws Bolt11Exception {
        if (length > 0 && data[at] == 0) {
            throw new Bolt11Exception(Reason.NON_MINIMAL_FIELD, tag + " field starts with a 0 group");
        }
        if (length > maxGroups) {
            throw new Bolt11Exception(Reason.MALFORMED_FIELD, tag + " field of " + length + " groups is too large");
        }
        return Bech32.toLong(data, at, length);
    }

    private static String utf8(byte[] bytes) throws Bolt11Exception {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new Bolt11Exception(Reason.INVALID_DESCRIPTION, "d field is not valid UTF-8");
        }
    }

    private static NodeId parseNodeId(byte[] bytes, String where) throws Bolt11Exception {
        try {
            Secp256k1.get().pubkeyParse(bytes);
        } catch (RuntimeException e) {
            throw new Bolt11Exception(Reason.MALFORMED_FIELD, where + " is not a secp256k1 public key");
        }
        return new NodeId(bytes);
    }

    /** Versions 19..31 are future address types: the reader skips them. */
    private static Optional<Fallback> readFallback(byte[] data, int at, int length) throws Bolt11Exception {
        if (length == 0) {
            throw new Bolt11Exception(Reason.MALFORMED_FIELD, "f field without a version");
        }
        int version = data[at];
        if (version > Fallback.P2SH) {
            return Optional.empty();
        }
        byte[] program = Bech32.toBytes(data, at + 1, length - 1);
        if (!Fallback.hasValidLength(version, program.length)) {
            throw new Bolt11Exception(Reason.INVALID_FALLBACK,
                    "version " + version + " fallback cannot be " + program.length + " bytes");
        }
        return Optional.of(new Fallback(version, program));
    }

    private static RouteHint readRouteHint(byte[] bytes) throws Bolt11Exception {
        if (bytes.length == 0 || bytes.length % RouteHop.BYTES != 0) {
            throw new Bolt11Exception(Reason.INVALID_ROUTE_HINT, bytes.length + " bytes is not a whole number of hops");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        List<RouteHop> hops = new ArrayList<>();
        while (in.hasRemaining()) {
            byte[] pubkey = new byte[33];
            in.get(pubkey);
            hops.add(new RouteHop(parseNodeId(pubkey, "r pubkey"), new ShortChannelId(in.getLong()),
                    Integer.toUnsignedLong(in.getInt()), Integer.toUnsignedLong(in.getInt()),
                    Short.toUnsignedInt(in.getShort())));
        }
        return new RouteHint(hops);
    }

    private static InvoiceSignature readSignature(byte[] data, int end) throws Bolt11Exception {
        byte[] raw = Bech32.toBytes(data, end, SIGNATURE_GROUPS);
        int recoveryId = raw[64];
        if (recoveryId < 0 || recoveryId > 3) {
            throw new Bolt11Exception(Reason.INVALID_SIGNATURE, "recovery id " + (raw[64] & 0xff) + " is not 0..3");
        }
        return new InvoiceSignature(Arrays.copyOf(raw, 64), recoveryId);
    }

    /** SHA-256 of the hrp's UTF-8 bytes and the data part before the signature, padded to a byte. */
    private static byte[] signedHash(String hrp, byte[] data, int end) {
        byte[] prefix = hrp.getBytes(StandardCharsets.UTF_8);
        byte[] body = Bech32.toBytesPadded(data, 0, end);
        byte[] preimage = Arrays.copyOf(prefix, prefix.length + body.length);
        System.arraycopy(body, 0, preimage, prefix.length, body.length);
        return Fallback.sha256(preimage);
    }

    /** With an {@code n} field the signature must be low-S and verify against it; no recovery. */
    private static NodeId checkPayee(InvoiceSignature signature, byte[] message, NodeId payee) throws Bolt11Exception {
        if (!signature.isLowS()) {
            throw new Bolt11Exception(Reason.HIGH_S_SIGNATURE, "signature is not low-S and the invoice has an n field");
        }
        boolean valid;
        try {
            valid = Secp256k1.get().verify(signature.compact(), message, payee.unsafeBytes());
        } catch (RuntimeException e) {
            valid = false;
        }
        if (!valid) {
            throw new Bolt11Exception(Reason.INVALID_SIGNATURE, "signature does not verify against n " + payee);
        }
        return payee;
    }

    /**
     * Without {@code n} the payee is whoever signed. libsecp256k1 recovers from high-S and low-S alike,
     * taking (r, s, recovery id) as written, as the spec's rationale and lnd, CLN, LDK and eclair do.
     */
    private static NodeId recover(InvoiceSignature signature, byte[] message) throws Bolt11Exception {
        try {
            Secp256k1 secp = Secp256k1.get();
            byte[] uncompressed = secp.ecdsaRecover(signature.compact(), message, signature.recoveryId());
            return new NodeId(secp.pubKeyCompress(uncompressed));
        } catch (RuntimeException e) {
            throw new Bolt11Exception(Reason.INVALID_SIGNATURE, "no public key recovers from the signature");
        }
    }

    /**
     * Writes and signs {@code invoice} with the payee's 32-byte secret key. The {@code n} field is
     * left out, as LND does: readers recover the payee from the signature.
     *
     * @throws IllegalArgumentException if the key is not the payee's or a field cannot be encoded
     */
    public static String encode(Invoice invoice, byte[] secretKey) {
        Secp256k1 secp = Secp256k1.get();
        NodeId signer = NodeId.fromSecretKey(secretKey);
        if (!signer.equals(invoice.payee())) {
            throw new IllegalArgumentException("secret key is for " + signer + ", not the payee " + invoice.payee());
        }
        String hrp = new HumanReadablePart(invoice.network(), invoice.amountMsat()).format();
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        writeNumber(out, invoice.timestamp(), TIMESTAMP_GROUPS);
        writeField(out, TYPE_S, Bech32.toGroups(invoice.paymentSecret().unsafeBytes()));
        writeField(out, TYPE_P, Bech32.toGroups(invoice.paymentHash().unsafeBytes()));
        invoice.description().ifPresent(d -> writeField(out, TYPE_D, Bech32.toGroups(d.getBytes(StandardCharsets.UTF_8))));
        invoice.descriptionHash().ifPresent(h -> writeField(out, TYPE_H, Bech32.toGroups(h.unsafeBytes())));
        invoice.metadata().ifPresent(m -> writeField(out, TYPE_M, Bech32.toGroups(m.unsafeBytes())));
        if (invoice.expiry() != Invoice.DEFAULT_EXPIRY) {
            writeField(out, TYPE_X, minimalGroups(invoice.expiry()));
        }
        writeField(out, TYPE_C, minimalGroups(invoice.minFinalCltvExpiryDelta()));
        for (Fallback fallback : invoice.fallbacks()) {
            byte[] program = Bech32.toGroups(fallback.program());
            byte[] groups = new byte[program.length + 1];
            groups[0] = (byte) fallback.version();
            System.arraycopy(program, 0, groups, 1, program.length);
            writeField(out, TYPE_F, groups);
        }
        for (RouteHint hint : invoice.routeHints()) {
            ByteBuffer hops = ByteBuffer.allocate(hint.hops().size() * RouteHop.BYTES);
            for (RouteHop hop : hint.hops()) {
                hops.put(hop.pubkey().unsafeBytes()).putLong(hop.shortChannelId().value())
                        .putInt((int) hop.feeBaseMsat()).putInt((int) hop.feeProportionalMillionths())
                        .putShort((short) hop.cltvExpiryDelta());
            }
            writeField(out, TYPE_R, Bech32.toGroups(hops.array()));
        }
        byte[] features = invoice.features().toGroups();
        if (features.length > 0) { // a writer must omit an all-zero 9 field
            writeField(out, TYPE_9, features);
        }
        byte[] data = out.toByteArray();
        byte[] message = signedHash(hrp, data, data.length);
        byte[] compact = secp.sign(message, secretKey, null);
        int recoveryId = recoveryIdOf(secp, compact, message, signer);
        out.writeBytes(Bech32.toGroups(new InvoiceSignature(compact, recoveryId).toBytes()));
        return Bech32.encode(hrp, out.toByteArray());
    }

    /** libsecp256k1's JNI signs without a recovery id, so find the one that gives back our key. */
    private static int recoveryIdOf(Secp256k1 secp, byte[] compact, byte[] message, NodeId signer) {
        for (int id = 0; id < 4; id++) {
            try {
                if (Arrays.equals(secp.pubKeyCompress(secp.ecdsaRecover(compact, message, id)), signer.unsafeBytes())) {
                    return id;
                }
            } catch (RuntimeException e) {
                // this id names a point that does not exist; try the next
            }
        }
        throw new IllegalStateException("no recovery id reproduces the signing key");
    }

    private static void writeField(ByteArrayOutputStream out, int type, byte[] groups) {
        if (groups.length > MAX_DATA_LENGTH) {
            throw new IllegalArgumentException("field " + Bech32.CHARSET.charAt(type) + " exceeds 1023 groups (639 bytes)");
        }
        out.write(type);
        out.write(groups.length >>> 5);
        out.write(groups.length & 31);
        out.writeBytes(groups);
    }

    private static void writeNumber(ByteArrayOutputStream out, long value, int groups) {
        for (int i = groups - 1; i >= 0; i--) {
            out.write((int) ((value >>> (5 * i)) & 31));
        }
    }

    /** Big-endian 5-bit groups with no leading 0 group; zero is no groups at all. */
    private static byte[] minimalGroups(long value) {
        int count = 0;
        for (long v = value; v != 0; v >>>= 5) {
            count++;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(count);
        writeNumber(out, value, count);
        return out.toByteArray();
    }
}
