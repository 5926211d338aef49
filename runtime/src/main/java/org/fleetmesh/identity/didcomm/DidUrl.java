package org.fleetmesh.identity.didcomm;

import java.util.regex.Pattern;

/** DID and DID URL syntax (DID Core §3.1, §3.2) as DIDComm uses it: kids with a fragment, from/to without. */
final class DidUrl {
    // did = "did:" method-name ":" method-specific-id; idchar = ALPHA / DIGIT / "." / "-" / "_" / pct-encoded
    private static final Pattern DID = Pattern
            .compile("did:[a-z0-9]+:(?:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*:)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+");

    private DidUrl() {
    }

    /** The DID a DID URL starts with: everything before its path, query or fragment. */
    static String didOf(String didUrl) {
        int end = didUrl.length();
        for (char c : new char[] { '/', '?', '#' }) {
            int i = didUrl.indexOf(c);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        return didUrl.substring(0, end);
    }

    static boolean isDid(String s) {
        return DID.matcher(s).matches();
    }

    /** A DID, or a DID URL without a fragment, as {@code from} and {@code to} carry them. */
    static boolean isDidOrUrlWithoutFragment(String s) {
        return s.indexOf('#') < 0 && isDid(didOf(s));
    }

    /** A key id: a DID URL whose fragment names a verification method. */
    static boolean isKid(String s) {
        int hash = s.indexOf('#');
        return hash > 0 && hash < s.length() - 1 && isDid(didOf(s));
    }
}
