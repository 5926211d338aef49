package org.fleetmesh.settlement.cashu.token;

import java.math.BigInteger;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.cashu.nut.Base64Url;
import org.fleetmesh.settlement.cashu.nut.Cbor;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.nut.ProofDleq;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;

/**
 * Serialized tokens (NUT-00): V3 {@code cashuA} + base64url(JSON) and V4 {@code cashuB} + base64url(CBOR), with
 * or without the {@code cashu:} URI prefix, and the V4 binary form {@code craw} + {@code B} + CBOR.
 *
 * <p>A {@link Token} holds proofs of one mint, so a V3 token whose proofs come from several mints is refused
 * ("tokens from several mints are not supported"); V3 entries that name the same mint are merged. Input is
 * bounded: at most {@link #MAX_TOKEN_CHARS} characters and {@link #MAX_PROOFS} proofs. Unknown fields are
 * ignored, as NUT-00 asks of V4 receivers. We write V3 and V4 without base64 padding.
 */
public final class Tokens {
    public static final int MAX_TOKEN_CHARS = 1024 * 1024;
    public static final int MAX_PROOFS = 10_000;
    private static final byte[] RAW_V4 = "crawB".getBytes(StandardCharsets.US_ASCII);

    private Tokens() {
    }

    /** Reads a V3 or V4 token; the message of the exception says why it is not one. */
    public static Token decode(String token) throws TokenException {
        if (token == null) {
            throw new TokenException("invalid token: empty");
        }
        if (token.length() > MAX_TOKEN_CHARS) {
            throw new TokenException("invalid token: longer than " + MAX_TOKEN_CHARS + " characters");
        }
        String t = token.strip();
        if (t.regionMatches(true, 0, "cashu:", 0, 6)) {
            t = t.substring(6);
        }
        if (t.startsWith("cashuA")) {
            return decodeV3(base64(t.substring(6)));
        }
        if (t.startsWith("cashuB")) {
            return decodeV4(base64(t.substring(6)));
        }
        throw new TokenException("invalid token: unknown prefix");
    }

    /** Reads the binary V4 form {@code utf8("craw") || utf8("B") || cbor(token)}. */
    public static Token decodeBinary(byte[] raw) throws TokenException {
        if (raw.length > MAX_TOKEN_CHARS) {
            throw new TokenException("invalid token: longer than " + MAX_TOKEN_CHARS + " bytes");
        }
        if (raw.length < RAW_V4.length || !Arrays.equals(raw, 0, RAW_V4.length, RAW_V4, 0, RAW_V4.length)) {
            throw new TokenException("invalid token: unknown prefix");
        }
        return decodeV4(Arrays.copyOfRange(raw, RAW_V4.length, raw.length));
    }

