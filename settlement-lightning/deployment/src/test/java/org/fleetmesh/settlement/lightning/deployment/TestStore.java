package org.fleetmesh.settlement.lightning.deployment;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Signature;
import org.fleetmesh.settlement.lightning.l402.MemoryEventStore;

/** The runtime module's in-memory EventStore as a bean for the route tests, with a helper to add events. */
@ApplicationScoped
public class TestStore extends MemoryEventStore {

    Event add(PubKey author, int kind, long createdAt, int n) {
        byte[] id = new byte[32];
        java.util.Arrays.fill(id, (byte) 0x10);
        id[31] = (byte) n;
        Event e = new Event(new EventId(id), author, createdAt, kind, List.of(), "n" + n, new Signature(new byte[64]));
        events.add(e);
        return e;
    }
}
