package org.fleetmesh.peering.link;

import java.util.List;
import java.util.concurrent.CompletionStage;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.relay.Ingest;

/** Where a link's events go: the relay's {@link Ingest}, as {@code Origin.Peer} for a peer's, as the node's own for its grants. */
public interface Intake {
    /** Events the peer with DID {@code did} sent; one outcome each, in order. */
    CompletionStage<List<Ingest.Outcome>> fromPeer(List<Event> events, String did);

    /** An event this node signed (a grant it gives). */
    CompletionStage<List<Ingest.Outcome>> own(Event event);
}
