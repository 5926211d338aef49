package org.fleetmesh.identity.didcomm;

import java.util.Optional;

/** The IANA media types of the three DIDComm formats, as the {@code typ} header carries them. */
public enum MediaType {
    PLAIN("application/didcomm-plain+json"),
    SIGNED("application/didcomm-signed+json"),
    ENCRYPTED("application/didcomm-encrypted+json");

    private static final String APPLICATION = "application/";

    private final String value;

    MediaType(String value) {
        this.value = value;
    }

    public String value() {
        return value;
    }

    /** The media type a {@code typ} names; without a '/', RFC 7515 §4.1.9 reads it with "application/" in front. */
    public static Optional<MediaType> of(String typ) {
        String full = typ.indexOf('/') < 0 ? APPLICATION + typ : typ;
        for (MediaType t : values()) {
            if (t.value.equalsIgnoreCase(full)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return value;
    }
}
