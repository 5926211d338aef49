package org.fleetmesh.standing;

import static org.fleetmesh.standing.TestFindings.OBSERVER_DID;
import static org.fleetmesh.standing.TestFindings.SUBJECT_DID;
import static org.fleetmesh.standing.TestFindings.SUBJECT_KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.peering.PeerIdentity;
import org.junit.jupiter.api.Test;

/** Kind 1804 findings (docs/spec/findings.md): what {@link Finding#sign} writes, and each refusal of {@link Finding#read}. */
class FindingTest {
    private static final String EVIDENCE = TestFindings.computeEquivocation();

    private static Event valid() {
        return TestFindings.finding(Severity.S2, Scope.COMPUTE, "compute-equivocation", EVIDENCE);
    }

    /** The valid finding's tags with {@code change} applied, signed again by the observer. */
    private static Event tags(Consumer<List<List<String>>> change) {
        List<List<String>> tags = new ArrayList<>();
        valid().tags().forEach(t -> tags.add(new ArrayList<>(t)));
        change.accept(tags);
        return TestFindings.raw(tags, EVIDENCE);
    }

    private static void refused(Event e, String reason) {
        FindingException ex = assertThrows(FindingException.class, () -> Finding.read(e));
        assertEquals("invalid: " + reason, ex.getMessage());
    }

