package org.fleetmesh.peering;

import java.util.Objects;
import java.util.Optional;

import org.fleetmesh.nostr.Signature;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A proof of identity, sent once by each side: the initiator's answers the MESH-HELLO, the responder's answers the
 * initiator's. Both have the same members:
 * {@code ["MESH-AUTH", {"version", "did", "peer", "challenge", "answers", "time", "sig", "nostr_sig", "from_prior"}]}
 * ({@code from_prior} only from an initiator that rotated its keys; docs/spec/mesh-link.md, "Key hand-over").
 *
 * @param version the protocol version the signer speaks on this link
 * @param did the signer's DID
 * @param peer the DID the signer believes it is talking to (cross-binding, also signed)
 * @param challenge the signer's own challenge (the initiator's is fresh here; the responder's repeats its HELLO's)
 * @param answers the peer's challenge this proof answers
 * @param time the signer's clock when signing, seconds since 1970
 * @param sig Ed25519 over the transcript, by an Ed25519 key in the signer's DID document's authentication
 * @param nostrSig BIP-340 over SHA-256 of the transcript, by the secp256k1 authentication key when the DID
 *        document has one
 * @param fromPrior the signer's key hand-over from its previous DID, when it rotated its keys (not part of the
 *        transcript: the JWT is signed by the previous DID, and the proof of the new one is this message's)
 */
public record MeshAuth(int version, String did, String peer, Challenge challenge, Challenge answers, long time,
        Ed25519Signature sig, Optional<Signature> nostrSig, Optional<String> fromPrior) implements MeshMessage {

    public MeshAuth(int version, String did, String peer, Challenge challenge, Challenge answers, long time,
            Ed25519Signature sig, Optional<Signature> nostrSig) {
        this(version, did, peer, challenge, answers, time, sig, nostrSig, Optional.empty());
    }

    public MeshAuth {
        Objects.requireNonNull(did, "did");
        Objects.requireNonNull(peer, "peer");
        Objects.requireNonNull(challenge, "challenge");
        Objects.requireNonNull(answers, "answers");
        Objects.requireNonNull(sig, "sig");
        Objects.requireNonNull(nostrSig, "nostrSig");
        Objects.requireNonNull(fromPrior, "fromPrior");
    }

    @Override
    public String type() {
        return AUTH;
    }

    @Override
    public String encode() {
        ObjectNode body = MeshJson.object();
        body.put("version", version);
        body.put("did", did);
        body.put("peer", peer);
        body.put("challenge", challenge.hex());
        body.put("answers", answers.hex());
        body.put("time", time);
        body.put("sig", sig.hex());
        nostrSig.ifPresent(s -> body.put("nostr_sig", s.hex()));
        fromPrior.ifPresent(j -> body.put("from_prior", j));
        return MeshJson.write(MeshJson.array(AUTH).add(body));
    }

    static MeshAuth read(ObjectNode o) throws MeshRefusedException {
        return new MeshAuth(MeshJson.version(o.get("version"), AUTH + " \"version\""),
                MeshJson.string(o, AUTH, "did", "a DID string"), MeshJson.string(o, AUTH, "peer", "a DID string"),
                Challenge.ofHex(MeshJson.hex(o, AUTH, "challenge", Challenge.LENGTH)),
                Challenge.ofHex(MeshJson.hex(o, AUTH, "answers", Challenge.LENGTH)), MeshJson.time(o, AUTH, "time"),
                Ed25519Signature.ofHex(MeshJson.hex(o, AUTH, "sig", Ed25519Signature.LENGTH)),
                MeshJson.optionalBip340(o, AUTH, "nostr_sig"), MeshJson.optionalString(o, AUTH, "from_prior", "a JWT string"));
    }
}
