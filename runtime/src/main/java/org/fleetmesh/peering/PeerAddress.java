package org.fleetmesh.peering;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.fleetmesh.identity.DidKey;
import org.fleetmesh.identity.DidPeer4;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.nostr.Snippet;

/**
 * A declared peer: {@code <did>@<ws-url>} (docs/spec/mesh-link.md, "Peers"). The DID is a did:peer:4 (long or short
 * form) or the did:key of the peer's Ed25519 transport key; the URL its {@code /mesh} (ws:// or wss://).
 *
 * @param did the DID as declared
 * @param url where the peer is dialled
 */
public record PeerAddress(String did, URI url) {
    /** Longest declared DID: a did:peer:4 long form is about 1,400 characters. */
    public static final int MAX_DID_LENGTH = 8192;

    public PeerAddress {
        Objects.requireNonNull(did, "did");
        Objects.requireNonNull(url, "url");
        checkDid(did);
        checkUrl(url);
    }

    /** Parses one {@code <did>@<ws-url>}; throws {@link IllegalArgumentException} with the reason. */
    public static PeerAddress parse(String text) {
        String t = text.strip();
        int at = t.indexOf('@');
        if (at <= 0 || at == t.length() - 1) {
            throw new IllegalArgumentException("a peer is <did>@<ws-url>, not \"" + Snippet.of(t) + "\"");
        }
        URI url;
        try {
            url = new URI(t.substring(at + 1));
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("the URL of peer \"" + Snippet.of(t) + "\" is not a URI: " + e.getReason());
        }
        return new PeerAddress(t.substring(0, at), url);
    }

    /**
     * Parses {@code FLEETMESH_PEERS}: comma-separated {@code <did>@<ws-url>}, blanks ignored; a DID named twice is an
     * error (two URLs for one peer).
     */
    public static List<PeerAddress> parseList(String text) {
        Map<String, PeerAddress> byKey = new LinkedHashMap<>();
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            PeerAddress p = parse(part);
            if (byKey.putIfAbsent(p.key(), p) != null) {
                throw new IllegalArgumentException("peer " + Snippet.of(p.key()) + " is declared twice");
            }
        }
        return new ArrayList<>(byKey.values());
    }

    /** What this node keys the peer by: the did:peer:4 short form, or the did:key. */
    public String key() {
        return keyOf(did);
    }

    /** The DID the handshake expects of the responder, so that it refuses another before signing anything. */
    public java.util.Optional<String> handshakeExpectation() {
        return java.util.Optional.of(did);
    }

    /**
     * Whether {@code proven} is this peer: the same did:peer:4 (a long form is equal to its short form's holder), or,
     * for a did:key, the key that signed the proof.
     */
    public boolean matches(PeerIdentity proven) {
        return matches(did, proven);
    }

    static boolean matches(String declared, PeerIdentity proven) {
        if (declared.startsWith(DidKey.PREFIX)) {
            return declared.equals(DidKey.of(proven.transport()));
        }
        return keyOf(declared).equals(PeerIdentity.shortForm(proven.did()));
    }

    /**
     * Whether a peer's announced {@code /mesh} URL should replace the one this node dials: not when it names a
     * loopback host (a node that was never told its public address announces {@code localhost}) and the current
     * one does not, since from here that would name this node itself.
     */
    public static boolean worthLearning(URI current, URI announced) {
        return !announced.equals(current) && (!isLoopback(announced) || isLoopback(current));
    }

    static boolean isLoopback(URI url) {
        String host = url.getHost();
        if (host == null) {
            return false;
        }
        String h = host.toLowerCase(java.util.Locale.ROOT);
        return h.equals("localhost") || h.endsWith(".localhost") || h.startsWith("127.") || h.equals("[::1]")
                || h.equals("::1");
    }

    /** The key of any declared DID (see {@link #key()}); {@link IllegalArgumentException} for one not accepted. */
    public static String keyOf(String did) {
        checkDid(did);
        return PeerIdentity.shortForm(did);
    }

    private static void checkDid(String did) {
        if (did.length() > MAX_DID_LENGTH) {
            throw new IllegalArgumentException("a peer DID is at most " + MAX_DID_LENGTH + " characters");
        }
        if (did.startsWith(DidPeer4.PREFIX)) {
            if (DidPeer4.isShortForm(did)) {
                return;
            }
            try {
                DidPeer4.parse(did);
                return;
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("not a did:peer:4: " + Snippet.of(did) + " (" + e.getMessage() + ")");
            }
        }
        if (did.startsWith(DidKey.PREFIX)) {
            Multikey key;
            try {
                key = DidKey.parse(did);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("not a did:key: " + Snippet.of(did) + " (" + e.getMessage() + ")");
            }
            if (key.type() != KeyType.ED25519) {
                throw new IllegalArgumentException("a peer's did:key is its Ed25519 transport key, not " + key.type());
            }
            return;
        }
        throw new IllegalArgumentException("a peer is declared by did:peer:4 or did:key, not " + Snippet.of(did));
    }

    private static void checkUrl(URI url) {
        String scheme = url.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("ws") || scheme.equalsIgnoreCase("wss"))) {
            throw new IllegalArgumentException("a peer's URL is ws:// or wss://, not " + Snippet.of(url.toString()));
        }
        if (url.getHost() == null || url.getHost().isEmpty()) {
            throw new IllegalArgumentException("a peer's URL names a host: " + Snippet.of(url.toString()));
        }
    }

    @Override
    public String toString() {
        return key() + "@" + url;
    }
}
