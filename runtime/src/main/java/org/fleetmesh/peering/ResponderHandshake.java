package org.fleetmesh.peering;

import java.time.Clock;
import java.util.Optional;
import java.util.Random;

import org.fleetmesh.identity.KeyHandover;

/** The responder: MESH-HELLO on open, verifies the initiator's proof before sending its own, waits for MESH-OK. */
final class ResponderHandshake extends MeshHandshake {
    private enum State {
        AWAIT_AUTH, AWAIT_OK
    }

    private State state = State.AWAIT_AUTH;
    private Challenge challenge;
    private int version;
    private PeerIdentity peer;

    ResponderHandshake(MeshSigner self, HandshakeSettings settings, SeenProofs seen, Clock clock, Random random) {
        super(self, settings, seen, clock, random);
    }

    @Override
    public Role role() {
        return Role.RESPONDER;
    }

    @Override
    Step onStart() {
        challenge = Challenge.random(random);
        return send(new MeshHello(VERSIONS, self.did(), challenge, now(), self.handover()).encode());
    }

    @Override
    boolean onVerifiesNext() {
        return state == State.AWAIT_AUTH; // MESH-OK is a version check
    }

    @Override
    Step onMessage(MeshMessage message) throws MeshRefusedException {
        return switch (state) {
            case AWAIT_AUTH -> {
                if (!(message instanceof MeshAuth auth)) {
                    throw refusal(Refusal.Kind.UNEXPECTED, "waiting for the initiator's MESH-AUTH, got " + message.type());
                }
                yield initiatorProof(auth);
            }
            case AWAIT_OK -> {
                if (!(message instanceof MeshOk ok)) {
                    throw refusal(Refusal.Kind.UNEXPECTED, "waiting for MESH-OK, got " + message.type());
                }
                if (ok.version() != version) {
                    throw refusal(Refusal.Kind.INVALID, "MESH-OK names version " + ok.version() + ", the link speaks "
                            + version);
                }
                yield authenticated(peer);
            }
        };
    }

    private Step initiatorProof(MeshAuth auth) throws MeshRefusedException {
        if (!VERSIONS.contains(auth.version())) {
            throw refusal(Refusal.Kind.UNSUPPORTED, "version " + auth.version() + "; this node speaks version "
                    + VERSIONS.stream().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElseThrow());
        }
        checkBinding(auth, challenge);
        PeerKeys keys = resolvePeer(auth.did());
        Optional<KeyHandover> prior = handover(auth.fromPrior(), auth.did());
        peer = verify(auth, keys, auth.did(), self.did(), auth.challenge(), challenge).withPrior(prior);
        version = auth.version();
        state = State.AWAIT_OK;
        return send(prove(version, auth.did(), challenge, auth.challenge()).encode());
    }
}
