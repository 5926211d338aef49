package org.fleetmesh.identity;

import org.fleetmesh.identity.multiformats.Multibase;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * did:peer (DIF Peer DID Method): numalgo 0 here, numalgo 2 in {@link DidPeer2}, numalgo 4 in {@link DidPeer4}.
 * Numalgo 1 was never implementable without a shared store and numalgo 3 only abbreviates a numalgo 2 a peer
 * already holds, so neither resolves here.
 */
public final class DidPeer {
    public static final String PREFIX = "did:peer:";
    public static final String NUMALGO_0 = PREFIX + "0";

    private DidPeer() {
    }

    /** Numalgo 0, "inception key without doc": a did:key by another name. */
    public static String numalgo0(Multikey key) {
        return NUMALGO_0 + key.encode();
    }

    /** The inception key of a numalgo 0 DID. */
    public static Multikey parseNumalgo0(String did) {
        if (did == null || !did.startsWith(NUMALGO_0)) {
            throw DidResolutionException.invalidDid("a did:peer:0 starts with '" + NUMALGO_0 + "'");
        }
        String value = did.substring(NUMALGO_0.length());
        if (value.isEmpty() || value.charAt(0) != Multibase.BASE58BTC.prefix()) {
            throw DidResolutionException.invalidDid("did:peer:0 needs a base58btc multibase key starting with 'z'");
        }
        return Multikey.decode(value);
    }

    /**
     * Resolves numalgo 0, 2, and 4 in long form. A numalgo 4 short form is {@code notFound} here: only a
     * {@link DidResolver} that has seen its long form can resolve it.
     */
    public static ObjectNode resolve(String did) {
        if (did == null || !did.startsWith(PREFIX) || did.length() == PREFIX.length()) {
            throw DidResolutionException.invalidDid("a did:peer starts with '" + PREFIX + "' and a numalgo digit");
        }
        char numalgo = did.charAt(PREFIX.length());
        return switch (numalgo) {
            case '0' -> DidKey.document(did, parseNumalgo0(did), PublicKeyFormat.MULTIKEY);
            case '2' -> DidPeer2.resolve(did);
            case '4' -> {
                if (DidPeer4.isShortForm(did)) {
                    throw new DidResolutionException(ResolutionError.NOT_FOUND,
                            "a did:peer:4 short form resolves only once its long form is known");
                }
                yield DidPeer4.parse(did).resolve();
            }
            case '1', '3' -> throw new DidResolutionException(ResolutionError.METHOD_NOT_SUPPORTED,
                    "did:peer numalgo " + numalgo + " is not supported (0, 2 and 4 are)");
            default -> throw DidResolutionException.invalidDid("'" + numalgo + "' is not a did:peer numalgo");
        };
    }
}
