package org.fleetmesh.standing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.identity.DidPeer4;
import org.fleetmesh.identity.DidResolutionException;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.peering.PeerIdentity;

/**
 * The Nostr keys of DIDs, resolved offline, with the latest {@value #REMEMBERED} answers remembered: decoding a
 * did:peer:4 long form costs about a millisecond (its base58 document), and every finding names two DIDs that are
 * mostly the same few peers. A memo of a pure function: it changes how fast an answer comes, never the answer.
 */
final class DidKeys {
    static final int REMEMBERED = 256;
    private static final Map<String, Object> MEMO = new LinkedHashMap<>(REMEMBERED * 2, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Object> eldest) {
            return size() > REMEMBERED;
        }
    };

    private static final Map<String, String> SHORT = new LinkedHashMap<>(REMEMBERED * 2, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > REMEMBERED;
        }
    };

    private DidKeys() {
    }

    /** How many answers are remembered now (of keys, of short forms): at most {@value #REMEMBERED} each. */
    static int[] remembered() {
        synchronized (MEMO) {
            synchronized (SHORT) {
                return new int[] { MEMO.size(), SHORT.size() };
            }
        }
    }

    /** {@link PeerIdentity#shortForm}, which decodes (and so checks) a did:peer:4 long form to find its short form. */
    static String shortForm(String did) {
        if (!did.startsWith(DidPeer4.PREFIX)) {
            return did;
        }
        String known;
        synchronized (SHORT) {
            known = SHORT.get(did);
        }
        if (known == null) {
            known = PeerIdentity.shortForm(did);
            synchronized (SHORT) {
                SHORT.put(did, known);
            }
        }
        return known;
    }

    /**
     * {@link DidResolver#nostrKeys} of the offline resolver.
     *
     * @throws DidResolutionException when {@code did} does not resolve (the same answer every time)
     */
    @SuppressWarnings("unchecked")
    static List<PubKey> of(String did) {
        Object known;
        synchronized (MEMO) {
            known = MEMO.get(did);
        }
        if (known == null) {
            try {
                known = List.copyOf(DidResolver.offline().nostrKeys(did));
            } catch (DidResolutionException e) {
                known = e;
            }
            synchronized (MEMO) {
                MEMO.put(did, known);
            }
        }
        if (known instanceof DidResolutionException e) {
            throw e; // the remembered refusal: its message is the answer
        }
        return (List<PubKey>) known;
    }
}
