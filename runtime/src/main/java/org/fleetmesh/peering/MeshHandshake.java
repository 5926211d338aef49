package org.fleetmesh.peering;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;

import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.KeyHandover;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.nostr.Signature;
import org.fleetmesh.nostr.Snippet;

/**
 * One side of the {@code /mesh} mutual authentication (docs/spec/mesh-link.md), as a state machine: it takes the
 * peer's messages and a clock and answers with messages to send and, at the end, an {@link Outcome}. No sockets:
 * {@link MeshLink} drives it over one.
 *
 * <pre>
 * responder -> initiator   ["MESH-HELLO", {versions, did, challenge, time}]
 * initiator -> responder   ["MESH-AUTH",  {version, did, peer, challenge, answers, time, sig, nostr_sig}]
 * responder -> initiator   ["MESH-AUTH",  {...}]     (only after the initiator's proof verified)
 * initiator -> responder   ["MESH-OK",    {version}]
 * either, instead          ["MESH-ERR", "&lt;word&gt;: &lt;detail&gt;"], then close 1008
 * </pre>
 *
 * Not thread-safe on its own terms, so every entry point is synchronized.
 */
public abstract sealed class MeshHandshake permits InitiatorHandshake, ResponderHandshake {
    /** The protocol version this implementation speaks. */
    public static final int VERSION = 1;
    /** Every version this node speaks, as MESH-HELLO offers them. */
    public static final List<Integer> VERSIONS = List.of(VERSION);

    /** How a handshake ended. */
    public sealed interface Outcome {
        /** Both proofs verified; for the responder, MESH-OK arrived. */
        record Authenticated(PeerIdentity peer) implements Outcome {
        }

        /** No link: what refused it, and why. */
        record Refused(Refusal refusal) implements Outcome {
        }
    }

    /**
     * What to do after one input: send {@code send} in order, then, when {@code outcome} is present, the handshake
     * is over (and when it is a {@link Outcome.Refused}, close the connection).
     */
    public record Step(List<String> send, Optional<Outcome> outcome) {
        static final Step NOTHING = new Step(List.of(), Optional.empty());

        public Step {
            send = List.copyOf(send);
            Objects.requireNonNull(outcome, "outcome");
        }

        public boolean refused() {
            return outcome.isPresent() && outcome.get() instanceof Outcome.Refused;
        }
    }

    final MeshSigner self;
    final HandshakeSettings settings;
    final SeenProofs seen;
    final Clock clock;
    final Random random;
    final DidResolver resolver = DidResolver.offline();
    private long deadline;
    private boolean started;
    private Outcome outcome;

    MeshHandshake(MeshSigner self, HandshakeSettings settings, SeenProofs seen, Clock clock, Random random) {
        this.self = Objects.requireNonNull(self, "self");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.seen = Objects.requireNonNull(seen, "seen");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.random = Objects.requireNonNull(random, "random");
    }

    /** The side of a node that accepted a connection at {@code /mesh}. */
    public static MeshHandshake responder(MeshSigner self, HandshakeSettings settings, SeenProofs seen) {
        return responder(self, settings, seen, Clock.systemUTC(), new SecureRandom());
    }

    public static MeshHandshake responder(MeshSigner self, HandshakeSettings settings, SeenProofs seen, Clock clock,
            Random random) {
        return new ResponderHandshake(self, settings, seen, clock, random);
    }

    /**
     * The side of a node that dialled a peer's {@code /mesh}.
     *
     * @param expectedPeer the peer's DID when the dialler knows it (did:peer:4 long or short form, or the did:key of
     *        its transport key, which its document must list): a responder
     *        presenting another DID is refused before this node signs anything
     */
    public static MeshHandshake initiator(MeshSigner self, HandshakeSettings settings, SeenProofs seen,
            Optional<String> expectedPeer) {
        return initiator(self, settings, seen, expectedPeer, Clock.systemUTC(), new SecureRandom());
    }

    public static MeshHandshake initiator(MeshSigner self, HandshakeSettings settings, SeenProofs seen,
            Optional<String> expectedPeer, Clock clock, Random random) {
        return new InitiatorHandshake(self, settings, seen, expectedPeer, clock, random);
    }

    public abstract Role role();

    public HandshakeSettings settings() {
        return settings;
    }

    /** Call once, when the connection opens: the responder's MESH-HELLO, nothing for the initiator. */
    public final synchronized Step start() {
        if (started) {
            throw new IllegalStateException("the handshake has started already");
        }
        started = true;
        deadline = now() + Math.max(1, settings.timeout().toSeconds());
        return onStart();
    }

