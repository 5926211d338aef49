package org.fleetmesh.nostr;

/** UTF-8 sizes of text as it travels in a WebSocket text frame: what budgets (client limits, grants, send queues) meter. */
public final class Utf8 {
    private Utf8() {
    }

    /** The UTF-8 length of {@code text}, without encoding it; a lone surrogate counts 3 bytes (the
     * replacement character; never less than an encoder writes for it). */
    public static long length(CharSequence text) {
        long n = 0;
        int len = text.length();
        for (int i = 0; i < len; i++) {
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
