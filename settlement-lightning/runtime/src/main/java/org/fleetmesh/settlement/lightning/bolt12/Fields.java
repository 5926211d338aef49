package org.fleetmesh.settlement.lightning.bolt12;

import fr.acinq.secp256k1.Secp256k1;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fleetmesh.settlement.lightning.bolt11.Features;
import org.fleetmesh.settlement.lightning.bolt11.NodeId;
import org.fleetmesh.settlement.lightning.bolt11.ShortChannelId;
import org.fleetmesh.settlement.lightning.bolt12.Bolt12Exception.Reason;

/** Readers of the BOLT #1 / BOLT #12 field types out of one TLV value. */
final class Fields {
    private Fields() {
    }

    /** A {@code tu64} (or {@code tu32} with {@code maxBytes} 4): big-endian, no leading zero byte; empty is 0. */
    static long truncatedInt(Tlv tlv, String name, int maxBytes) throws Bolt12Exception {
        byte[] v = tlv.unsafeValue();
        if (v.length > maxBytes) {
            throw new Bolt12Exception(Reason.INVALID_FIELD_LENGTH, name + " is " + v.length + " bytes, at most "
                    + maxBytes + " allowed");
        }
        if (v.length > 0 && v[0] == 0) {
            throw new Bolt12Exception(Reason.NON_MINIMAL_INTEGER, name + " has a leading zero byte");
        }
        long out = 0;
        for (byte b : v) {
            out = (out << 8) | (b & 0xff);
        }
        return out;
    }

    static long tu64(Tlv tlv, String name) throws Bolt12Exception {
        return truncatedInt(tlv, name, 8);
    }

    static String utf8(Tlv tlv, String name) throws Bolt12Exception {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(tlv.unsafeValue()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new Bolt12Exception(Reason.INVALID_UTF8, name + " is not valid UTF-8");
        }
    }

    static NodeId point(Tlv tlv, String name) throws Bolt12Exception {
        if (tlv.unsafeValue().length != 33) {
            throw new Bolt12Exception(Reason.INVALID_FIELD_LENGTH, name + " is " + tlv.unsafeValue().length
                    + " bytes, a point is 33");
        }
        return point(tlv.unsafeValue(), 0, name);
    }

    static NodeId point(byte[] data, int at, String name) throws Bolt12Exception {
        byte[] bytes = Arrays.copyOfRange(data, at, at + 33);
        if (bytes[0] != 2 && bytes[0] != 3) {
            throw new Bolt12Exception(Reason.INVALID_POINT, name + " is not a compressed public key");
        }
        try {
            Secp256k1.get().pubkeyParse(bytes);
        } catch (RuntimeException e) {
            throw new Bolt12Exception(Reason.INVALID_POINT, name + " is not a point on secp256k1");
        }
        return new NodeId(bytes);
    }

    static byte[] fixed(Tlv tlv, String name, int length) throws Bolt12Exception {
        if (tlv.unsafeValue().length != length) {
            throw new Bolt12Exception(Reason.INVALID_FIELD_LENGTH, name + " is " + tlv.unsafeValue().length
                    + " bytes, not " + length);
        }
        return tlv.value();
    }

    static List<ChainHash> chains(Tlv tlv, String name) throws Bolt12Exception {
        byte[] v = tlv.unsafeValue();
        if (v.length % 32 != 0) {
            throw new Bolt12Exception(Reason.INVALID_FIELD_LENGTH, name + " is " + v.length
                    + " bytes, not a whole number of 32-byte chain hashes");
        }
        if (v.length == 0) {
            throw new Bolt12Exception(Reason.EMPTY_CHAINS, name + " names no chain");
        }
        List<ChainHash> out = new ArrayList<>();
        for (int i = 0; i < v.length; i += 32) {
            out.add(new ChainHash(Arrays.copyOfRange(v, i, i + 32)));
        }
        return List.copyOf(out);
    }

    /** A feature bitmap (big-endian bytes, bit 0 the lowest bit of the last byte). */
    static Features features(byte[] v) {
        List<Integer> bits = new ArrayList<>();
        for (int i = 0; i < v.length * 8; i++) {
            if (((v[v.length - 1 - i / 8] >>> (i % 8)) & 1) != 0) {
                bits.add(i);
            }
        }
        return new Features(bits);
    }

    /** Refuses a feature field ({@code name}) that sets an even bit other than {@code knownEven}. */
    static void requireKnownEvenBits(Features features, String name, int... knownEven) throws Bolt12Exception {
        int unknown = firstUnknownEvenBit(features, knownEven);
        if (unknown >= 0) {
            throw new Bolt12Exception(Reason.UNKNOWN_REQUIRED_FEATURE, name + " sets unknown even bit " + unknown);
        }
    }

