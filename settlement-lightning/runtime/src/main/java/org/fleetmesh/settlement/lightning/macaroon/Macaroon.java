package org.fleetmesh.settlement.lightning.macaroon;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * A macaroon (Birgisson et al.), compatible with libmacaroons and go-macaroon (what LND and
 * Aperture use): the signature chain is {@code sig0 = HMAC(HMAC("macaroons-key-generator", rootKey), id)},
 * {@code sig_i = HMAC(sig_(i-1), caveat_i)} for first-party caveats.
 *
 * <p>Serialised in the V2 binary format (libmacaroons {@code MACAROON_V2}): a version byte {@code 0x02},
 * then fields {@code type varint-length bytes} with types EOS 0, LOCATION 1, IDENTIFIER 2, VID 4,
 * SIGNATURE 6; the header (optional location, identifier) ends with EOS, each caveat (optional location,
 * identifier, optional vid) ends with EOS, the caveat list ends with EOS, then the signature. Identifiers
 * are arbitrary bytes and are kept byte for byte (L402 identifiers are binary). The V1 text format is
 * read too (base64 packets {@code "%04x" + "key value\n"}), for interop with older tools.
 *
 * <p>Immutable; {@link #addFirstPartyCaveat} returns a new macaroon.
 */
public final class Macaroon {
    private static final byte[] KEY_GENERATOR = "macaroons-key-generator".getBytes(StandardCharsets.US_ASCII);
    private static final int EOS = 0, LOCATION = 1, IDENTIFIER = 2, VID = 4, SIGNATURE = 6;
    /** Refuse absurd inputs before allocating: LND macaroons are a few hundred bytes. */
    public static final int MAX_SERIALIZED = 64 * 1024;

    private final String location;
    private final byte[] identifier;
    private final List<Caveat> caveats;
    private final byte[] signature;

    private Macaroon(String location, byte[] identifier, List<Caveat> caveats, byte[] signature) {
        this.location = location == null ? "" : location;
        this.identifier = identifier;
        this.caveats = List.copyOf(caveats);
        this.signature = signature;
    }

    /** A new macaroon with no caveats, signed with {@code rootKey}. */
    public static Macaroon mint(byte[] rootKey, String location, byte[] identifier) {
        if (identifier == null || identifier.length == 0) {
            throw new MacaroonException("identifier is empty");
        }
        byte[] sig = hmac(derivedKey(rootKey), identifier);
        return new Macaroon(location, identifier.clone(), List.of(), sig);
    }

    public Macaroon addFirstPartyCaveat(String predicate) {
        return addFirstPartyCaveat(predicate.getBytes(StandardCharsets.UTF_8));
    }

    public Macaroon addFirstPartyCaveat(byte[] predicate) {
        Caveat c = Caveat.firstParty(predicate);
        List<Caveat> next = new ArrayList<>(caveats);
        next.add(c);
        return new Macaroon(location, identifier, next, hmac(signature, c.identifierRef()));
    }

    public String location() {
        return location;
    }

    public byte[] identifier() {
        return identifier.clone();
    }

    public List<Caveat> caveats() {
        return caveats;
    }

    public byte[] signature() {
        return signature.clone();
    }

    public String signatureHex() {
        return HexFormat.of().formatHex(signature);
    }

    /**
     * Whether the signature chain was made with {@code rootKey} (constant-time comparison). Caveat
     * predicates are not judged here: the caller checks each one (see {@link #caveats()}). Macaroons
     * with third-party caveats never verify here (discharge macaroons are not supported).
     */
    public boolean verifySignature(byte[] rootKey) {
        byte[] sig = hmac(derivedKey(rootKey), identifier);
        for (Caveat c : caveats) {
            if (!c.isFirstParty()) {
                return false;
            }
            sig = hmac(sig, c.identifierRef());
        }
        return MessageDigest.isEqual(sig, signature);
    }

    // ------------------------------------------------------------------ V2 binary

    public byte[] serialize() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + identifier.length + 32 * caveats.size());
        out.write(2);
        if (!location.isEmpty()) {
            field(out, LOCATION, location.getBytes(StandardCharsets.UTF_8));
        }
        field(out, IDENTIFIER, identifier);
        out.write(EOS);
        for (Caveat c : caveats) {
            if (c.location() != null && !c.location().isEmpty()) {
                field(out, LOCATION, c.location().getBytes(StandardCharsets.UTF_8));
            }
            field(out, IDENTIFIER, c.identifierRef());
            if (!c.isFirstParty()) {
                field(out, VID, c.verificationId());
            }
            out.write(EOS);
        }
        out.write(EOS);
        field(out, SIGNATURE, signature);
        return out.toByteArray();
    }

    public String toHex() {
        return HexFormat.of().formatHex(serialize());
    }

    /** Standard base64 with padding, as L402 headers carry it. */
    public String toBase64() {
        return Base64.getEncoder().encodeToString(serialize());
    }

    /** Reads V2 binary (first byte 0x02) or V1 (the base64 text, given as its bytes). */
    public static Macaroon deserialize(byte[] data) {
        if (data == null || data.length == 0) {
            throw new MacaroonException("empty macaroon");
        }
        if (data.length > MAX_SERIALIZED) {
            throw new MacaroonException("macaroon longer than " + MAX_SERIALIZED + " bytes");
        }
        if (data[0] == 2) {
            return readV2(data);
        }
        if (data.length >= 4 && isHex(data[0]) && isHex(data[1]) && isHex(data[2]) && isHex(data[3])) {
            return readV1(data);
        }
        byte[] raw;
        try {
            String text = new String(data, StandardCharsets.US_ASCII).trim().replace('-', '+').replace('_', '/');
            raw = Base64.getDecoder().decode(pad(text));
        } catch (IllegalArgumentException e) {
            throw new MacaroonException("not a V2 macaroon and not base64 V1: " + e.getMessage());
        }
        return readV1(raw);
    }

    private static boolean isHex(byte b) {
        return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f');
    }

    public static Macaroon fromHex(String hex) {
        try {
            return deserialize(HexFormat.of().parseHex(hex.trim()));
        } catch (IllegalArgumentException e) {
            throw new MacaroonException("macaroon is not hex: " + e.getMessage());
        }
    }

    /** Accepts standard or URL-safe base64, padded or not, of a V2 (or V1) macaroon. */
    public static Macaroon fromBase64(String b64) {
        byte[] raw;
        try {
            String s = b64.trim().replace('-', '+').replace('_', '/');
            raw = Base64.getDecoder().decode(pad(s));
        } catch (IllegalArgumentException e) {
            throw new MacaroonException("macaroon is not base64: " + e.getMessage());
        }
        return deserialize(raw);
    }

    private static String pad(String s) {
        int rem = s.length() % 4;
        return rem == 0 ? s : s + "=".repeat(4 - rem);
    }

    private static Macaroon readV2(byte[] data) {
        Reader r = new Reader(data, 1);
        String location = null;
        byte[] id = null;
        int type = r.type();
        if (type == LOCATION) {
            location = r.text();
            type = r.type();
        }
        if (type != IDENTIFIER) {
            throw new MacaroonException("macaroon V2: expected identifier, found field type " + type);
        }
        id = r.bytes();
        if (id.length == 0) {
            throw new MacaroonException("macaroon V2: empty identifier");
        }
        if (r.type() != EOS) {
            throw new MacaroonException("macaroon V2: unexpected field after identifier");
        }
        List<Caveat> caveats = new ArrayList<>();
        while (true) {
            type = r.type();
            if (type == EOS) {
                break;
            }
            String cloc = null;
            if (type == LOCATION) {
                cloc = r.text();
                type = r.type();
            }
            if (type != IDENTIFIER) {
                throw new MacaroonException("macaroon V2: caveat without identifier (field type " + type + ")");
            }
            byte[] cid = r.bytes();
            byte[] vid = null;
            type = r.type();
            if (type == VID) {
                vid = r.bytes();
                type = r.type();
            }
            if (type != EOS) {
                throw new MacaroonException("macaroon V2: caveat not terminated (field type " + type + ")");
            }
            if (vid == null && cloc != null) {
                throw new MacaroonException("macaroon V2: first-party caveat with a location");
            }
            caveats.add(Caveat.of(cid, vid, cloc));
        }
        if (r.type() != SIGNATURE) {
            throw new MacaroonException("macaroon V2: missing signature");
        }
        byte[] sig = r.bytes();
        if (sig.length != 32) {
            throw new MacaroonException("macaroon V2: signature is " + sig.length + " bytes, want 32");
        }
        if (r.pos != data.length) {
            throw new MacaroonException("macaroon V2: " + (data.length - r.pos) + " trailing bytes");
        }
        return new Macaroon(location, id, caveats, sig);
    }

    private static Macaroon readV1(byte[] raw) {
        String location = null;
        byte[] id = null, sig = null;
        List<Caveat> caveats = new ArrayList<>();
        byte[] pendingCid = null, pendingVid = null;
        String pendingCl = null;
        int pos = 0;
        while (pos < raw.length) {
            if (pos + 4 > raw.length) {
                throw new MacaroonException("macaroon V1: truncated packet header");
            }
            int len;
            try {
                len = Integer.parseInt(new String(raw, pos, 4, StandardCharsets.US_ASCII), 16);
            } catch (NumberFormatException e) {
                throw new MacaroonException("macaroon V1: bad packet length");
            }
            if (len < 6 || pos + len > raw.length || raw[pos + len - 1] != '\n') {
                throw new MacaroonException("macaroon V1: bad packet");
            }
            int sp = -1;
            for (int i = pos + 4; i < pos + len - 1; i++) {
                if (raw[i] == ' ') {
                    sp = i;
                    break;
                }
            }
            if (sp < 0) {
                throw new MacaroonException("macaroon V1: packet without a key");
            }
            String key = new String(raw, pos + 4, sp - pos - 4, StandardCharsets.US_ASCII);
            byte[] value = java.util.Arrays.copyOfRange(raw, sp + 1, pos + len - 1);
            switch (key) {
                case "location" -> location = new String(value, StandardCharsets.UTF_8);
                case "identifier" -> id = value;
                case "cid" -> {
                    if (pendingCid != null) {
                        caveats.add(Caveat.of(pendingCid, pendingVid, pendingCl));
                    }
                    pendingCid = value;
                    pendingVid = null;
                    pendingCl = null;
                }
                case "vid" -> pendingVid = value;
                case "cl" -> pendingCl = new String(value, StandardCharsets.UTF_8);
                case "signature" -> sig = value;
                default -> throw new MacaroonException("macaroon V1: unknown packet " + key);
            }
            pos += len;
        }
        if (pendingCid != null) {
            caveats.add(Caveat.of(pendingCid, pendingVid, pendingCl));
        }
        if (id == null || sig == null || sig.length != 32) {
            throw new MacaroonException("macaroon V1: identifier or signature missing");
        }
        return new Macaroon(location, id, caveats, sig);
    }

    private static final class Reader {
        final byte[] data;
        int pos;

        Reader(byte[] data, int pos) {
            this.data = data;
            this.pos = pos;
        }

        int type() {
            if (pos >= data.length) {
                throw new MacaroonException("macaroon V2: truncated");
            }
            return data[pos++] & 0xff;
        }

        byte[] bytes() {
            long len = 0;
            int shift = 0;
            while (true) {
                if (pos >= data.length) {
                    throw new MacaroonException("macaroon V2: truncated length");
                }
                int b = data[pos++] & 0xff;
                len |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    break;
                }
                shift += 7;
                if (shift > 28) {
                    throw new MacaroonException("macaroon V2: length varint too long");
                }
            }
            if (len > data.length - pos) {
                throw new MacaroonException("macaroon V2: field length " + len + " past the end");
            }
            byte[] out = java.util.Arrays.copyOfRange(data, pos, pos + (int) len);
            pos += (int) len;
            return out;
        }

        String text() {
            return new String(bytes(), StandardCharsets.UTF_8);
        }
    }

    private static void field(ByteArrayOutputStream out, int type, byte[] value) {
        out.write(type);
        long len = value.length;
        while (len >= 0x80) {
            out.write((int) (len & 0x7f) | 0x80);
            len >>>= 7;
        }
        out.write((int) len);
        out.write(value, 0, value.length);
    }

    static byte[] derivedKey(byte[] rootKey) {
        return hmac(KEY_GENERATOR, rootKey);
    }

    static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "Macaroon[location=" + location + ", id=" + identifier.length + " bytes, caveats=" + caveats + "]";
    }
}
