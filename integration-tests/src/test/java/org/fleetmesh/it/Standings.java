package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.peering.grant.Grant;
import org.fleetmesh.peering.grant.GrantTerms;
import org.fleetmesh.spi.peers.Evidence;
import org.fleetmesh.standing.Finding;
import org.fleetmesh.standing.FindingEvidence;
import org.fleetmesh.standing.Scope;
import org.fleetmesh.standing.Severity;

import com.fasterxml.jackson.databind.JsonNode;

/** What the standing ITs share: a node's {@code /mesh/standing}, its subjects, and findings signed in the test. */
final class Standings {
    static final Duration SETTLE = Duration.ofSeconds(60);

    private Standings() {
    }

    /** {@code GET /mesh/standing} (from loopback: no token, as {@code /mesh/status}). */
    static JsonNode standing(MeshnodeProcess n) {
        HttpResponse<String> r = PeeringIT.send(HttpRequest.newBuilder(n.httpUri().resolve("/mesh/standing")).GET());
        assertEquals(200, r.statusCode(), r.body());
        return NostrClient.tree(r.body());
    }

    static Optional<JsonNode> subject(JsonNode standing, String shortDid) {
        for (JsonNode s : standing.path("subjects")) {
            if (s.path("did").asText().equals(shortDid)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** Waits until the node's standing entry of {@code shortDid} satisfies {@code p}; returns it. */
    static JsonNode awaitSubject(MeshnodeProcess n, String shortDid, Predicate<JsonNode> p, String what) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            Optional<JsonNode> s = subject(standing(n), shortDid);
            if (s.isPresent()) {
                last = s.get();
                if (p.test(last)) {
                    return last;
                }
            }
            MeshnodeProcess.sleep(100);
        }
        throw new AssertionError(n + ": no " + what + " for " + shortDid + " within " + SETTLE + "; last: " + last
                + "\n" + n.logTail(40));
    }

    /** Waits until the whole standing document satisfies {@code p}; returns it. */
    static JsonNode await(MeshnodeProcess n, Predicate<JsonNode> p, String what) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = standing(n);
            if (p.test(last)) {
                return last;
            }
            MeshnodeProcess.sleep(100);
        }
        throw new AssertionError(n + ": no " + what + " within " + SETTLE + "; last: " + last + "\n" + n.logTail(40));
    }

    /** The detail of finding {@code id} (an id, or the start of a record key) in a subject's entry. */
    static Optional<JsonNode> detail(JsonNode subject, String id) {
        for (JsonNode d : subject.path("findings").path("details")) {
            if (d.path("id").asText().startsWith(id)) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    static List<JsonNode> details(JsonNode subject, Predicate<JsonNode> p) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode d : subject.path("findings").path("details")) {
            if (p.test(d)) {
                out.add(d);
            }
        }
        return out;
    }

    /** A Nostr key pair the test signs findings with. */
    record Signer(byte[] secret, PubKey pubkey) {
        static Signer fresh() {
            byte[] s = Schnorr.newSecretKey();
            return new Signer(s, new PubKey(Schnorr.publicKey(s)));
        }

        /** Its did:nostr (resolves offline to its key). */
        String did() {
            return "did:nostr:" + pubkey.hex();
        }
    }

    /**
     * A budget finding (S3) by {@code observer} (DID {@code observerDid}) against {@code subjectDid}, with a grant the
     * observer signed to the subject and {@code violations} counted: ATTESTED when violations are counted (the counts
     * are the observer's word), FALSE with none.
     */
    static Event budgetFinding(Signer observer, String observerDid, PubKey subject, String subjectDid, int violations,
            String note) {
        long now = Keys.now();
        String subjectShort = org.fleetmesh.peering.PeerIdentity.shortForm(subjectDid);
        Grant g = Grant.sign(new GrantTerms(org.fleetmesh.peering.PeerIdentity.shortForm(observerDid), subjectShort,
                1 << 20, 1000, 60, 0, now + 3600), observer.secret(), now - 10);
        Evidence e = new Evidence(0, subjectShort, "S3", "quarantined: " + note, violations, now * 1000 - 5000,
                now * 1000, now * 1000 + 60_000, g.event().id().hex(), g.event().json(),
                "{\"refused_frames\":" + violations + ",\"note\":" + NostrClient.JSON.valueToTree(note) + "}");
        return Finding.sign(observerDid, subject, subjectDid, Severity.S3, Scope.TRANSIT, "budget",
                FindingEvidence.budgetEvidence(e), now, observer.secret());
    }
}