    /** One text message from the peer. */
    public final synchronized Step receive(String text) {
        if (!started) {
            throw new IllegalStateException("start the handshake before feeding it messages");
        }
        if (outcome != null) {
            throw new IllegalStateException("the handshake is over: " + outcome);
        }
        if (now() > deadline) {
            return timeout();
        }
        try {
            MeshMessage m = MeshMessage.parse(text, settings.maxMessageLength());
            if (m instanceof MeshErr err) {
                return finish(new Outcome.Refused(Refusal.of(Refusal.Kind.PEER, err.reason())), List.of());
            }
            return onMessage(m);
        } catch (MeshRefusedException e) {
            return refuse(e.refusal());
        }
    }

    /** The edge's handshake timer fired: refuses with {@code timeout} unless the handshake is over. */
    public final synchronized Step expire() {
        return outcome != null ? Step.NOTHING : timeout();
    }

    /**
     * This node ends the handshake for a reason of its own ({@code busy}, {@code error}, ...), started or not: the
     * MESH-ERR to send, or nothing when the handshake is over already.
     */
    public final synchronized Step abort(Refusal refusal) {
        return outcome != null ? Step.NOTHING : refuse(refusal);
    }

    /**
     * Whether the next message this side waits for is one whose handling verifies a proof or signs one (the work an
     * edge moves off its event loop); false once the handshake is over.
     */
    public final synchronized boolean verifiesNext() {
        return started && outcome == null && onVerifiesNext();
    }

    /** The connection closed: a handshake not over ends refused ({@code closed}), sending nothing. */
    public final synchronized Step closed() {
        if (outcome != null) {
            return Step.NOTHING;
        }
        return finish(new Outcome.Refused(Refusal.of(Refusal.Kind.CLOSED, "the connection closed during the handshake")),
                List.of());
    }

    public final synchronized Optional<Outcome> outcome() {
        return Optional.ofNullable(outcome);
    }

    public final synchronized boolean isOver() {
        return outcome != null;
    }

    /** The authenticated peer, once the handshake succeeded. */
    public final synchronized Optional<PeerIdentity> peer() {
        return outcome instanceof Outcome.Authenticated a ? Optional.of(a.peer()) : Optional.empty();
    }

    abstract Step onStart();

    abstract boolean onVerifiesNext();

    abstract Step onMessage(MeshMessage message) throws MeshRefusedException;

    /** This node's clock, seconds since 1970. */
    final long now() {
        return clock.instant().getEpochSecond();
    }

    final Step send(String... messages) {
        return new Step(List.of(messages), Optional.empty());
    }

    final Step authenticated(PeerIdentity peer, String... messages) {
        return finish(new Outcome.Authenticated(peer), List.of(messages));
    }

    final Step refuse(Refusal refusal) {
        return finish(new Outcome.Refused(refusal),
                refusal.kind().sent() ? List.of(MeshErr.of(refusal).encode()) : List.of());
    }

    private Step timeout() {
        return refuse(Refusal.of(Refusal.Kind.TIMEOUT, "the handshake did not complete within "
                + settings.timeout().toSeconds() + " s"));
    }

    private Step finish(Outcome o, List<String> messages) {
        outcome = o;
        return new Step(messages, Optional.of(o));
    }

    static MeshRefusedException refusal(Refusal.Kind kind, String detail) {
        return Refusal.of(kind, detail).exception();
    }

    /** Refuses a time outside this node's clock plus or minus the allowed skew. */
    final void checkTime(long time, String what) throws MeshRefusedException {
        long now = now();
        long skew = settings.maxClockSkew().toSeconds();
        if (time < now - skew) {
            throw refusal(Refusal.Kind.EXPIRED, what + " time " + time + " is " + (now - time)
                    + " s behind this node's clock (at most " + skew + " s allowed)");
        }
        if (time > now + skew) {
            throw refusal(Refusal.Kind.FUTURE, what + " time " + time + " is " + (time - now)
                    + " s ahead of this node's clock (at most " + skew + " s allowed)");
        }
    }

    /** Refuses a peer DID, or a peer key, that is this node's own. */
    final PeerKeys resolvePeer(String did) throws MeshRefusedException {
        if (self.isOwn(did)) {
            throw refusal(Refusal.Kind.SELF, Snippet.of(did) + " is this node's own DID");
        }
        PeerKeys keys = PeerKeys.resolve(resolver, did);
        if (keys.transport().contains(self.transportKey())) {
            throw refusal(Refusal.Kind.SELF, Snippet.of(did) + " holds this node's own transport key");
        }
        return keys;
    }

