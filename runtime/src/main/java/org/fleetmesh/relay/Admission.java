package org.fleetmesh.relay;

import org.fleetmesh.nostr.Event;

/**
 * The admission rules every stored event passes, whether it arrives over a WebSocket or through
 * {@code meshnode import}: checks that need no cryptography and no knowledge of the client.
 */
public final class Admission {
    private Admission() {
    }

    /** Why the event may not be stored, or null. The id and signature are checked separately. */
    public static String refusal(Event e, RelayLimits limits, long now) {
        if (e.kind() == Ingest.AUTH_KIND) {
            return "invalid: kind 22242 is only for AUTH messages and is never stored or broadcast";
        }
        if (e.createdAt() > now + limits.createdAtUpperSkew()) {
            return "invalid: created_at is more than " + limits.createdAtUpperSkew() + " seconds in the future";
        }
        if (limits.createdAtLowerSkew() > 0 && e.createdAt() < now - limits.createdAtLowerSkew()) {
            return "invalid: created_at is more than " + limits.createdAtLowerSkew() + " seconds in the past";
        }
        // NIP-11 max_content_length: "a count of unicode characters" (code points; a UTF-16 length is never fewer)
        String content = e.content();
        if (content.length() > limits.maxContentLength()
                && content.codePointCount(0, content.length()) > limits.maxContentLength()) {
            return "invalid: content longer than " + limits.maxContentLength() + " characters";
        }
        if (e.tags().size() > limits.maxEventTags()) {
            return "invalid: more than " + limits.maxEventTags() + " tags";
        }
        Long expiration = e.expiration();
        if (expiration != null && expiration <= now) {
            return "invalid: event has expired";
        }
        return null;
    }
}
