package org.fleetmesh.relay;

import java.util.Optional;

import org.fleetmesh.negentropy.Storage;

/**
 * One live Negentropy index registered at run time ({@link Relay#index}): a fingerprint tree of a filter's stored
 * events, kept in step with the store; NIP-77 sessions on exactly that filter are served from it.
 */
public interface LiveIndex extends AutoCloseable {

    /** An O(1) copy-on-write snapshot of the items now, in Negentropy order; empty while the first build runs. */
    Optional<Storage> snapshot();

    /** Items held now, or -1 while the first build runs. */
    int size();

    /** Drops the index; snapshots already taken stay valid. */
    @Override
    void close();
}
