package org.fleetmesh.peering;

import java.util.Objects;
import java.util.Optional;

import org.fleetmesh.identity.DidPeer4;
import org.fleetmesh.identity.KeyHandover;
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
 * @param prior the verified hand-over from the DID the peer held before a key rotation, when it sent one
 *        (docs/spec/mesh-link.md, "Key hand-over"); its {@code sub} is {@code did}
 */
public record PeerIdentity(String did, Multikey transport, Optional<PubKey> nostr, Optional<KeyHandover> prior) {
    public PeerIdentity(String did, Multikey transport, Optional<PubKey> nostr) {
        this(did, transport, nostr, Optional.empty());
    }

    public PeerIdentity {
        Objects.requireNonNull(did, "did");
        Objects.requireNonNull(nostr, "nostr");
        Objects.requireNonNull(prior, "prior");
        if (transport.type() != KeyType.ED25519) {
            throw new IllegalArgumentException("a peer's transport key is Ed25519, got " + transport.type());
        }
    }

    /** This identity with the hand-over it presented. */
    public PeerIdentity withPrior(Optional<KeyHandover> handover) {
        return new PeerIdentity(did, transport, nostr, handover);
    }

    /** The did:peer:4 short form for a long form, otherwise the DID itself: for logs and keys of maps. */
    public String shortDid() {
        return shortForm(did);
    }

    public static String shortForm(String did) {
        return DidPeer4.shortFormOf(did);
    }

    @Override
    public String toString() {
        return "PeerIdentity[" + shortDid() + ", transport=" + transport + nostr.map(n -> ", nostr=" + n.hex()).orElse("")
                + prior.map(h -> ", prior=" + h.priorKey()).orElse("")
                + "]";
    }
}
