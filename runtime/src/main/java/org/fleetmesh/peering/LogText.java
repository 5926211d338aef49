package org.fleetmesh.peering;

/**
 * Text a peer chose (a refusal's reason, a grant id it names), made fit for one line of this node's log: control and
 * line-separating characters are written as escapes, so a peer cannot forge log lines, and the text is clipped, so a
 * peer cannot make one line as long as its message. Pure.
 */
public final class LogText {
    /** Characters of a peer's text kept in a log line. */
    public static final int MAX = 200;

    private LogText() {
    }

    /** {@code s} on one line, at most {@link #MAX} characters of it, then how many were left out. */
    public static String of(String s) {
        if (s == null) {
            return "";
        }
        int n = Math.min(s.length(), MAX);
        StringBuilder b = new StringBuilder(n + 16);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '\u0085' || c == '\u2028' || c == '\u2029') {
                b.append(switch (c) {
                    case '\n' -> "\\n";
                    case '\r' -> "\\r";
                    case '\t' -> "\\t";
                    default -> String.format("\\u%04x", (int) c);
                });
            } else {
                b.append(c);
            }
        }
        if (s.length() > n) {
            b.append("... (").append(s.length() - n).append(" more characters)");
        }
        return b.toString();
    }
}
