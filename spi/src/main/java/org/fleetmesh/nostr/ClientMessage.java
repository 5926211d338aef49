package org.fleetmesh.nostr;

import java.util.List;

/** A message a client sends to a relay (NIP-01, NIP-42, NIP-45). */
public sealed interface ClientMessage {

    record EventMessage(Event event) implements ClientMessage {
    }

    record Req(String subscriptionId, List<Filter> filters) implements ClientMessage {
    }

    record Count(String subscriptionId, List<Filter> filters) implements ClientMessage {
    }

    record Close(String subscriptionId) implements ClientMessage {
    }

    record Auth(Event event) implements ClientMessage {
    }

    /** NIP-77: open a Negentropy session over the events matching {@code filter}. */
    /** {@code filters}: one filter as NIP-77 has it, or several (their union), as strfry also accepts. */
    record NegOpen(String subscriptionId, java.util.List<Filter> filters, byte[] message) implements ClientMessage {
    }

    record NegMsg(String subscriptionId, byte[] message) implements ClientMessage {
    }

    record NegClose(String subscriptionId) implements ClientMessage {
    }
}
