package org.fleetmesh.settlement.lightning.macaroon;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One caveat. A first-party caveat has only an identifier (the predicate, e.g. {@code expiry=1700000000});
 * a third-party caveat also has a verification id and usually a location. Byte arrays are copied in and out.
 */
public final class Caveat {
    private final byte[] identifier;
    private final byte[] verificationId; // null for first-party
    private final String location; // null when absent

    private Caveat(byte[] identifier, byte[] verificationId, String location) {
        if (identifier == null || identifier.length == 0) {
            throw new MacaroonException("caveat identifier is empty");
        }
        this.identifier = identifier.clone();
        this.verificationId = verificationId == null ? null : verificationId.clone();
        this.location = location;
    }

    public static Caveat firstParty(byte[] predicate) {
        return new Caveat(predicate, null, null);
    }

    public static Caveat firstParty(String predicate) {
        return firstParty(predicate.getBytes(StandardCharsets.UTF_8));
    }

    static Caveat of(byte[] identifier, byte[] verificationId, String location) {
        return new Caveat(identifier, verificationId, location);
    }

    public boolean isFirstParty() {
        return verificationId == null;
    }

    public byte[] identifier() {
        return identifier.clone();
    }

    byte[] identifierRef() {
        return identifier;
    }

    /** The identifier as UTF-8 text (first-party predicates are text by convention). */
    public String predicate() {
        return new String(identifier, StandardCharsets.UTF_8);
    }

    public byte[] verificationId() {
        return verificationId == null ? null : verificationId.clone();
    }

    public String location() {
        return location;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Caveat c && Arrays.equals(identifier, c.identifier)
                && Arrays.equals(verificationId, c.verificationId) && java.util.Objects.equals(location, c.location);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(identifier);
    }

    @Override
    public String toString() {
        return isFirstParty() ? "cid " + predicate() : "3rd-party cid (" + identifier.length + " bytes) at " + location;
    }
}
