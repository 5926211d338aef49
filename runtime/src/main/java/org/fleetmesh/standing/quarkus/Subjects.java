package org.fleetmesh.standing.quarkus;

import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.peering.link.EventLinks;
import org.fleetmesh.peering.quarkus.GrantedLinkSessions;
import org.fleetmesh.spi.peers.PeerStore;

/**
 * How this node names the subject of a finding it signs: its Nostr key (the {@code p} tag) and a DID that resolves
 * offline where it knows one, from what it holds: the peer's link, the declared peer, the DID itself, the grant the
 * peer signed for it.
 */
@ApplicationScoped
public class Subjects {

    @Inject
    GrantedLinkSessions sessions;

    @Inject
    PeerStore peers;

    /** The Nostr key of a subject DID: proven on a link, in a DID that resolves, or the signer of its grant to us. */
    public Optional<PubKey> keyOf(String did) {
        String shortDid = PeerIdentity.shortForm(did);
        EventLinks links = sessions.links();
        Optional<PubKey> proven = links.lastLinked(shortDid).flatMap(PeerIdentity::nostr);
        if (proven.isPresent()) {
            return proven; // on its link now, or on its last one (a quarantine closed it before the finding)
        }
        for (String candidate : List.of(did, peers.find(shortDid).map(PeerStore.StoredPeer::did).orElse(did))) {
            try {
                List<PubKey> keys = DidResolver.offline().nostrKeys(candidate);
                if (!keys.isEmpty()) {
                    return Optional.of(keys.get(0));
                }
            } catch (RuntimeException e) {
                // a short form, or a DID method that needs the network: try the next source
            }
        }
        return links.known(shortDid).flatMap(a -> a.received()).map(g -> g.grantor());
    }

    /** The subject's DID in a form that resolves offline when this node knows one (a link's, a declared peer's). */
    public String didOf(String did) {
        String shortDid = PeerIdentity.shortForm(did);
        if (!shortDid.equals(did)) {
            return did; // a long form already
        }
        Optional<PeerIdentity> linked = sessions.links().lastLinked(shortDid);
        if (linked.isPresent()) {
            return linked.get().did();
        }
        return peers.find(shortDid).map(PeerStore.StoredPeer::did).orElse(did);
    }
}
