package org.fleetmesh.relay;

import org.fleetmesh.nostr.NostrJson;

/** Relay-to-client messages (NIP-01, NIP-45), formatted exactly. */
final class RelayMessages {
    private RelayMessages() {
    }

    static String event(String subscriptionId, String eventJson) {
        return "[\"EVENT\"," + NostrJson.quote(subscriptionId) + "," + eventJson + "]";
    }

    static String ok(String eventId, boolean accepted, String message) {
        return "[\"OK\",\"" + eventId + "\"," + accepted + "," + NostrJson.quote(message) + "]";
    }

    static String eose(String subscriptionId) {
        return "[\"EOSE\"," + NostrJson.quote(subscriptionId) + "]";
    }

    static String closed(String subscriptionId, String message) {
        return "[\"CLOSED\"," + NostrJson.quote(subscriptionId) + "," + NostrJson.quote(message) + "]";
    }

    static String notice(String message) {
        return "[\"NOTICE\"," + NostrJson.quote(message) + "]";
    }

    static String negMsg(String subscriptionId, byte[] message) {
        return "[\"NEG-MSG\"," + NostrJson.quote(subscriptionId) + ",\"" + org.fleetmesh.nostr.Hex.encode(message) + "\"]";
    }

    static String negErr(String subscriptionId, String reason) {
        return "[\"NEG-ERR\"," + NostrJson.quote(subscriptionId) + "," + NostrJson.quote(reason) + "]";
    }

    static String auth(String challenge) {
        return "[\"AUTH\"," + NostrJson.quote(challenge) + "]";
    }

    static String count(String subscriptionId, long count) {
        return "[\"COUNT\"," + NostrJson.quote(subscriptionId) + ",{\"count\":" + count + "}]";
    }
}
