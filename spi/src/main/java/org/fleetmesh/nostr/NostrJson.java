package org.fleetmesh.nostr;

import java.util.List;

/** Serialization of events: the NIP-01 canonical form (for the id) and the compact wire form. */
public final class NostrJson {
    private NostrJson() {
    }

    /**
     * {@code [0,<pubkey>,<created_at>,<kind>,<tags>,<content>]} with NIP-01's escaping: only
     * \n, \", \\, \r, \t, \b and \f are escaped; every other character is written verbatim.
     */
    public static String canonical(PubKey pubkey, long createdAt, int kind, List<List<String>> tags, String content) {
        return canonical(pubkey, createdAt, kind, tags, content, true);
    }

    /**
     * The same array as {@link #canonical} but with every other control character written as
     * the backslash-u-00xx form: what {@code JSON.stringify} (nostr-tools) and serde_json (rust-nostr) produce.
     * It differs from the NIP-01 form only when content or tags hold such characters.
     */
    public static String canonicalEscapingControls(PubKey pubkey, long createdAt, int kind, List<List<String>> tags,
            String content) {
        return canonical(pubkey, createdAt, kind, tags, content, false);
    }

    /** Whether any string of the event holds a control character NIP-01 leaves unescaped. */
    public static boolean hasOtherControlCharacters(List<List<String>> tags, String content) {
        if (hasOtherControl(content)) {
            return true;
        }
        for (List<String> t : tags) {
            for (String v : t) {
                if (hasOtherControl(v)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean hasOtherControl(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\b' && c != '\f') {
                return true;
            }
        }
        return false;
    }

    private static String canonical(PubKey pubkey, long createdAt, int kind, List<List<String>> tags, String content,
            boolean nip01) {
        StringBuilder sb = new StringBuilder(128 + content.length());
        sb.append("[0,\"").append(pubkey.hex()).append("\",").append(createdAt).append(',').append(kind).append(',');
        appendTags(sb, tags, nip01);
        sb.append(',');
        appendString(sb, content, nip01);
        sb.append(']');
        return sb.toString();
    }

    /** The NIP-01 canonical form of an event's fields (what its id must hash). */
    public static String canonical(Event e) {
        String[] body = e.escapedBody();
        if (body == null) {
            return canonical(e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content(), true);
        }
        StringBuilder sb = new StringBuilder(100 + body[0].length() + body[1].length());
        sb.append("[0,\"").append(e.pubkey().hex()).append("\",").append(e.createdAt()).append(',').append(e.kind())
                .append(',').append(body[0]).append(',').append(body[1]).append(']');
        return sb.toString();
    }

    /** The event as a JSON object, every string escaped so that any JSON parser reads it back. */
    public static String eventJson(Event e) {
        String[] body = e.escapedBody();
        if (body != null) {
            StringBuilder sb = new StringBuilder(260 + body[0].length() + body[1].length());
            return sb.append("{\"id\":\"").append(e.id().hex())
                    .append("\",\"pubkey\":\"").append(e.pubkey().hex())
                    .append("\",\"created_at\":").append(e.createdAt())
                    .append(",\"kind\":").append(e.kind())
                    .append(",\"tags\":").append(body[0])
                    .append(",\"content\":").append(body[1])
                    .append(",\"sig\":\"").append(e.sig().hex()).append("\"}").toString();
        }
        StringBuilder sb = new StringBuilder(256 + e.content().length());
        sb.append("{\"id\":\"").append(e.id().hex())
                .append("\",\"pubkey\":\"").append(e.pubkey().hex())
                .append("\",\"created_at\":").append(e.createdAt())
                .append(",\"kind\":").append(e.kind())
                .append(",\"tags\":");
        appendTags(sb, e.tags(), false);
        sb.append(",\"content\":");
        appendString(sb, e.content(), false);
        sb.append(",\"sig\":\"").append(e.sig().hex()).append("\"}");
        return sb.toString();
    }

    public static void appendTags(StringBuilder sb, List<List<String>> tags, boolean canonical) {
        sb.append('[');
        for (int i = 0; i < tags.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            List<String> tag = tags.get(i);
            sb.append('[');
            for (int j = 0; j < tag.size(); j++) {
                if (j > 0) {
                    sb.append(',');
                }
                appendString(sb, tag.get(j), canonical);
            }
            sb.append(']');
        }
        sb.append(']');
    }

    /** Appends a quoted JSON string. */
    public static void appendString(StringBuilder sb, String s, boolean canonical) {
        sb.append('"');
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 && !canonical) {
                        sb.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xf, 16));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    /** A JSON string literal for any text (reasons, subscription ids), escaped for any parser. */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        appendString(sb, s, false);
        return sb.toString();
    }
}
