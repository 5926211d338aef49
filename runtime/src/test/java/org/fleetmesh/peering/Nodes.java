package org.fleetmesh.peering;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.SecretKey;

/** Three fixed nodes, a settable clock and scripted randomness: what the handshake tests share. */
final class Nodes {
    /** 2026-01-01T00:00:00Z. */
    static final long T0 = 1_767_225_600L;

    static final NodeSecrets A_KEYS = secrets(0x01, 0x02, 0x03);
    static final NodeSecrets B_KEYS = secrets(0x04, 0x05, 0x06);
    static final NodeSecrets C_KEYS = secrets(0x07, 0x08, 0x09);
    static final NodeEndpoints A_AT = NodeEndpoints.of("ws://a.example/", "ws://a.example/mesh", "http://a.example/didcomm");
    static final NodeEndpoints B_AT = NodeEndpoints.of("wss://b.example/", "wss://b.example/mesh",
            "https://b.example/didcomm");
    static final NodeEndpoints C_AT = NodeEndpoints.of("ws://c.example/", "ws://c.example/mesh", "http://c.example/didcomm");
    static final MeshSigner A = MeshSigner.forNode(A_KEYS, A_AT);
    static final MeshSigner B = MeshSigner.forNode(B_KEYS, B_AT);
    static final MeshSigner C = MeshSigner.forNode(C_KEYS, C_AT);

    private Nodes() {
    }

    static NodeSecrets secrets(int nostr, int agreement, int transport) {
        return NodeSecrets.of(new SecretKey(fill(nostr)), new SecretKey(fill(agreement)), new SecretKey(fill(transport)));
    }

    /** 32 bytes, each {@code b}. */
    static byte[] fill(int b) {
        byte[] x = new byte[32];
        Arrays.fill(x, (byte) b);
        return x;
    }

    /** 32 bytes counting up from {@code start}. */
    static byte[] seq(int start) {
        byte[] x = new byte[32];
        for (int i = 0; i < 32; i++) {
            x[i] = (byte) (start + i);
        }
        return x;
    }

    static MeshHandshake responder(MeshSigner self, TestClock clock, SeenProofs seen, byte[]... randomness) {
        return MeshHandshake.responder(self, HandshakeSettings.DEFAULTS, seen, clock, new Scripted(randomness));
    }

    static MeshHandshake initiator(MeshSigner self, TestClock clock, SeenProofs seen, byte[]... randomness) {
        return MeshHandshake.initiator(self, HandshakeSettings.DEFAULTS, seen, Optional.empty(), clock,
                new Scripted(randomness));
    }

    /** The only message of a step. */
    static String only(MeshHandshake.Step step) {
        if (step.send().size() != 1) {
            throw new AssertionError("expected one message to send, got " + step.send());
        }
        return step.send().get(0);
    }

    static Refusal refusal(MeshHandshake.Step step) {
        if (step.outcome().isEmpty() || !(step.outcome().get() instanceof MeshHandshake.Outcome.Refused r)) {
            throw new AssertionError("expected a refusal, got " + step);
        }
        return r.refusal();
    }

    static PeerIdentity peer(MeshHandshake.Step step) {
        if (step.outcome().isEmpty() || !(step.outcome().get() instanceof MeshHandshake.Outcome.Authenticated a)) {
            throw new AssertionError("expected authentication, got " + step);
        }
        return a.peer();
    }

    /** A clock that stands still until told. */
    static final class TestClock extends Clock {
        private Instant now;

        TestClock(long epochSecond) {
            now = Instant.ofEpochSecond(epochSecond);
        }

        void set(long epochSecond) {
            now = Instant.ofEpochSecond(epochSecond);
        }

        void advance(long seconds) {
            now = now.plusSeconds(seconds);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    /** Hands out the given byte strings in order, then seeded pseudo-random bytes. */
    static final class Scripted extends Random {
        private static final long serialVersionUID = 1L;
        private final Deque<byte[]> script;

        Scripted(byte[]... script) {
            super(42);
            this.script = new ArrayDeque<>(List.of(script));
        }

        @Override
        public void nextBytes(byte[] bytes) {
            byte[] next = script.pollFirst();
            if (next == null) {
                super.nextBytes(bytes);
                return;
            }
            if (next.length != bytes.length) {
                throw new AssertionError("scripted " + next.length + " bytes, asked for " + bytes.length);
            }
            System.arraycopy(next, 0, bytes, 0, bytes.length);
        }
    }
}
