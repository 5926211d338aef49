package org.fleetmesh.settlement.cashu.nut;

import java.util.Base64;

/**
 * The NUTs' {@code base64_urlsafe}: RFC 4648 section 5 alphabet, padding optional on input. Standard-alphabet
 * characters ({@code +}, {@code /}) are accepted too, since some wallets emit them.
 */
public final class Base64Url {
    private Base64Url() {
    }

    /** Decodes with or without trailing padding; IllegalArgumentException on anything else. */
    public static byte[] decode(String s) {
        String t = s.replace('+', '-').replace('/', '_');
        int end = t.length();
        while (end > 0 && t.charAt(end - 1) == '=') {
            end--;
        }
        if (t.length() - end > 2 || end % 4 == 1) {
            throw new IllegalArgumentException("bad base64");
        }
        try {
            return Base64.getUrlDecoder().decode(t.substring(0, end));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad base64");
        }
    }

    public static String encode(byte[] b, boolean padding) {
        Base64.Encoder enc = Base64.getUrlEncoder();
        return (padding ? enc : enc.withoutPadding()).encodeToString(b);
    }
}
