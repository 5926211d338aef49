package org.fleetmesh.relay;

/**
 * Checks that bytes arriving in pieces (the frames of one WebSocket text message) are well-formed UTF-8 (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF), without decoding them. RFC 6455 section 8.1: an endpoint
 * that finds a text message is not valid UTF-8 must fail the connection (close 1007), where a decoder would quietly
 * put U+FFFD in its place. A sequence cut between two frames is fine; a message may not end inside one. Pure; one per
 * connection, used on its thread.
 */
public final class Utf8Stream {
    /** Continuation bytes still owed by the current sequence. */
    private int need;
    /** The range the next continuation byte must fall in (narrower after E0, ED, F0, F4). */
    private int lo = 0x80;
    private int hi = 0xBF;
    private boolean broken;

    /** Feeds one byte; false once the bytes so far cannot be the start of well-formed UTF-8. */
    public boolean feed(int b) {
        b &= 0xff;
        if (broken) {
            return false;
        }
        if (need == 0) {
            if (b < 0x80) {
                return true;
            }
            if (b >= 0xC2 && b <= 0xDF) {
                need = 1;
            } else if (b >= 0xE0 && b <= 0xEF) {
                need = 2;
                lo = b == 0xE0 ? 0xA0 : 0x80;
                hi = b == 0xED ? 0x9F : 0xBF;
            } else if (b >= 0xF0 && b <= 0xF4) {
                need = 3;
                lo = b == 0xF0 ? 0x90 : 0x80;
                hi = b == 0xF4 ? 0x8F : 0xBF;
            } else {
                broken = true;
            }
            return !broken;
        }
        if (b < lo || b > hi) {
            broken = true;
            return false;
        }
        lo = 0x80;
        hi = 0xBF;
        need--;
        return true;
    }

    /** Whether the bytes fed so far are well-formed; {@code end}: the message ends here (no sequence left open). */
    public boolean valid(boolean end) {
        return !broken && (!end || need == 0);
    }

    /** Ready for the next message. */
    public void reset() {
        need = 0;
        lo = 0x80;
        hi = 0xBF;
        broken = false;
    }
}
