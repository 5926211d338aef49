package org.fleetmesh.nostr;

/**
 * Text someone else chose (a peer's reason, a field name, a parser's complaint about a message), made fit to quote on
 * one line: in an answer, or in this node's log. Nobody can start a line of their own through it, and it is clipped,
 * so one message cannot make an answer or a log line as long as itself. Pure.
 */
public final class Snippet {
    /** Characters of someone else's text kept in an answer by {@link #of(String)}. */
    public static final int ANSWER = 80;
    /** Characters of someone else's text kept in one of this node's log lines. */
    public static final int LOG = 200;

    private Snippet() {
    }

    /** {@link #of(String, int)} with at most {@link #ANSWER} characters. */
    public static String of(String s) {
        return of(s, ANSWER);
    }

    /**
     * {@code s} for an answer: each run of whitespace (line breaks included) as one space, other control characters
     * as {@code \}{@code uXXXX}, at most {@code max} characters, then {@code ...} if there was more. {@code ""} for null.
     */
    public static String of(String s, int max) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(Math.min(s.length(), max) + 3);
        int i = 0;
        for (; i < s.length() && b.length() < max; i++) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c) || Character.isSpaceChar(c) || isLineBreak(c)) {
                if (b.length() == 0 || b.charAt(b.length() - 1) != ' ') {
                    b.append(' ');
                }
                while (i + 1 < s.length() && isBlank(s.charAt(i + 1))) {
                    i++;
                }
            } else if (isControl(c)) {
                if (b.length() + 6 > max) {
                    break; // never half an escape
                }
                b.append(String.format("\\u%04x", (int) c));
            } else if (Character.isHighSurrogate(c) && b.length() + 1 >= max) {
                break; // never half a character
            } else {
                b.append(c);
            }
        }
        return i < s.length() ? b.append("...").toString() : b.toString();
    }

    /**
     * {@code s} for a log line, every character as it was except that control and line-separating characters are
     * written as escapes ({@code \n}, {@code \r}, {@code \t}, {@code \}{@code uXXXX}); at most {@link #LOG}
     * characters, then how many were left out.
     */
    public static String forLog(String s) {
        if (s == null) {
            return "";
        }
        int n = Math.min(s.length(), LOG);
        if (n < s.length() && Character.isHighSurrogate(s.charAt(n - 1))) {
            n--;
        }
        StringBuilder b = new StringBuilder(n + 16);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (isControl(c) || isLineBreak(c)) {
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

    private static boolean isBlank(char c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c) || isLineBreak(c);
    }

    private static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7f && c < 0xa0);
    }

    private static boolean isLineBreak(char c) {
        return c == '\u0085' || c == '\u2028' || c == '\u2029';
    }
}
