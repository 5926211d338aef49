package org.fleetmesh.identity.didcomm;

import java.util.Base64;

/** base64url without padding (RFC 7515 §2), decoded strictly: no padding, no other alphabet, no stray bits. */
final class Base64Url {
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private Base64Url() {
    }

    static String encode(byte[] bytes) {
        return ENCODER.encodeToString(bytes);
    }

    static byte[] decode(String text, String what) throws DidcommException {
        if (text.indexOf('=') >= 0) {
            throw DidcommException.malformed(what + " is base64url without padding, got '='");
        }
        byte[] bytes;
        try {
            bytes = DECODER.decode(text);
        } catch (IllegalArgumentException e) {
            throw DidcommException.malformed(what + " is not base64url: " + e.getMessage());
        }
        // two encodings of one value would let a tampered field pass as the original
        if (!encode(bytes).equals(text)) {
            throw DidcommException.malformed(what + " is not in canonical base64url (non-zero trailing bits)");
        }
        return bytes;
    }
}
