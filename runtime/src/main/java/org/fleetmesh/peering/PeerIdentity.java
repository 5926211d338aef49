package org.fleetmesh.peering;

import java.util.Objects;
import java.util.Optional;

import org.fleetmesh.identity.DidPeer4;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.nostr.PubKey;

/**
 * Who is at the other end of an authenticated {@code /mesh} link.
 *
 * @param did the peer's DID as it presented it (a did:peer:4 long form for a meshnode)
 * @param transport the Ed25519 authentication key of that DID which signed the peer's proof
 * @param nostr the peer's Nostr key, when its DID document has a secp256k1 authentication key: proven by the
 *        proof's BIP-340 signature
 */
public record PeerIdentity(String did, Multikey transport, Optional<PubKey> nostr) {
    public PeerIdentity {
        Objects.requireNonNull(did, "did");
        Objects.requireNonNull(nostr, "nostr");
        if (transport.type() != KeyType.ED25519) {
            throw new IllegalArgumentException("a peer's transport key is Ed25519, got " + transport.type());
        }
    }

    /** The did:peer:4 short form for a long form, otherwise the DID itself: for logs and keys of maps. */
    public String shortDid() {
        return shortForm(did);
    }

    public static String shortForm(String did) {
        if (did.startsWith(DidPeer4.PREFIX) && !DidPeer4.isShortForm(did)) {
            try {
                return DidPeer4.parse(did).shortForm();
            } catch (RuntimeException e) {
                return did;
            }
        }
        return did;
    }

    @Override
    public String toString() {
        return "PeerIdentity[" + shortDid() + ", transport=" + transport + nostr.map(n -> ", nostr=" + n.hex()).orElse("")
                + "]";
    }
}
