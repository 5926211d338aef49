package org.fleetmesh.peering;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.spi.peers.PeerStore;

/** A {@link PeerStore} in memory: for a node without a storage adapter, and for tests. */
public final class MemoryPeerStore implements PeerStore {
    private final Map<String, StoredPeer> peers = new LinkedHashMap<>();
    private final Map<String, Rotation> rotations = new LinkedHashMap<>();

    @Override
    public synchronized List<StoredPeer> all() {
        return new ArrayList<>(peers.values());
    }

    @Override
    public synchronized Optional<StoredPeer> find(String key) {
        return Optional.ofNullable(peers.get(key));
    }

    @Override
    public synchronized StoredPeer declare(String key, String did, String configuredUrl, Source source, Instant now) {
        StoredPeer old = peers.get(key);
        StoredPeer p;
        if (old == null) {
            p = new StoredPeer(key, did, configuredUrl, configuredUrl, source, now, Optional.empty());
        } else if (!old.configuredUrl().equals(configuredUrl)) {
            p = new StoredPeer(key, did, configuredUrl, configuredUrl, source, old.added(), Optional.empty(),
                    old.federate());
        } else {
            p = new StoredPeer(key, did, old.url(), configuredUrl, source, old.added(), old.announcedAt(),
                    old.federate());
        }
        peers.put(key, p);
        return p;
    }

    @Override
    public synchronized boolean remove(String key) {
        return peers.remove(key) != null;
    }

    @Override
    public synchronized boolean moved(String key, String url, long announcedAt) {
        StoredPeer old = peers.get(key);
        if (old == null || old.announcedAt().map(a -> a >= announcedAt).orElse(false)) {
            return false;
        }
        peers.put(key, new StoredPeer(key, old.did(), url, old.configuredUrl(), old.source(), old.added(),
                Optional.of(announcedAt), old.federate()));
        return true;
    }

    @Override
    public synchronized boolean federate(String key, Optional<String> filters) {
        StoredPeer old = peers.get(key);
        if (old == null) {
            return false;
        }
        peers.put(key, new StoredPeer(key, old.did(), old.url(), old.configuredUrl(), old.source(), old.added(),
                old.announcedAt(), filters));
        return true;
    }

    @Override
    public synchronized boolean rotate(Rotation r) {
        if (rotations.putIfAbsent(r.oldKey(), r) != null) {
            return false;
        }
        StoredPeer old = peers.remove(r.oldKey());
        if (old != null && !peers.containsKey(r.newKey())) {
            peers.put(r.newKey(), new StoredPeer(r.newKey(), r.newDid(), old.url(), old.configuredUrl(), old.source(),
                    old.added(), old.announcedAt(), old.federate()));
        }
        return true;
    }

    @Override
    public synchronized List<Rotation> rotations() {
        return new ArrayList<>(rotations.values());
    }
}
