package org.fleetmesh.nostr;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small RFC 8259 parser for tests: it refuses what a strict JSON parser refuses (raw control
 * characters inside strings, unknown escapes, trailing data), so a string it reads back is valid
 * JSON. Objects become {@link LinkedHashMap}, arrays {@link List}, numbers {@link Long} or
 * {@link Double}.
 */
final class StrictJson {
    private final String s;
    private int i;

    private StrictJson(String s) {
        this.s = s;
    }

    static Object parse(String text) {
        StrictJson p = new StrictJson(text);
        p.ws();
        Object v = p.value();
        p.ws();
        if (p.i != text.length()) {
            throw p.error("trailing data");
        }
        return v;
    }

    private IllegalArgumentException error(String why) {
        return new IllegalArgumentException(why + " at offset " + i);
    }

    private void ws() {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\n' || s.charAt(i) == '\r')) {
            i++;
        }
    }

    private char peek() {
        if (i >= s.length()) {
            throw error("unexpected end");
        }
        return s.charAt(i);
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        i++;
    }

    private Object value() {
        char c = peek();
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                literal("true");
                return Boolean.TRUE;
            case 'f':
                literal("false");
                return Boolean.FALSE;
            case 'n':
                literal("null");
                return null;
            default:
                return number();
        }
    }

    private void literal(String word) {
        if (!s.startsWith(word, i)) {
            throw error("bad literal");
        }
        i += word.length();
    }

    private Map<String, Object> object() {
        expect('{');
        Map<String, Object> m = new LinkedHashMap<>();
        ws();
        if (peek() == '}') {
            i++;
            return m;
        }
        while (true) {
            ws();
            String k = string();
            ws();
            expect(':');
            ws();
            if (m.containsKey(k)) {
                throw error("duplicate key " + k);
            }
            m.put(k, value());
            ws();
            if (peek() == ',') {
                i++;
                continue;
            }
            expect('}');
            return m;
        }
    }

    private List<Object> array() {
        expect('[');
        List<Object> l = new ArrayList<>();
        ws();
        if (peek() == ']') {
            i++;
            return l;
        }
        while (true) {
            ws();
            l.add(value());
            ws();
            if (peek() == ',') {
                i++;
                continue;
            }
            expect(']');
            return l;
        }
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = peek();
            i++;
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                throw error("raw control character U+" + String.format("%04X", (int) c) + " in a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = peek();
            i++;
            switch (e) {
                case '"' -> sb.append('"');
                case '\\' -> sb.append('\\');
                case '/' -> sb.append('/');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (i + 4 > s.length()) {
                        throw error("short \\u escape");
                    }
                    sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> throw error("unknown escape \\" + e);
            }
        }
    }

    private Object number() {
        int start = i;
        if (peek() == '-') {
            i++;
        }
        boolean fractional = false;
        while (i < s.length() && "0123456789.eE+-".indexOf(s.charAt(i)) >= 0) {
            if ("eE.".indexOf(s.charAt(i)) >= 0) {
                fractional = true;
            }
            i++;
        }
        String n = s.substring(start, i);
        if (n.isEmpty() || n.equals("-")) {
            throw error("not a value");
        }
        return fractional ? (Object) Double.valueOf(n) : (Object) Long.valueOf(n);
    }
}
