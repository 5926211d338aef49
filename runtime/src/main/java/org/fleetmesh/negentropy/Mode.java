package org.fleetmesh.negentropy;

/** What a range carries after its bound. */
public enum Mode {
    /** The sender does not want to process the range further; no payload. */
    SKIP(0),
    /** A 16-byte fingerprint of the sender's ids in the range. */
    FINGERPRINT(1),
    /** A varint count and then all the sender's ids in the range. */
    ID_LIST(2);

    private final int code;

    Mode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static Mode ofCode(long code) {
        for (Mode mode : values()) {
            if (mode.code == code) {
                return mode;
            }
        }
        throw new NegentropyException("unexpected mode: " + Long.toUnsignedString(code));
    }
}
