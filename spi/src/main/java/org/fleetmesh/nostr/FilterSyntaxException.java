package org.fleetmesh.nostr;

/**
 * A filter that {@link FilterJson} refuses. The message is the human reason without any protocol
 * prefix (for example {@code kinds must be integers between 0 and 65535}); callers add their own
 * framing, such as the NIP-01 {@code invalid:} or {@code unsupported:} prefix, from {@link #kind()}.
 */
public final class FilterSyntaxException extends Exception {

    /** What kind of refusal this is. */
    public enum Kind {
        /** The text is not one JSON object: not an object, malformed JSON, trailing data. */
        NOT_A_FILTER,
        /** A field breaks a NIP-01 filter rule (type, range, hex, unknown or duplicate field, count). */
        INVALID,
        /** A field asks for something this implementation does not offer (NIP-50 search). */
        UNSUPPORTED
    }

    private final Kind kind;

    public FilterSyntaxException(Kind kind, String reason) {
        super(reason, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    /** The reason, without prefix; the same as {@link #getMessage()}. */
    public String reason() {
        return getMessage();
    }
}
