package org.fleetmesh.peering;

import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.fleetmesh.identity.KeyHandover;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.SecretKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.nostr.Signature;

/**
 * This node's side of the handshake: its DID and the keys that prove it. A meshnode's DID is its did:peer:4 long
 * form ({@link #forNode}), its {@code sig} key the transport key {@code #key-1}, its {@code nostr_sig} key the
 * Nostr key {@code #key-3}.
 */
public final class MeshSigner {
    private final String did;
    private final Set<String> identifiers;
    private final SecretKey transport;
    private final Multikey transportKey;
    private final Optional<SecretKey> nostr;
    private final Optional<KeyHandover> handover;

    private MeshSigner(String did, Set<String> identifiers, SecretKey transport, Optional<SecretKey> nostr,
            Optional<KeyHandover> handover) {
        this.did = did;
        this.handover = handover;
        this.identifiers = Set.copyOf(identifiers);
        this.transport = transport;
        byte[] pub = new byte[Ed25519.PUBLIC_KEY_SIZE];
        byte[] seed = transport.bytes();
        Ed25519.generatePublicKey(seed, 0, pub, 0);
        Arrays.fill(seed, (byte) 0);
        this.transportKey = Multikey.ed25519(pub);
        this.nostr = nostr;
    }

    /** The node's signer: its did:peer:4 long form, refusing any of its other DIDs as a peer's. */
    public static MeshSigner forNode(NodeSecrets secrets, NodeEndpoints endpoints) {
        NodeDidDocument doc = NodeDidDocument.of(secrets.publicKeys(), endpoints);
        return new MeshSigner(doc.did(), Set.copyOf(doc.identifiers()), secrets.transport(),
                Optional.of(secrets.nostr()), Optional.empty());
    }

    /**
     * A signer for any DID whose document lists {@code transport}'s public key under authentication (and, when
     * {@code nostr} is given, its secp256k1 key too): a did:key, say.
     */
    public static MeshSigner of(String did, SecretKey transport, Optional<SecretKey> nostr) {
        Objects.requireNonNull(did, "did");
        return new MeshSigner(did, Set.of(did), transport, nostr, Optional.empty());
    }

    /**
     * This signer presenting {@code h}, its hand-over from the DID it held before a key rotation, on every link
     * (docs/spec/mesh-link.md, "Key hand-over").
     *
     * @throws IllegalArgumentException when {@code h} does not hand over to this signer's DID
     */
    public MeshSigner withHandover(KeyHandover h) {
        if (!PeerIdentity.shortForm(h.next()).equals(PeerIdentity.shortForm(did))) {
            throw new IllegalArgumentException("the hand-over is to " + h.nextKey() + ", not to this node's "
                    + PeerIdentity.shortForm(did));
        }
        return new MeshSigner(did, identifiers, transport, nostr, Optional.of(h));
    }

    /** The JWT of this signer's hand-over, if it has one. */
    Optional<String> handover() {
        return handover.map(KeyHandover::jwt);
    }

    public String did() {
        return did;
    }

    /** The Ed25519 public key that signs this node's proofs. */
    public Multikey transportKey() {
        return transportKey;
    }

    /** Whether {@code otherDid} is one of this node's own DIDs. */
    boolean isOwn(String otherDid) {
        return identifiers.contains(otherDid);
    }

    Ed25519Signature sign(Transcript transcript) {
        return Ed25519Signature.sign(transcript.bytes(), transport);
    }

    /** BIP-340 over the transcript hash with the given auxiliary randomness, when this signer has a Nostr key. */
    Optional<Signature> signNostr(Transcript transcript, byte[] auxRand) {
        return nostr.map(k -> {
            byte[] secret = k.bytes();
            try {
                return new Signature(Schnorr.sign(transcript.hash(), secret, auxRand));
            } finally {
                Arrays.fill(secret, (byte) 0);
            }
        });
    }

    @Override
    public String toString() {
        return "MeshSigner[" + PeerIdentity.shortForm(did) + "]";
    }
}
