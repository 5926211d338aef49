package org.fleetmesh.peering.grant;

import java.security.SecureRandom;
import java.util.List;
import java.util.regex.Pattern;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.nostr.Signature;

/**
 * A bilateral grant, kind 30801 (docs/spec/grants.md): an addressable event signed by the grantor's Nostr key,
 * {@code d} = the grantee's DID, carrying the {@link GrantTerms}. Only {@link #sign} and {@link #parse} make one, so
 * every instance is authentic and well formed; whether it has expired depends on when it is asked.
 */
public final class Grant {
    public static final int KIND = 30801;
    /** The grant format this code writes and the only one it reads. */
    public static final String VERSION = "1";

    private static final Pattern DECIMAL = Pattern.compile("0|[1-9][0-9]{0,18}");
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final GrantTerms terms;
    private final Event event;

    private Grant(GrantTerms terms, Event event) {
        this.terms = terms;
        this.event = event;
    }

    /** Signs {@code terms} with the grantor's Nostr secret key. */
    public static Grant sign(GrantTerms terms, byte[] grantorSecretKey, long createdAt) {
        byte[] aux = new byte[32];
        RANDOM.nextBytes(aux);
        return sign(terms, grantorSecretKey, createdAt, aux);
    }

    /** Signs with the given BIP-340 auxiliary randomness (the spec's test vector uses 32 zero bytes). */
    public static Grant sign(GrantTerms terms, byte[] grantorSecretKey, long createdAt, byte[] auxRand32) {
        if (createdAt < 0 || createdAt > terms.expiration()) {
            throw new IllegalArgumentException("a grant must be created before it expires");
        }
        PubKey pubkey = new PubKey(Schnorr.publicKey(grantorSecretKey));
        List<List<String>> tags = tags(terms);
        EventId id = Events.computeId(pubkey, createdAt, KIND, tags, "");
        Signature sig = new Signature(Schnorr.sign(id.unsafeBytes(), grantorSecretKey, auxRand32));
        return new Grant(terms, new Event(id, pubkey, createdAt, KIND, tags, "", sig));
    }

    /** The tags of a grant, in the order this code writes them. */
    public static List<List<String>> tags(GrantTerms t) {
        return List.of(
                List.of("d", t.granteeDid()),
                List.of("v", VERSION),
                List.of("link", t.grantorDid(), t.granteeDid()),
                List.of("bytes", Long.toString(t.bytesPerWindow())),
                List.of("events", Long.toString(t.eventsPerWindow())),
                List.of("window", Long.toString(t.windowSeconds())),
                List.of("tier", Integer.toString(t.tier())),
                List.of("expiration", Long.toString(t.expiration())));
    }

    /** Reads a grant from its event JSON, valid at {@code nowSeconds}. */
    public static Grant parse(String json, long nowSeconds) throws GrantException {
        Event e;
        try {
            e = PARSER.parseEvent(json);
        } catch (ProtocolException ex) {
            throw new GrantException(ex.getMessage());
        }
        return parse(e, nowSeconds);
    }

    /**
     * Validates {@code e} as a grant at {@code nowSeconds}, cheapest checks first: kind, tags, expiry, then id and
     * signature. The reason names the first rule broken.
     */
    public static Grant parse(Event e, long nowSeconds) throws GrantException {
        if (e.kind() != KIND) {
            throw new GrantException("kind " + e.kind() + " is not a grant (" + KIND + ")");
        }
        String d = null, v = null, grantor = null, linkGrantee = null;
        Long bytes = null, events = null, window = null, tier = null, expiration = null;
        for (List<String> tag : e.tags()) {
            if (tag.isEmpty()) {
                continue;
            }
            switch (tag.get(0)) {
                case "d" -> d = once(d, "d", value(tag));
                case "v" -> v = once(v, "v", value(tag));
                case "link" -> {
                    if (grantor != null) {
                        throw new GrantException("duplicate link tag");
                    }
                    if (tag.size() != 3) {
                        throw new GrantException("link tag must be [\"link\", <grantor DID>, <grantee DID>]");
                    }
                    grantor = tag.get(1);
                    linkGrantee = tag.get(2);
                }
                case "bytes" -> bytes = once(bytes, "bytes", number(tag));
                case "events" -> events = once(events, "events", number(tag));
                case "window" -> window = once(window, "window", number(tag));
                case "tier" -> tier = once(tier, "tier", number(tag));
                case "expiration" -> expiration = once(expiration, "expiration", number(tag));
                default -> {
                    // other tags are allowed and ignored, so a later version can add some
                }
            }
        }
        require(d, "d");
        require(v, "v");
        if (!VERSION.equals(v)) {
            throw new GrantException("unsupported grant version " + quote(v) + " (this node reads " + VERSION + ")");
        }
        require(grantor, "link");
        require(bytes, "bytes");
        require(events, "events");
        require(window, "window");
        require(tier, "tier");
        require(expiration, "expiration");
        if (!d.equals(linkGrantee)) {
            throw new GrantException("the link's grantee is not the d tag");
        }
        if (tier > GrantTerms.MAX_TIER) {
            throw new GrantException("tier must be 0.." + GrantTerms.MAX_TIER);
        }
        String problem = GrantTerms.problem(grantor, d, bytes, events, window, tier.intValue(), expiration);
        if (problem != null) {
            throw new GrantException(problem);
        }
        if (e.createdAt() > expiration) {
            throw new GrantException("the grant expires before it was created");
        }
        if (nowSeconds >= expiration) {
            throw new GrantException("the grant expired at " + expiration);
        }
        String forged = Events.verify(e);
        if (forged != null) {
            throw new GrantException(forged);
        }
        return new Grant(new GrantTerms(grantor, d, bytes, events, window, tier.intValue(), expiration), e);
    }

    private static String value(List<String> tag) throws GrantException {
        if (tag.size() != 2) {
            throw new GrantException(tag.get(0) + " tag must have exactly one value");
        }
        return tag.get(1);
    }

    private static long number(List<String> tag) throws GrantException {
        String s = value(tag);
        if (!DECIMAL.matcher(s).matches()) {
            throw new GrantException(tag.get(0) + " must be a decimal integer without sign or leading zeros, was "
                    + quote(s));
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException ex) {
            throw new GrantException(tag.get(0) + " is out of range");
        }
    }

    private static <T> T once(T previous, String name, T value) throws GrantException {
        if (previous != null) {
            throw new GrantException("duplicate " + name + " tag");
        }
        return value;
    }

    private static void require(Object value, String name) throws GrantException {
        if (value == null) {
            throw new GrantException("missing " + name + " tag");
        }
    }

    private static String quote(String s) {
        return org.fleetmesh.nostr.NostrJson.quote(s.length() > 64 ? s.substring(0, 64) + "..." : s);
    }

    public GrantTerms terms() {
        return terms;
    }

    public Event event() {
        return event;
    }

    /** The grantor's Nostr key; the caller checks it is the key the grantor's DID proved. */
    public PubKey grantor() {
        return event.pubkey();
    }

    /** Valid until its expiration: false from that second on. */
    public boolean validAt(long nowSeconds) {
        return nowSeconds < terms.expiration();
    }

    /** The NIP-01 address: {@code 30801:<grantor pubkey hex>:<grantee DID>}; a newer grant replaces an older one. */
    public String address() {
        return KIND + ":" + event.pubkey().hex() + ":" + terms.granteeDid();
    }

    @Override
    public String toString() {
        return event.json();
    }
}
