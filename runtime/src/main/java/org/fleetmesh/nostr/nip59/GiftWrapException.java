package org.fleetmesh.nostr.nip59;

/**
 * A gift wrap that cannot be opened: a bad signature on either layer, a payload that does not
 * decrypt, a seal or rumor that is malformed, or a rumor that claims another author than its seal.
 * The message says which.
 */
public final class GiftWrapException extends Exception {
    public GiftWrapException(String message) {
        super(message, null, false, false);
    }
}
