package org.fleetmesh.identity.didcomm;

/** DID and DID URL syntax (DID Core §3.1, §3.2) as DIDComm uses it: kids with a fragment, from/to without. */
final class DidUrl {

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

    /**
     * did = "did:" method-name ":" method-specific-id; method-specific-id = *( *idchar ":" ) 1*idchar;
     * idchar = ALPHA / DIGIT / "." / "-" / "_" / pct-encoded. Checked by hand, in one pass: a
     * backtracking regex overflows the stack on a did:peer:4 long form (thousands of characters).
     */
    static boolean isDid(String s) {
        if (!s.startsWith("did:")) {
            return false;
        }
        int i = 4;
        int methodStart = i;
        while (i < s.length() && ((s.charAt(i) >= 'a' && s.charAt(i) <= 'z') || (s.charAt(i) >= '0' && s.charAt(i) <= '9'))) {
            i++;
        }
        if (i == methodStart || i >= s.length() || s.charAt(i) != ':') {
            return false;
        }
        i++;
        int segmentLength = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == ':') {
                segmentLength = 0;
                i++;
            } else if (c == '%') {
                if (i + 2 >= s.length() || !isHex(s.charAt(i + 1)) || !isHex(s.charAt(i + 2))) {
                    return false;
                }
                segmentLength++;
                i += 3;
            } else if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-'
                    || c == '_') {
                segmentLength++;
                i++;
            } else {
                return false;
            }
        }
        return segmentLength > 0;
    }

    private static boolean isHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
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
