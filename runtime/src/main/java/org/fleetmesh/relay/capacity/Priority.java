package org.fleetmesh.relay.capacity;

import java.util.List;
import java.util.Locale;

import org.fleetmesh.nostr.ClientMessage;
import org.fleetmesh.nostr.Filter;

/**
 * The relay's work in the order it is kept under load, most important first: the last is shed
 * first and restored last. Live routing is never shed.
 */
public enum Priority {
    /** New events to live subscriptions (committed and ephemeral), and REQs that read nothing stored. */
    LIVE_ROUTING("live routing"),
    /** A client's EVENT that is to be stored. */
    CLIENT_EVENT("client events"),
    /** A client's REQ or COUNT that reads the store. */
    CLIENT_REQ("client queries"),
    /** Events and frames from mesh peers. */
    PEER_SYNC("peer sync"),
    /** NIP-77 sessions and bulk syncs. */
    BACKFILL("negentropy sync and backfill");

    private final String description;

    Priority(String description) {
        this.description = description;
    }

    /** What an answer calls this tier, e.g. "client queries". */
    public String description() {
        return description;
    }

    /** The metric tag and setting word: {@code live_routing}, {@code client_event}, ... */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The tier of a client request that is checked when it arrives (REQ, COUNT, NEG-OPEN), or null for
     * messages never shed there: EVENT (checked in ingest, where every origin passes), AUTH, CLOSE,
     * NEG-MSG and NEG-CLOSE (they end or continue work already admitted).
     */
    public static Priority of(ClientMessage m) {
        if (m instanceof ClientMessage.Req req) {
            return readsNothingStored(req.filters()) ? LIVE_ROUTING : CLIENT_REQ;
        }
        if (m instanceof ClientMessage.Count) {
            return CLIENT_REQ;
        }
        if (m instanceof ClientMessage.NegOpen) {
            return BACKFILL;
        }
        return null;
    }

    private static boolean readsNothingStored(List<Filter> filters) {
        for (Filter f : filters) {
            if (!f.matchesNothingStored()) {
                return false;
            }
        }
        return true;
    }
}