    /** This node's proof: MESH-AUTH signed in {@link #role()} over this connection's challenges and DIDs. */
    final MeshAuth prove(int version, String peerDid, Challenge own, Challenge answers) {
        long time = now();
        Transcript t = role() == Role.INITIATOR
                ? Transcript.of(Role.INITIATOR, self.did(), peerDid, own, answers, time)
                : Transcript.of(Role.RESPONDER, peerDid, self.did(), answers, own, time);
        byte[] aux = new byte[32];
        random.nextBytes(aux);
        return new MeshAuth(version, self.did(), peerDid, own, answers, time, self.sign(t), self.signNostr(t, aux),
                role() == Role.INITIATOR ? self.handover() : Optional.empty());
    }

    /**
     * The peer's key hand-over, verified (docs/spec/mesh-link.md, "Key hand-over"): a valid JWT whose {@code sub} is
     * the DID the peer presents; refused {@code invalid} otherwise (an honest node sends none or a valid one).
     */
    final Optional<KeyHandover> handover(Optional<String> jwt, String presentedDid) throws MeshRefusedException {
        if (jwt.isEmpty()) {
            return Optional.empty();
        }
        KeyHandover h;
        try {
            h = KeyHandover.verify(jwt.get(), now(), settings.maxClockSkew().toSeconds());
        } catch (IllegalArgumentException | DidResolutionException e) {
            throw refusal(Refusal.Kind.INVALID, "\"from_prior\": " + e.getMessage());
        }
        if (!h.nextKey().equals(PeerIdentity.shortForm(presentedDid))) {
            throw refusal(Refusal.Kind.INVALID, "\"from_prior\" hands over to " + Snippet.of(h.nextKey())
                    + ", not to the presented DID " + Snippet.of(PeerIdentity.shortForm(presentedDid)));
        }
        if (self.isOwn(h.prior()) || self.isOwn(h.priorKey())) {
            throw refusal(Refusal.Kind.INVALID, "\"from_prior\" hands over this node's own DID");
        }
        return Optional.of(h);
    }

    /**
     * Verifies the peer's proof over the transcript this node expects: the peer's role, this connection's
     * challenges and DIDs (from this node's own state, not from the message), the proof's time. Then records it
     * as seen.
     */
    final PeerIdentity verify(MeshAuth auth, PeerKeys keys, String initiatorDid, String responderDid,
            Challenge initiatorChallenge, Challenge responderChallenge) throws MeshRefusedException {
        checkTime(auth.time(), "the proof's");
        Transcript t = Transcript.of(role().other(), initiatorDid, responderDid, initiatorChallenge, responderChallenge,
                auth.time());
        byte[] message = t.bytes();
        Multikey signer = null;
        for (Multikey k : keys.transport()) {
            if (auth.sig().verifies(message, k)) {
                signer = k;
                break;
            }
        }
        if (signer == null) {
            throw refusal(Refusal.Kind.INVALID, "\"sig\" does not verify under the Ed25519 authentication key"
                    + (keys.transport().size() == 1 ? "" : "s") + " of " + PeerIdentity.shortForm(auth.did())
                    + " over this connection's transcript");
        }
        Optional<PubKey> nostr = Optional.empty();
        if (!keys.nostr().isEmpty()) {
            Signature nostrSig = auth.nostrSig().orElseThrow(() -> refusal(Refusal.Kind.INVALID,
                    "\"nostr_sig\" is missing; the DID document lists a secp256k1 authentication key"));
            byte[] hash = t.hash();
            nostr = keys.nostr().stream().filter(k -> Schnorr.verify(nostrSig.unsafeBytes(), hash, k.unsafeBytes()))
                    .findFirst();
            if (nostr.isEmpty()) {
                throw refusal(Refusal.Kind.INVALID, "\"nostr_sig\" does not verify under the secp256k1 authentication"
                        + " key of " + PeerIdentity.shortForm(auth.did()) + " over this connection's transcript");
            }
        } else if (auth.nostrSig().isPresent()) {
            throw refusal(Refusal.Kind.INVALID, "\"nostr_sig\" is given but the DID document lists no secp256k1"
                    + " authentication key");
        }
        if (!seen.firstSight(auth.sig(), auth.time() + settings.maxClockSkew().toSeconds(), now())) {
            throw refusal(Refusal.Kind.REPLAYED, "this proof was already accepted once");
        }
        return new PeerIdentity(auth.did(), signer, nostr);
    }

    /** The checks that give a precise reason before the signature would fail anyway. */
    final void checkBinding(MeshAuth auth, Challenge ours) throws MeshRefusedException {
        if (!auth.peer().equals(self.did())) {
            throw refusal(Refusal.Kind.INVALID, "the proof is bound to " + Snippet.of(PeerIdentity.shortForm(auth.peer()))
                    + ", not to this node's DID");
        }
        if (!auth.answers().equals(ours)) {
            throw refusal(Refusal.Kind.INVALID, "the proof answers challenge " + auth.answers().hex()
                    + ", not this connection's " + ours.hex());
        }
    }
}
