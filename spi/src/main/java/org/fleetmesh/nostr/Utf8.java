package org.fleetmesh.nostr;

/** UTF-8 sizes of text as it travels in a WebSocket text frame: what budgets (client limits, grants, send queues) meter. */
public final class Utf8 {
    private Utf8() {
    }

    /** The UTF-8 length of {@code text}, without encoding it; a lone surrogate counts 3 bytes (the
     * replacement character; never less than an encoder writes for it). */
    public static long length(CharSequence text) {
        return count(text, Long.MAX_VALUE);
    }

    /**
     * Whether the UTF-8 length of {@code text} is above {@code max}: decided from the length in chars alone when it can
     * be (a char is 1 to 3 bytes), else counted, stopping as soon as the count passes {@code max}.
     */
    public static boolean exceeds(CharSequence text, long max) {
        int units = text.length();
        if (units > max) {
            return true;
        }
        if ((long) units * 3 <= max) {
            return false;
        }
        return count(text, max) > max;
    }

    /** The UTF-8 length of {@code text}, or a figure above {@code stopAbove} once it passes it. */
    private static long count(CharSequence text, long stopAbove) {
        long n = 0;
        int len = text.length();
        for (int i = 0; i < len && n <= stopAbove; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(text.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
