package org.fleetmesh.settlement.cashu.request;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import org.fleetmesh.settlement.cashu.nut.Base64Url;
import org.fleetmesh.settlement.cashu.nut.Cbor;
import org.fleetmesh.settlement.cashu.token.TokenException;

/**
 * A NUT-18 payment request, {@code "creqA" + base64url(CBOR)} with the short keys {@code i, a, u, s, m, d, t,
 * nut10}. Every field is optional: null (or an empty OptionalLong) when absent. A request with an amount
 * must name its unit.
 */
public record PaymentRequest(String id, OptionalLong amount, String unit, Boolean singleUse, List<String> mints,
        String description, List<Transport> transports, Nut10Option nut10) {
    public static final String PREFIX = "creqA";
    /** Requests are shown as QR codes; anything near this size is not one. */
    public static final int MAX_CHARS = 64 * 1024;
    private static final int MAX_LIST = 256;

    public PaymentRequest {
        amount = amount == null ? OptionalLong.empty() : amount;
        if (amount.isPresent() && amount.getAsLong() <= 0) {
            throw new IllegalArgumentException("requested amount must be positive");
        }
        if (amount.isPresent() && unit == null) {
            throw new IllegalArgumentException("a request with an amount must name its unit");
        }
        mints = mints == null ? null : List.copyOf(mints);
        transports = transports == null ? null : List.copyOf(transports);
    }

    /**
     * Writes the request with the CBOR key order of the NUT-18 vectors (t, i, a, u, m, d, s, nut10) and base64
     * padding as they have it, in the URL-safe alphabet NUT-18 names (one vector uses the standard alphabet).
     */
    public String encode() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (transports != null) {
            List<Object> ts = new ArrayList<>();
            for (Transport t : transports) {
                Map<String, Object> tm = new LinkedHashMap<>();
                tm.put("t", t.type());
                tm.put("a", t.target());
                tm.put("g", t.tags() == null ? Cbor.UNDEFINED : t.tags());
                ts.add(tm);
            }
            m.put("t", ts);
        }
        put(m, "i", id);
        if (amount.isPresent()) {
            m.put("a", amount.getAsLong());
        }
        put(m, "u", unit);
        put(m, "m", mints);
        put(m, "d", description);
        put(m, "s", singleUse);
        if (nut10 != null) {
            Map<String, Object> n = new LinkedHashMap<>();
            n.put("k", nut10.kind());
            n.put("d", nut10.data());
            put(n, "t", nut10.tags());
            m.put("nut10", n);
        }
        return PREFIX + Base64Url.encode(Cbor.encode(m), true);
    }

    private static void put(Map<String, Object> m, String key, Object value) {
        if (value != null) {
            m.put(key, value);
        }
    }

    /** Reads {@code creqA...}; unknown keys are ignored, {@code null} and {@code undefined} mean absent. */
    public static PaymentRequest decode(String creq) throws TokenException {
        if (creq == null || creq.length() > MAX_CHARS) {
            throw new TokenException("invalid payment request: missing or too long");
        }
        String s = creq.strip();
        if (!s.startsWith(PREFIX)) {
            throw new TokenException("invalid payment request: unknown prefix");
        }
        byte[] cbor;
        try {
            cbor = Base64Url.decode(s.substring(PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new TokenException("invalid payment request: bad base64");
        }
        Object root;
        try {
            root = Cbor.decode(cbor);
        } catch (Cbor.MalformedException e) {
            throw new TokenException("invalid payment request: " + e.getMessage());
        }
        try {
            Map<?, ?> m = map(root, "request");
            OptionalLong amount = OptionalLong.empty();
            Object a = absent(m.get("a"));
            if (a != null) {
                if (a instanceof BigInteger) {
                    throw new TokenException("invalid payment request: amount does not fit 64 bits");
                }
                if (!(a instanceof Long l)) {
                    throw new TokenException("invalid payment request: a must be an integer");
                }
                amount = OptionalLong.of(l);
            }
            Object single = absent(m.get("s"));
            if (single != null && !(single instanceof Boolean)) {
                throw new TokenException("invalid payment request: s must be a boolean");
            }
            List<Transport> transports = null;
            Object t = absent(m.get("t"));
            if (t != null) {
                transports = new ArrayList<>();
                for (Object o : list(t, "t")) {
                    Map<?, ?> tm = map(o, "transport");
                    transports.add(new Transport(text(tm, "t", true), text(tm, "a", true), tags(tm.get("g"), "g")));
                }
            }
            Nut10Option nut10 = null;
            Object n = absent(m.get("nut10"));
            if (n != null) {
                Map<?, ?> nm = map(n, "nut10");
                nut10 = new Nut10Option(text(nm, "k", true), text(nm, "d", true), tags(nm.get("t"), "nut10 t"));
            }
            List<String> mints = null;
            Object mo = absent(m.get("m"));
            if (mo != null) {
                mints = new ArrayList<>();
                for (Object x : list(mo, "m")) {
                    if (!(x instanceof String str)) {
                        throw new TokenException("invalid payment request: m must hold mint URLs");
                    }
                    mints.add(str);
                }
            }
            return new PaymentRequest(text(m, "i", false), amount, text(m, "u", false), (Boolean) single, mints,
                    text(m, "d", false), transports, nut10);
        } catch (IllegalArgumentException e) {
            throw new TokenException("invalid payment request: " + e.getMessage());
        }
    }

    static List<List<String>> copyTags(List<List<String>> tags) {
        List<List<String>> out = new ArrayList<>(tags.size());
        for (List<String> t : tags) {
            // List.of(...).contains(null) throws: look for a null element by hand
            if (t == null || t.isEmpty() || t.stream().anyMatch(java.util.Objects::isNull)) {
                throw new IllegalArgumentException("a tag must be a non-empty array of strings");
            }
            out.add(List.copyOf(t));
        }
        return List.copyOf(out);
    }

    private static Object absent(Object o) {
        return o == Cbor.UNDEFINED ? null : o;
    }

    private static List<List<String>> tags(Object o, String what) throws TokenException {
        o = absent(o);
        if (o == null) {
            return null;
        }
        List<List<String>> out = new ArrayList<>();
        for (Object tag : list(o, what)) {
            List<String> values = new ArrayList<>();
            for (Object v : list(tag, what + " tag")) {
                if (!(v instanceof String str)) {
                    throw new TokenException("invalid payment request: " + what + " tags must hold strings");
                }
                values.add(str);
            }
            out.add(values);
        }
        return out;
    }

    private static Map<?, ?> map(Object o, String what) throws TokenException {
        if (o instanceof Map<?, ?> m) {
            return m;
        }
        throw new TokenException("invalid payment request: " + what + " must be a map");
    }

    private static List<?> list(Object o, String what) throws TokenException {
        if (o instanceof List<?> l && l.size() <= MAX_LIST) {
            return l;
        }
        throw new TokenException("invalid payment request: " + what + " must be an array of at most " + MAX_LIST);
    }

    private static String text(Map<?, ?> m, String key, boolean required) throws TokenException {
        Object o = absent(m.get(key));
        if (o == null) {
            if (required) {
                throw new TokenException("invalid payment request: " + key + " is missing");
            }
            return null;
        }
        if (o instanceof String s) {
            return s;
        }
        throw new TokenException("invalid payment request: " + key + " must be text");
    }

}