    private static int index(List<List<String>> tags, String name) {
        for (int i = 0; i < tags.size(); i++) {
            if (tags.get(i).get(0).equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException(name);
    }

    private static Consumer<List<List<String>>> set(String name, String... values) {
        return t -> {
            List<String> tag = new ArrayList<>(List.of(name));
            tag.addAll(List.of(values));
            t.set(index(t, name), tag);
        };
    }

    @Test
    void signWritesTheTagsInOrderAndReadReadsThemBack() throws Exception {
        Event e = valid();
        assertEquals(Finding.KIND, e.kind());
        assertEquals(List.of("p", "subject", "observer", "severity", "scope", "rule", "evidence", "alt"),
                e.tags().stream().map(t -> t.get(0)).toList());
        assertEquals(List.of("evidence", FindingEvidence.COMPUTE_EQUIVOCATION, TestFindings.hash(EVIDENCE)),
                e.tags().get(6));
        assertEquals("fleetmesh finding: S2 compute (compute-equivocation) against "
                + PeerIdentity.shortForm(SUBJECT_DID), e.firstTagValue("alt"));
        assertEquals(EVIDENCE, e.content());
        assertEquals(null, Events.verify(e));
        Finding f = Finding.read(e);
        assertEquals(OBSERVER_DID, f.observer());
        assertEquals(SUBJECT_KEY, f.subject());
        assertEquals(SUBJECT_DID, f.subjectDid());
        assertEquals(Severity.S2, f.severity());
        assertEquals(Scope.COMPUTE, f.scope());
        assertEquals("compute-equivocation", f.rule());
        assertEquals(FindingEvidence.COMPUTE_EQUIVOCATION, f.evidenceType());
        assertEquals(EVIDENCE, f.evidence());
        assertEquals(TestFindings.hash(EVIDENCE), f.evidenceDigest());
        assertEquals(List.of(), f.references());
    }

    @Test
    void eTagsAndUnknownTagsAreAllowed() throws Exception {
        String id = valid().id().hex();
        Finding f = Finding.read(tags(t -> {
            t.add(List.of("e", id, "wss://relay.example/"));
            t.add(List.of("x-later", "anything", "at", "all"));
        }));
        assertEquals(List.of(id), f.references());
    }

    @Test
    void aShortFormSubjectIsReadWithoutResolving() throws Exception {
        Finding f = Finding.read(tags(set("subject", PeerIdentity.shortForm(SUBJECT_DID))));
        assertEquals(PeerIdentity.shortForm(SUBJECT_DID), f.subjectDid());
    }

    @Test
    void signRefusesWhatReadWouldRefuse() {
        assertThrows(IllegalArgumentException.class, () -> TestFindings.finding(Severity.S0, Scope.TRANSIT, "x",
                EVIDENCE));
        assertThrows(IllegalArgumentException.class, () -> TestFindings.finding(Severity.S1, Scope.TRANSIT, "x",
                "[1]"));
    }

    @Test
    void refusesAnotherKind() {
        Event v = valid();
        refused(Events.sign(TestFindings.OBSERVER.nostr().bytes(), v.createdAt(), 1, v.tags(), v.content()),
                "kind 1 is not a finding (1804)");
    }

    @Test
    void refusesContentOverTheLimitBeforeReadingTags() {
        String big = "{\"type\":\"x\",\"pad\":\"" + "a".repeat(Finding.MAX_CONTENT_BYTES) + "\"}";
        refused(TestFindings.raw(List.of(), big), "content is " + big.length() + " bytes, over 60000");
    }

    @Test
    void refusesTagsWithTheWrongNumberOfValues() {
        for (String name : List.of("p", "subject", "observer", "severity", "scope", "rule", "alt")) {
            refused(tags(t -> t.get(index(t, name)).add("more")), name + " tag must have exactly one value");
        }
        refused(tags(set("evidence", FindingEvidence.COMPUTE_EQUIVOCATION)),
                "evidence tag must be [\"evidence\", <type>, <sha256 hex of the content>]");
        refused(tags(t -> t.add(List.of("e", "not an id"))), "e tag must name an event id (64 lower-case hex)");
        refused(tags(t -> t.add(List.of("e"))), "e tag must name an event id (64 lower-case hex)");
    }

    @Test
    void refusesDuplicates() {
        for (String name : List.of("p", "subject", "observer", "severity", "scope", "rule", "evidence", "alt")) {
            refused(tags(t -> t.add(new ArrayList<>(t.get(index(t, name))))), "duplicate " + name + " tag");
        }
    }

    @Test
    void refusesMissingTagsInOrder() {
        for (String name : List.of("p", "subject", "observer", "severity", "scope", "rule", "evidence")) {
            refused(tags(t -> t.remove(index(t, name))), "missing " + name + " tag");
        }
        refused(tags(t -> t.clear()), "missing p tag");
    }

    @Test
    void refusesBadValues() {
        refused(tags(set("p", SUBJECT_KEY.hex().toUpperCase())), "p must be a public key (64 lower-case hex)");
        refused(tags(set("subject", "not a did")), "subject is not a DID");
        refused(tags(set("observer", "did:")), "observer is not a DID");
        refused(tags(set("severity", "S0")), "severity S0 (clean) is never published");
        refused(tags(set("severity", "S4")), "severity must be S1, S2 or S3");
        refused(tags(set("severity", "s2")), "severity must be S1, S2 or S3");
        refused(tags(set("scope", "Transit")), "scope must be \"transit\" or \"compute\"");
        refused(tags(set("rule", "")), "rule must be 1..64 characters of [a-z0-9-], starting with a letter or digit");
        refused(tags(set("rule", "-x")), "rule must be 1..64 characters of [a-z0-9-], starting with a letter or digit");
        refused(tags(set("rule", "a".repeat(65))),
                "rule must be 1..64 characters of [a-z0-9-], starting with a letter or digit");
        refused(tags(set("evidence", "Bad Type", TestFindings.hash(EVIDENCE))),
                "evidence type must be 1..64 characters of [a-z0-9.-], starting with a letter or digit");
        refused(tags(set("evidence", FindingEvidence.COMPUTE_EQUIVOCATION, "00")),
                "evidence digest must be 64 lower-case hex");
        refused(tags(set("evidence", FindingEvidence.COMPUTE_EQUIVOCATION, TestFindings.hash(EVIDENCE + " "))),
                "the evidence digest is not the SHA-256 of the content");
    }

    @Test
    void refusesContentThatIsNotTheTypedObject() {
        for (String content : List.of("[]", "not json", "{\"type\":\"a\",\"type\":\"a\"}", "{\"type\":\"a\"} 1")) {
            List<List<String>> t = new ArrayList<>(valid().tags());
            t.set(6, List.of("evidence", "a", TestFindings.hash(content)));
            refused(TestFindings.raw(t, content), "content is not a JSON object (without duplicate names)");
        }
        String other = "{\"type\":\"b\"}";
        List<List<String>> t = new ArrayList<>(valid().tags());
        t.set(6, List.of("evidence", "a", TestFindings.hash(other)));
        refused(TestFindings.raw(t, other), "the content's \"type\" is not the evidence tag's a");
    }

    @Test
    void refusesAnObserverOrSubjectThatDoesNotMatchItsKeys() {
        refused(tags(set("observer", PeerIdentity.shortForm(OBSERVER_DID))), "observer does not resolve offline: notFound: no long "
                + "form is known for " + PeerIdentity.shortForm(OBSERVER_DID)
                + "; a did:peer:4 short form resolves only after it");
        refused(tags(set("observer", TestFindings.THIRD_DID)), "the event is not signed by a Nostr key of the observer");
        refused(tags(set("subject", "did:example:123")), "subject does not resolve offline: methodNotSupported: "
                + "did:example is not supported (did:key, did:peer and did:nostr are)");
        refused(tags(set("subject", TestFindings.THIRD_DID)), "p is not a Nostr key of the subject");
        refused(tags(t -> {
            t.set(index(t, "subject"), List.of("subject", OBSERVER_DID));
            t.set(index(t, "p"), List.of("p", TestFindings.OBSERVER_KEY.hex()));
        }), "the observer is the subject");
    }
}
