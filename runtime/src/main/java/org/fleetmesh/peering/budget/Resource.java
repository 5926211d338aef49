package org.fleetmesh.peering.budget;

/** What a budget counts. */
public enum Resource {
    /** UTF-8 bytes of frames on the wire. */
    BYTES,
    /** Nostr events. */
    EVENTS,
    /** Subscriptions and counts opened (REQ, COUNT); clients only, grants do not carry it. */
    REQS
}
