package org.fleetmesh.settlement.lightning.l402;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * RFC 7235 pieces shared by the challenge and the credentials: the scheme, and a comma-separated
 * list of {@code name=value} auth-params whose values are tokens or quoted strings (with
 * backslash escapes). Names are case-insensitive and returned lower-case.
 */
final class AuthParams {
    private AuthParams() {
    }

    /** Scheme and the rest of one header value, split at the first run of whitespace. */
    record Split(String scheme, String rest) {
    }

    static Split split(String header) {
        String h = header.strip();
        int i = 0;
        while (i < h.length() && !isSpace(h.charAt(i))) {
            i++;
        }
        return new Split(h.substring(0, i), h.substring(i).strip());
    }

    static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }

    /**
     * Whether {@code rest} is an auth-param list rather than a token68: it starts with one of
     * {@code names} (any case) followed by optional whitespace and '='. A base64 V2 macaroon starts
     * with "A" and the 0x02 version byte, so it never reads as one of these names.
     */
    static boolean looksLikeParams(String rest, java.util.Set<String> names) {
        int i = 0;
        while (i < rest.length() && isTokenChar(rest.charAt(i))) {
            i++;
        }
        if (i == 0 || !names.contains(rest.substring(0, i).toLowerCase(Locale.ROOT))) {
            return false;
        }
        while (i < rest.length() && isSpace(rest.charAt(i))) {
            i++;
        }
        return i < rest.length() && rest.charAt(i) == '=';
    }

    /** Parses {@code a="x", b=y}; duplicate names, stray text or an open quote throw IllegalArgumentException. */
    static Map<String, String> parse(String rest) {
        Map<String, String> out = new LinkedHashMap<>();
        int i = 0, n = rest.length();
        while (true) {
            while (i < n && (isSpace(rest.charAt(i)) || rest.charAt(i) == ',')) {
                i++;
            }
            if (i >= n) {
                return out;
            }
            int start = i;
            while (i < n && isTokenChar(rest.charAt(i))) {
                i++;
            }
            if (i == start) {
                throw new IllegalArgumentException("expected a parameter name at position " + start);
            }
            String name = rest.substring(start, i).toLowerCase(Locale.ROOT);
            while (i < n && isSpace(rest.charAt(i))) {
                i++;
            }
            if (i >= n || rest.charAt(i) != '=') {
                throw new IllegalArgumentException("parameter " + name + " has no '='");
            }
            i++;
            while (i < n && isSpace(rest.charAt(i))) {
                i++;
            }
            String value;
            if (i < n && rest.charAt(i) == '"') {
                StringBuilder sb = new StringBuilder();
                i++;
                boolean closed = false;
                while (i < n) {
                    char c = rest.charAt(i++);
                    if (c == '\\' && i < n) {
                        sb.append(rest.charAt(i++));
                    } else if (c == '"') {
                        closed = true;
                        break;
                    } else {
                        sb.append(c);
                    }
                }
                if (!closed) {
                    throw new IllegalArgumentException("unterminated quoted value of " + name);
                }
                value = sb.toString();
            } else {
                int vs = i;
                while (i < n && rest.charAt(i) != ',' && !isSpace(rest.charAt(i))) {
                    i++;
                }
                value = rest.substring(vs, i);
                if (value.isEmpty()) {
                    throw new IllegalArgumentException("parameter " + name + " has an empty value");
                }
            }
            while (i < n && isSpace(rest.charAt(i))) {
                i++;
            }
            if (i < n && rest.charAt(i) != ',') {
                throw new IllegalArgumentException("expected ',' after parameter " + name);
            }
            if (out.put(name, value) != null) {
                throw new IllegalArgumentException("parameter " + name + " appears twice");
            }
        }
    }

    /** RFC 7230 tchar. */
    static boolean isTokenChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    static String quote(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
