package org.fleetmesh.standing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import org.fleetmesh.identity.DidPeer4;
import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.nostr.Signature;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A finding (docs/spec/findings.md): a regular kind 1804 event in which an observer states, with the evidence inline,
 * that a subject broke a rule. Tags, in this order: {@code p} (the subject's Nostr key), {@code subject} (its DID),
 * {@code observer} (the observer's DID, resolvable offline), {@code severity} (S1..S3), {@code scope}
 * ({@code transit} or {@code compute}), {@code rule}, {@code evidence} (type and SHA-256 of the content), {@code alt}
 * (NIP-31); any number of {@code e} tags may follow. The content is the evidence JSON object.
 *
 * @param observer the observer's DID as written (a form that resolves offline)
 * @param subjectDid the subject's DID as written
 * @param evidence the evidence JSON object, the event's content
 */
public record Finding(Event event, String observer, PubKey subject, String subjectDid, Severity severity, Scope scope,
        String rule, String evidenceType, String evidence) {
    public static final int KIND = 1804;
    /** The largest content, in UTF-8 bytes, a finding may carry. */
    public static final int MAX_CONTENT_BYTES = 60_000;
    private static final List<String> SINGLE = List.of("p", "subject", "observer", "severity", "scope", "rule", "alt");
    private static final List<String> REQUIRED = List.of("p", "subject", "observer", "severity", "scope", "rule",
            "evidence");
    private static final Pattern RULE = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
    private static final Pattern TYPE = Pattern.compile("[a-z0-9][a-z0-9.-]{0,63}");

    public Finding {
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(observer, "observer");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(subjectDid, "subjectDid");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(evidenceType, "evidenceType");
        Objects.requireNonNull(evidence, "evidence");
    }

    /**
     * The finding event, signed with the observer's Nostr secret (random BIP-340 aux). The evidence type is the
     * evidence object's {@code type}.
     *
     * @throws IllegalArgumentException when the values cannot make a finding {@link #read} accepts
     */
    public static Event sign(String observerDid, PubKey subject, String subjectDid, Severity severity, Scope scope,
            String rule, String evidenceJson, long createdAt, byte[] nostrSecret) {
        return sign(observerDid, subject, subjectDid, severity, scope, rule, evidenceJson, createdAt, nostrSecret,
                null);
    }

    /** As {@link #sign(String, PubKey, String, Severity, Scope, String, String, long, byte[])} with given aux (vectors). */
    static Event sign(String observerDid, PubKey subject, String subjectDid, Severity severity, Scope scope,
            String rule, String evidenceJson, long createdAt, byte[] nostrSecret, byte[] auxRand) {
        List<List<String>> tags = tags(observerDid, subject, subjectDid, severity, scope, rule, evidenceJson);
        PubKey pubkey = new PubKey(Schnorr.publicKey(nostrSecret));
        EventId id = Events.computeId(pubkey, createdAt, KIND, tags, evidenceJson);
        byte[] sig = auxRand == null ? Schnorr.sign(id.unsafeBytes(), nostrSecret)
                : Schnorr.sign(id.unsafeBytes(), nostrSecret, auxRand);
        Event e = new Event(id, pubkey, createdAt, KIND, tags, evidenceJson, new Signature(sig));
        try {
            read(e);
        } catch (FindingException ex) {
            throw new IllegalArgumentException("not a finding: " + ex.getMessage());
        }
        return e;
    }

    /** The tags of a finding, in their order. */
    public static List<List<String>> tags(String observerDid, PubKey subject, String subjectDid, Severity severity,
            Scope scope, String rule, String evidenceJson) {
        String type = FindingEvidence.typeOf(evidenceJson);
        if (type == null) {
            throw new IllegalArgumentException("the evidence is not a JSON object with a string \"type\"");
        }
        String digest = Hex.encode(Events.sha256(evidenceJson.getBytes(StandardCharsets.UTF_8)));
        return List.of(List.of("p", subject.hex()), List.of("subject", subjectDid), List.of("observer", observerDid),
                List.of("severity", severity.name()), List.of("scope", scope.wire()), List.of("rule", rule),
                List.of("evidence", type, digest), List.of("alt", alt(severity, scope, rule, subjectDid)));
    }

    /** The NIP-31 text a client that does not know kind 1804 shows. */
    static String alt(Severity severity, Scope scope, String rule, String subjectDid) {
        return "fleetmesh finding: " + severity.name() + " " + scope.wire() + " (" + rule + ") against "
                + DidKeys.shortForm(subjectDid);
    }

    /**
     * Reads a finding, checking in the order of docs/spec/findings.md "What a reader rejects" and refusing with the
     * first reason ({@code invalid: ...}). It does not check the event's id and signature: the relay did before it
     * stored the event.
     */
    public static Finding read(Event e) throws FindingException {
        if (e.kind() != KIND) {
            throw refuse("kind " + e.kind() + " is not a finding (" + KIND + ")");
        }
        byte[] content = e.content().getBytes(StandardCharsets.UTF_8);
        if (content.length > MAX_CONTENT_BYTES) {
            throw refuse("content is " + content.length + " bytes, over " + MAX_CONTENT_BYTES);
        }
        Map<String, List<String>> values = new HashMap<>();
        for (List<String> t : e.tags()) {
            if (t.isEmpty()) {
                continue;
            }
            String name = t.get(0);
            if (SINGLE.contains(name)) {
                if (t.size() != 2) {
                    throw refuse(name + " tag must have exactly one value");
                }
            } else if (name.equals("evidence")) {
                if (t.size() != 3) {
                    throw refuse("evidence tag must be [\"evidence\", <type>, <sha256 hex of the content>]");
                }
            } else if (name.equals("e")) {
                if (t.size() < 2 || !Hex.isLowerHex(t.get(1), 64)) {
                    throw refuse("e tag must name an event id (64 lower-case hex)");
                }
                continue;
            } else {
                continue; // other tags are allowed and ignored, so a later version can add some
            }
            if (values.put(name, t) != null) {
                throw refuse("duplicate " + name + " tag");
            }
        }
        for (String name : REQUIRED) {
            if (!values.containsKey(name)) {
                throw refuse("missing " + name + " tag");
            }
        }
        String p = values.get("p").get(1);
        if (!Hex.isLowerHex(p, 64)) {
            throw refuse("p must be a public key (64 lower-case hex)");
        }
        String subjectDid = values.get("subject").get(1);
        if (!isDid(subjectDid)) {
            throw refuse("subject is not a DID");
        }
        String observer = values.get("observer").get(1);
        if (!isDid(observer)) {
            throw refuse("observer is not a DID");
        }
        String sev = values.get("severity").get(1);
        Severity severity = Severity.parse(sev);
        if (severity == Severity.S0) {
            throw refuse("severity S0 (clean) is never published");
        }
        if (severity == null) {
            throw refuse("severity must be S1, S2 or S3");
        }
        Scope scope = Scope.parse(values.get("scope").get(1));
        if (scope == null) {
            throw refuse("scope must be \"transit\" or \"compute\"");
        }
        String rule = values.get("rule").get(1);
        if (!RULE.matcher(rule).matches()) {
            throw refuse("rule must be 1..64 characters of [a-z0-9-], starting with a letter or digit");
        }
        List<String> ev = values.get("evidence");
        String type = ev.get(1);
        if (!TYPE.matcher(type).matches()) {
            throw refuse("evidence type must be 1..64 characters of [a-z0-9.-], starting with a letter or digit");
        }
        if (!Hex.isLowerHex(ev.get(2), 64)) {
            throw refuse("evidence digest must be 64 lower-case hex");
        }
        if (!Hex.encode(Events.sha256(content)).equals(ev.get(2))) {
            throw refuse("the evidence digest is not the SHA-256 of the content");
        }
        JsonNode object = FindingEvidence.object(e.content());
        if (object == null) {
            throw refuse("content is not a JSON object (without duplicate names)");
        }
        JsonNode written = object.get("type");
        if (written == null || !written.isTextual() || !written.textValue().equals(type)) {
            throw refuse("the content's \"type\" is not the evidence tag's " + type);
        }
        List<PubKey> observerKeys;
        try {
            observerKeys = DidKeys.of(observer);
        } catch (DidResolutionException ex) {
            throw refuse("observer does not resolve offline: " + ex.getMessage());
        }
        if (!observerKeys.contains(e.pubkey())) {
            throw refuse("the event is not signed by a Nostr key of the observer");
        }
        PubKey subject = PubKey.ofHex(p);
        if (!DidPeer4.isShortForm(subjectDid)) {
            List<PubKey> subjectKeys;
            try {
                subjectKeys = DidKeys.of(subjectDid);
            } catch (DidResolutionException ex) {
                throw refuse("subject does not resolve offline: " + ex.getMessage());
            }
            if (!subjectKeys.contains(subject)) {
                throw refuse("p is not a Nostr key of the subject");
            }
        }
        if (DidKeys.shortForm(subjectDid).equals(DidKeys.shortForm(observer))) {
            throw refuse("the observer is the subject");
        }
        return new Finding(e, observer, subject, subjectDid, severity, scope, rule, type, e.content());
    }

    /** The event ids of the {@code e} tags, in order. */
    public List<String> references() {
        List<String> out = new ArrayList<>();
        for (List<String> t : event.tags()) {
            if (t.size() >= 2 && t.get(0).equals("e")) {
                out.add(t.get(1));
            }
        }
        return out;
    }

    /** SHA-256 hex of the content: one evidence counts once, however many findings carry it. */
    public String evidenceDigest() {
        return Hex.encode(Events.sha256(evidence.getBytes(StandardCharsets.UTF_8)));
    }

    /** The longest DID a tag may hold: a did:peer:4 long form carries its whole document. */
    static final int MAX_DID_LENGTH = 4096;

    static boolean isDid(String s) {
        return DidResolver.isDid(s, MAX_DID_LENGTH);
    }

    private static FindingException refuse(String why) {
        return new FindingException("invalid: " + why);
    }
}
