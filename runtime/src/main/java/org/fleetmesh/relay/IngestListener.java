package org.fleetmesh.relay;

import java.util.List;

import org.fleetmesh.nostr.Event;

/**
 * Told of every finished {@link Ingest#submit} (where receipts, budgets and metering hook in).
 * Called on the thread that completed the batch (often the group-commit writer): it must be quick;
 * what it throws is logged and ignored.
 */
@FunctionalInterface
public interface IngestListener {

    /** {@code outcomes} are in {@code batch} order, one per event. */
    void completed(Origin origin, List<Event> batch, List<Ingest.Outcome> outcomes);
}
