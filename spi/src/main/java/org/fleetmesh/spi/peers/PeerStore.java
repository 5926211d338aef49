package org.fleetmesh.spi.peers;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The node's declared peers, durable: the ones its configuration names (upserted at every start) and the ones an
 * operator added through the admin API. A peer is keyed by its DID's key (the did:peer:4 short form, or the did:key);
 * its URL is where it is dialled now, which a signed endpoint announcement from the peer may change. Implementations
 * are safe for use by several threads.
 */
public interface PeerStore {

    /** Where a declaration came from. */
    enum Source {
        CONFIG("config"), ADMIN("admin");

        private final String word;

        Source(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }

        public static Source of(String word) {
            for (Source s : values()) {
                if (s.word.equals(word)) {
                    return s;
                }
            }
            throw new IllegalArgumentException("unknown peer source " + word);
        }
    }

    /**
     * @param key the DID's key
     * @param did the DID as declared
     * @param url where it is dialled now
     * @param configuredUrl the URL the declaration gave (configuration or admin); {@code url} differs once the peer
     *        announced a move
     * @param source who declared it
     * @param added when it was first declared
     * @param announcedAt {@code created_at} of the endpoint announcement that set {@code url}, if one did
     * @param federate the NIP-01 filters (a JSON array) this node asks the peer to forward, when the operator gave the
     *        peer its own (else the node's {@code fleetmesh.delivery.federate} applies)
     */
    record StoredPeer(String key, String did, String url, String configuredUrl, Source source, Instant added,
            Optional<Long> announcedAt, Optional<String> federate) {
        public StoredPeer(String key, String did, String url, String configuredUrl, Source source, Instant added,
                Optional<Long> announcedAt) {
            this(key, did, url, configuredUrl, source, added, announcedAt, Optional.empty());
        }

        public StoredPeer {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(did, "did");
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(configuredUrl, "configuredUrl");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(added, "added");
            Objects.requireNonNull(announcedAt, "announcedAt");
            Objects.requireNonNull(federate, "federate");
        }
    }

    /** Every stored peer, oldest declaration first. */
    List<StoredPeer> all();

    Optional<StoredPeer> find(String key);

    /**
     * Declares a peer. A new one is stored as given. For one already stored, a {@code configuredUrl} that differs from
     * the stored one replaces both its URLs (the operator's word wins over an older announcement); the same one leaves
     * a URL learnt from an announcement in place. Either way its {@code federate} stays. Returns the stored peer after
     * the write.
     */
    StoredPeer declare(String key, String did, String configuredUrl, Source source, Instant now);

    /**
     * Sets the filters (a JSON array) this node asks the peer to forward, or with empty clears them (the node's default
     * applies again). False when the peer is not stored.
     */
    boolean federate(String key, Optional<String> filters);

    /** Removes a peer; false when there was none. */
    boolean remove(String key);

    /**
     * Records that the peer announced {@code url} in an announcement created at {@code announcedAt} (seconds):
     * applied only when newer than the one that set the stored URL. False when not applied or not stored.
     */
    boolean moved(String key, String url, long announcedAt);

    /**
     * A declared peer's key hand-over, as this node verified it (docs/spec/mesh-link.md, "Key hand-over").
     *
     * @param oldKey the key the peer was declared under
     * @param newKey the key of the DID it handed over to
     * @param newDid that DID as it presented it
     * @param handover the hand-over's JWT
     * @param issuedAt its {@code iat}, seconds since 1970
     * @param recorded when this node recorded it
     */
    record Rotation(String oldKey, String newKey, String newDid, String handover, long issuedAt, Instant recorded) {
        public Rotation {
            Objects.requireNonNull(oldKey, "oldKey");
            Objects.requireNonNull(newKey, "newKey");
            Objects.requireNonNull(newDid, "newDid");
            Objects.requireNonNull(handover, "handover");
            Objects.requireNonNull(recorded, "recorded");
        }
    }

    /**
     * Records a rotation and moves the declaration stored under {@code oldKey} (its URLs, source, date and
     * {@code federate}) to {@code newKey} under {@code newDid}, in one transaction; a declaration already stored under
     * {@code newKey} is kept as it is. An {@code oldKey} already recorded keeps its first rotation (false).
     */
    boolean rotate(Rotation rotation);

    /** Every recorded rotation, oldest first. */
    List<Rotation> rotations();
}
