package org.fleetmesh.peering;

import java.util.Optional;

import org.fleetmesh.nostr.Signature;

/** Builds MESH-AUTH proofs directly, correctly signed over any transcript: the material of attacks. */
final class Proofs {
    private Proofs() {
    }

    /** The proof {@code signer} would send in {@code role} on a link between the two DIDs. */
    static MeshAuth proof(MeshSigner signer, Role role, String initiatorDid, String responderDid,
            Challenge initiatorChallenge, Challenge responderChallenge, long time) {
        Transcript t = Transcript.of(role, initiatorDid, responderDid, initiatorChallenge, responderChallenge, time);
        boolean initiator = role == Role.INITIATOR;
        return new MeshAuth(MeshHandshake.VERSION, signer.did(), initiator ? responderDid : initiatorDid,
                initiator ? initiatorChallenge : responderChallenge, initiator ? responderChallenge : initiatorChallenge,
                time, signer.sign(t), signer.signNostr(t, new byte[32]));
    }

    static MeshAuth withDid(MeshAuth a, String did) {
        return new MeshAuth(a.version(), did, a.peer(), a.challenge(), a.answers(), a.time(), a.sig(), a.nostrSig());
    }

    static MeshAuth withPeer(MeshAuth a, String peer) {
        return new MeshAuth(a.version(), a.did(), peer, a.challenge(), a.answers(), a.time(), a.sig(), a.nostrSig());
    }

    static MeshAuth withAnswers(MeshAuth a, Challenge answers) {
        return new MeshAuth(a.version(), a.did(), a.peer(), a.challenge(), answers, a.time(), a.sig(), a.nostrSig());
    }

    static MeshAuth withVersion(MeshAuth a, int version) {
        return new MeshAuth(version, a.did(), a.peer(), a.challenge(), a.answers(), a.time(), a.sig(), a.nostrSig());
    }

    static MeshAuth withSig(MeshAuth a, Ed25519Signature sig) {
        return new MeshAuth(a.version(), a.did(), a.peer(), a.challenge(), a.answers(), a.time(), sig, a.nostrSig());
    }

    static MeshAuth withNostrSig(MeshAuth a, Optional<Signature> nostrSig) {
        return new MeshAuth(a.version(), a.did(), a.peer(), a.challenge(), a.answers(), a.time(), a.sig(), nostrSig);
    }
}
