package org.fleetmesh.relay;

import org.fleetmesh.nostr.NostrJson;

/** Relay-to-client messages (NIP-01, NIP-45), formatted exactly. */
public final class RelayMessages {
    private RelayMessages() {
    }

    public static String event(String subscriptionId, String eventJson) {
        return "[\"EVENT\"," + NostrJson.quote(subscriptionId) + "," + eventJson + "]";
    }

    public static String ok(String eventId, boolean accepted, String message) {
        return "[\"OK\",\"" + eventId + "\"," + accepted + "," + NostrJson.quote(message) + "]";
    }

    /** {@code OK} for an id that may not be hex (a malformed one echoed back): quoted as a JSON string. */
    public static String okQuoted(String eventId, boolean accepted, String message) {
        return "[\"OK\"," + NostrJson.quote(eventId) + "," + accepted + "," + NostrJson.quote(message) + "]";
    }

    public static String eose(String subscriptionId) {
        return "[\"EOSE\"," + NostrJson.quote(subscriptionId) + "]";
    }

    public static String closed(String subscriptionId, String message) {
        return "[\"CLOSED\"," + NostrJson.quote(subscriptionId) + "," + NostrJson.quote(message) + "]";
    }

    public static String notice(String message) {
        return "[\"NOTICE\"," + NostrJson.quote(message) + "]";
    }

    public static String negMsg(String subscriptionId, byte[] message) {
        return "[\"NEG-MSG\"," + NostrJson.quote(subscriptionId) + ",\"" + org.fleetmesh.nostr.Hex.encode(message) + "\"]";
    }

    public static String negErr(String subscriptionId, String reason) {
        return "[\"NEG-ERR\"," + NostrJson.quote(subscriptionId) + "," + NostrJson.quote(reason) + "]";
    }

    public static String auth(String challenge) {
        return "[\"AUTH\"," + NostrJson.quote(challenge) + "]";
    }

    public static String count(String subscriptionId, long count) {
        return "[\"COUNT\"," + NostrJson.quote(subscriptionId) + ",{\"count\":" + count + "}]";
    }
}
