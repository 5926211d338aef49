package org.fleetmesh.peering;

import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;

import org.fleetmesh.identity.DidPeer4;
import org.fleetmesh.identity.KeyHandover;
import org.fleetmesh.nostr.Snippet;

/**
 * The initiator: waits for MESH-HELLO, picks the highest common version, proves itself, verifies the responder's
 * proof and sends MESH-OK.
 */
final class InitiatorHandshake extends MeshHandshake {
    private enum State {
        AWAIT_HELLO, AWAIT_AUTH
    }

    private final Optional<String> expectedPeer;
    private State state = State.AWAIT_HELLO;
    private MeshHello hello;
    private PeerKeys peerKeys;
    private Optional<KeyHandover> prior = Optional.empty();
    private Challenge challenge;
    private int version;

    InitiatorHandshake(MeshSigner self, HandshakeSettings settings, SeenProofs seen, Optional<String> expectedPeer,
            Clock clock, Random random) {
        super(self, settings, seen, clock, random);
        this.expectedPeer = Objects.requireNonNull(expectedPeer, "expectedPeer");
    }

    @Override
    public Role role() {
        return Role.INITIATOR;
    }

    @Override
    Step onStart() {
        return Step.NOTHING;
    }

    @Override
    boolean onVerifiesNext() {
        return true; // MESH-HELLO resolves the peer's DID and signs; MESH-AUTH verifies
    }

    @Override
    Step onMessage(MeshMessage message) throws MeshRefusedException {
        return switch (state) {
            case AWAIT_HELLO -> {
                if (!(message instanceof MeshHello h)) {
                    throw refusal(Refusal.Kind.UNEXPECTED, "waiting for MESH-HELLO, got " + message.type());
                }
                yield hello(h);
            }
            case AWAIT_AUTH -> {
                if (!(message instanceof MeshAuth auth)) {
                    throw refusal(Refusal.Kind.UNEXPECTED, "waiting for the responder's MESH-AUTH, got " + message.type());
                }
                yield responderProof(auth);
            }
        };
    }

    private Step hello(MeshHello h) throws MeshRefusedException {
        version = h.versions().stream().filter(VERSIONS::contains).max(Integer::compare)
                .orElseThrow(() -> refusal(Refusal.Kind.UNSUPPORTED, "versions " + h.versions()
                        + " offered; this node speaks version " + VERSION));
        boolean byKey = expectedPeer.isPresent() && expectedPeer.get().startsWith(org.fleetmesh.identity.DidKey.PREFIX);
        prior = handover(h.fromPrior(), h.did());
        // a peer that rotated its keys is reached under its new DID when it hands over from the one dialled
        boolean handedOver = expectedPeer.isPresent() && prior.isPresent() && !byKey
                && sameDid(expectedPeer.get(), prior.get().prior());
        if (expectedPeer.isPresent() && !byKey && !sameDid(expectedPeer.get(), h.did()) && !handedOver) {
            throw notDialled(h);
        }
        checkTime(h.time(), "MESH-HELLO");
        peerKeys = resolvePeer(h.did());
        // a peer known by the did:key of its transport key: its document must list that key (the link manager then
        // checks that this key signed the proof)
        if (byKey && !expectedPeer.get().equals(h.did()) && !listsKey(peerKeys, expectedPeer.get())) {
            throw notDialled(h);
        }
        hello = h;
        challenge = Challenge.random(random);
        state = State.AWAIT_AUTH;
        return send(prove(version, h.did(), challenge, h.challenge()).encode());
    }

    private Step responderProof(MeshAuth auth) throws MeshRefusedException {
        if (auth.version() != version) {
            throw refusal(Refusal.Kind.INVALID, "the responder's proof is for version " + auth.version()
                    + ", this link speaks " + version);
        }
        if (!auth.did().equals(hello.did())) {
            throw refusal(Refusal.Kind.INVALID, "MESH-AUTH is signed as " + Snippet.of(PeerIdentity.shortForm(auth.did()))
                    + ", MESH-HELLO named " + Snippet.of(PeerIdentity.shortForm(hello.did())));
        }
        checkBinding(auth, challenge);
        if (!auth.challenge().equals(hello.challenge())) {
            throw refusal(Refusal.Kind.INVALID, "the responder's \"challenge\" is not the one its MESH-HELLO sent");
        }
        PeerIdentity peer = verify(auth, peerKeys, self.did(), hello.did(), challenge, hello.challenge()).withPrior(prior);
        return authenticated(peer, new MeshOk(version).encode());
    }

    private MeshRefusedException notDialled(MeshHello h) {
        return refusal(Refusal.Kind.INVALID, "this node dialled " + Snippet.of(expectedPeer.get())
                + ", the responder is " + Snippet.of(PeerIdentity.shortForm(h.did())));
    }

    private static boolean listsKey(PeerKeys keys, String didKey) {
        try {
            return keys.transport().contains(org.fleetmesh.identity.DidKey.parse(didKey));
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The same DID, or a did:peer:4 short form of the presented long form. */
    private static boolean sameDid(String expected, String presented) {
        if (expected.equals(presented)) {
            return true;
        }
        return DidPeer4.isShortForm(expected) && expected.equals(PeerIdentity.shortForm(presented));
    }
}