    public static String encodeV3(Token t) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("mint", t.mint());
        entry.put("proofs", t.proofs());
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("token", List.of(entry));
        json.put("unit", t.unit());
        json.put("memo", t.memo());
        try {
            return "cashuA" + Base64Url.encode(Nut.json().writeValueAsBytes(json), false);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("writing a token cannot fail", e);
        }
    }

    /** V4 needs a unit; proofs are grouped by keyset id in order of first appearance. */
    public static String encodeV4(Token t) {
        return "cashuB" + Base64Url.encode(cborV4(t), false);
    }

    public static byte[] encodeBinary(Token t) {
        byte[] cbor = cborV4(t);
        byte[] out = Arrays.copyOf(RAW_V4, RAW_V4.length + cbor.length);
        System.arraycopy(cbor, 0, out, RAW_V4.length, cbor.length);
        return out;
    }

    private static byte[] cborV4(Token t) {
        if (t.unit() == null) {
            throw new IllegalArgumentException("a V4 token needs a unit");
        }
        Map<String, List<Object>> byId = new LinkedHashMap<>();
        for (Proof p : t.proofs()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("a", p.amount());
            m.put("s", p.secret());
            m.put("c", Hex.decodeLower(p.c()));
            if (p.dleq() != null) {
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("e", Hex.decodeLower(p.dleq().e()));
                d.put("s", Hex.decodeLower(p.dleq().s()));
                if (p.dleq().r() != null) {
                    d.put("r", Hex.decodeLower(p.dleq().r()));
                }
                m.put("d", d);
            }
            if (p.witness() != null) {
                m.put("w", p.witness());
            }
            byId.computeIfAbsent(p.id(), k -> new ArrayList<>()).add(m);
        }
        List<Object> groups = new ArrayList<>();
        byId.forEach((id, proofs) -> {
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("i", Hex.decodeLower(id));
            g.put("p", proofs);
            groups.add(g);
        });
        Map<String, Object> top = new LinkedHashMap<>();
        top.put("t", groups);
        if (t.memo() != null) {
            top.put("d", t.memo());
        }
        top.put("m", t.mint());
        top.put("u", t.unit());
        return Cbor.encode(top);
    }

    private static byte[] base64(String s) throws TokenException {
        if (s.isEmpty()) {
            throw new TokenException("invalid token: truncated");
        }
        try {
            return Base64Url.decode(s);
        } catch (IllegalArgumentException e) {
            throw new TokenException("invalid token: bad base64");
        }
    }

    record V3(@JsonProperty(value = "token", required = true) List<V3Entry> token,
            @JsonProperty("unit") String unit,
            @JsonProperty("memo") String memo) {
    }

    record V3Entry(@JsonProperty(value = "mint", required = true) String mint,
            @JsonProperty(value = "proofs", required = true) List<Proof> proofs) {
    }

    private static Token decodeV3(byte[] json) throws TokenException {
        V3 v3;
        try {
            v3 = Nut.json().readValue(json, V3.class);
        } catch (java.io.IOException e) {
            throw new TokenException("invalid token: " + Nut.reason(e));
        }
        if (v3 == null || v3.token() == null || v3.token().isEmpty()) {
            throw new TokenException("invalid token: no proofs");
        }
        String mint = null;
        List<Proof> proofs = new ArrayList<>();
        for (V3Entry e : v3.token()) {
            if (e == null || e.mint() == null || e.proofs() == null) {
                throw new TokenException("invalid token: entry without mint or proofs");
            }
            String m = Token.stripTrailingSlashes(e.mint());
            if (mint != null && !mint.equals(m)) {
                throw new TokenException("invalid token: tokens from several mints are not supported");
            }
            mint = m;
            for (Proof p : e.proofs()) {
                if (p == null) {
                    throw new TokenException("invalid token: null proof");
                }
                proofs.add(p);
            }
            if (proofs.size() > MAX_PROOFS) {
                throw new TokenException("invalid token: more than " + MAX_PROOFS + " proofs");
            }
        }
        return token(mint, v3.unit(), v3.memo(), proofs);
    }

    private static Token decodeV4(byte[] cbor) throws TokenException {
        Object root;
        try {
            root = Cbor.decode(cbor);
        } catch (Cbor.MalformedException e) {
            throw new TokenException("invalid token: " + e.getMessage());
        }
        Map<?, ?> top = map(root, "token");
        String mint = text(top, "m", true);
        String unit = text(top, "u", true);
        String memo = text(top, "d", false);
        List<?> groups = list(top.get("t"), "t");
        List<Proof> proofs = new ArrayList<>();
        for (Object g : groups) {
            Map<?, ?> group = map(g, "t entry");
            byte[] id = bytes(group, "i", true);
            if (id.length != 8 && id.length != 33) {
                throw new TokenException("invalid token: keyset id must be 8 or 33 bytes");
            }
            for (Object po : list(group.get("p"), "p")) {
                Map<?, ?> p = map(po, "proof");
                if (proofs.size() >= MAX_PROOFS) {
                    throw new TokenException("invalid token: more than " + MAX_PROOFS + " proofs");
                }
                ProofDleq dleq = null;
                Object d = p.get("d");
                if (d != null && d != Cbor.UNDEFINED) {
                    Map<?, ?> dm = map(d, "dleq");
                    byte[] r = bytes(dm, "r", false);
                    try {
                        dleq = new ProofDleq(Hex.encode(bytes(dm, "e", true)), Hex.encode(bytes(dm, "s", true)),
                                r == null ? null : Hex.encode(r));
                    } catch (IllegalArgumentException e) {
                        throw new TokenException("invalid token: " + e.getMessage());
                    }
                }
                try {
                    proofs.add(new Proof(amount(p.get("a")), Hex.encode(id), text(p, "s", true),
                            Hex.encode(bytes(p, "c", true)), dleq, text(p, "w", false)));
                } catch (IllegalArgumentException e) {
                    throw new TokenException("invalid token: " + e.getMessage());
                }
            }
        }
        return token(mint, unit, memo, proofs);
    }

    private static Token token(String mint, String unit, String memo, List<Proof> proofs) throws TokenException {
        if (proofs.isEmpty()) {
            throw new TokenException("invalid token: no proofs");
        }
        checkMint(mint);
        try {
            return new Token(mint, unit, memo, proofs);
        } catch (IllegalArgumentException e) {
            throw new TokenException("invalid token: " + e.getMessage());
        }
    }

    /** The wallet will connect to this URL, so it must be an absolute http(s) URL and nothing else. */
    private static void checkMint(String mint) throws TokenException {
        try {
            URI u = new URI(mint);
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null) {
                throw new TokenException("invalid token: mint URL must be an http(s) URL");
            }
        } catch (URISyntaxException e) {
            throw new TokenException("invalid token: mint URL must be an http(s) URL");
        }
    }

    private static long amount(Object a) throws TokenException {
        if (a instanceof Long l) {
            return l;
        }
        if (a instanceof BigInteger) {
            throw new TokenException("invalid token: proof amount does not fit 64 bits");
        }
        throw new TokenException(a == null ? "invalid token: proof amount is missing"
                : "invalid token: proof amount must be an integer");
    }

    private static Map<?, ?> map(Object o, String what) throws TokenException {
        if (o instanceof Map<?, ?> m) {
            return m;
        }
        throw new TokenException("invalid token: " + what + " must be a map");
    }

    private static List<?> list(Object o, String what) throws TokenException {
        if (o instanceof List<?> l) {
            return l;
        }
        throw new TokenException("invalid token: " + what + (o == null ? " is missing" : " must be an array"));
    }

    private static String text(Map<?, ?> m, String key, boolean required) throws TokenException {
        Object o = m.get(key);
        if (o == null || o == Cbor.UNDEFINED) {
            if (required) {
                throw new TokenException("invalid token: " + key + " is missing");
            }
            return null;
        }
        if (o instanceof String s) {
            return s;
        }
        throw new TokenException("invalid token: " + key + " must be text");
    }

    private static byte[] bytes(Map<?, ?> m, String key, boolean required) throws TokenException {
        Object o = m.get(key);
        if (o == null || o == Cbor.UNDEFINED) {
            if (required) {
                throw new TokenException("invalid token: " + key + " is missing");
            }
            return null;
        }
        if (o instanceof byte[] b) {
            return b;
        }
        throw new TokenException("invalid token: " + key + " must be bytes");
    }
}