    /** The first even bit set that is not among {@code knownEven}, or -1. */
    static int firstUnknownEvenBit(Features features, int... knownEven) {
        outer:
        for (int bit : features.bits()) {
            if ((bit & 1) != 0) {
                continue;
            }
            for (int known : knownEven) {
                if (known == bit) {
                    continue outer;
                }
            }
            return bit;
        }
        return -1;
    }

    static Features requireKnownFeatures(Tlv tlv, String name, int... knownEven) throws Bolt12Exception {
        Features features = features(tlv.unsafeValue());
        int unknown = firstUnknownEvenBit(features, knownEven);
        if (unknown >= 0) {
            throw new Bolt12Exception(Reason.UNKNOWN_REQUIRED_FEATURE, name + " sets unknown even feature bit " + unknown);
        }
        return features;
    }

    /** A {@code ...*blinded_path} array: the whole value, each path with at least one hop. */
    static List<BlindedPath> blindedPaths(Tlv tlv, String name) throws Bolt12Exception {
        byte[] v = tlv.unsafeValue();
        List<BlindedPath> out = new ArrayList<>();
        int at = 0;
        while (at < v.length) {
            int index = out.size();
            String where = name + "[" + index + "]";
            need(v, at, 1, where + " first_node_id");
            BlindedPath.Introduction intro;
            int kind = v[at] & 0xff;
            if (kind == 0 || kind == 1) {
                need(v, at, 9, where + " first_node_id");
                long scid = ByteBuffer.wrap(v, at + 1, 8).getLong();
                intro = new BlindedPath.ChannelIntroduction(kind, new ShortChannelId(scid));
                at += 9;
            } else {
                need(v, at, 33, where + " first_node_id");
                intro = new BlindedPath.NodeIntroduction(point(v, at, where + " first_node_id"));
                at += 33;
            }
            need(v, at, 33, where + " first_path_key");
            NodeId pathKey = point(v, at, where + " first_path_key");
            at += 33;
            need(v, at, 1, where + " num_hops");
            int numHops = v[at] & 0xff;
            at++;
            if (numHops == 0) {
                throw new Bolt12Exception(Reason.EMPTY_BLINDED_PATH, where + " has num_hops 0");
            }
            List<BlindedPath.Hop> hops = new ArrayList<>(numHops);
            for (int h = 0; h < numHops; h++) {
                String hop = where + " hop " + h;
                need(v, at, 33 + 2, hop);
                NodeId blinded = point(v, at, hop + " blinded_node_id");
                at += 33;
                int enclen = ((v[at] & 0xff) << 8) | (v[at + 1] & 0xff);
                at += 2;
                need(v, at, enclen, hop + " encrypted_recipient_data");
                hops.add(new BlindedPath.Hop(blinded, Arrays.copyOfRange(v, at, at + enclen)));
                at += enclen;
            }
            out.add(new BlindedPath(intro, pathKey, hops));
        }
        return List.copyOf(out);
    }

    /** A {@code ...*blinded_payinfo} array. */
    static List<BlindedPayInfo> payInfos(Tlv tlv, String name) throws Bolt12Exception {
        byte[] v = tlv.unsafeValue();
        List<BlindedPayInfo> out = new ArrayList<>();
        int at = 0;
        while (at < v.length) {
            String where = name + "[" + out.size() + "]";
            need(v, at, 4 + 4 + 2 + 8 + 8 + 2, where);
            ByteBuffer b = ByteBuffer.wrap(v, at, v.length - at);
            long feeBase = Integer.toUnsignedLong(b.getInt());
            long feeProp = Integer.toUnsignedLong(b.getInt());
            int cltv = Short.toUnsignedInt(b.getShort());
            long min = b.getLong();
            long max = b.getLong();
            int flen = Short.toUnsignedInt(b.getShort());
            at += 28;
            need(v, at, flen, where + " features");
            out.add(new BlindedPayInfo(feeBase, feeProp, cltv, min, max,
                    features(Arrays.copyOfRange(v, at, at + flen))));
            at += flen;
        }
        return List.copyOf(out);
    }

    /** A {@code ...*fallback_address} array. */
    static List<FallbackAddress> fallbacks(Tlv tlv, String name) throws Bolt12Exception {
        byte[] v = tlv.unsafeValue();
        List<FallbackAddress> out = new ArrayList<>();
        int at = 0;
        while (at < v.length) {
            String where = name + "[" + out.size() + "]";
            need(v, at, 3, where);
            int version = v[at] & 0xff;
            int len = ((v[at + 1] & 0xff) << 8) | (v[at + 2] & 0xff);
            at += 3;
            need(v, at, len, where + " address");
            out.add(new FallbackAddress(version, Arrays.copyOfRange(v, at, at + len)));
            at += len;
        }
        return List.copyOf(out);
    }

    private static void need(byte[] v, int at, int count, String what) throws Bolt12Exception {
        if (v.length - at < count) {
            throw new Bolt12Exception(Reason.MALFORMED_BLINDED_PATH, what + " is cut short");
        }
    }
}
