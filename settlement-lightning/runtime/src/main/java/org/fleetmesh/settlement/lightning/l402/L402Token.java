package org.fleetmesh.settlement.lightning.l402;

import java.util.Locale;

import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.settlement.lightning.macaroon.Caveat;
import org.fleetmesh.settlement.lightning.macaroon.Macaroon;

/**
 * Minting and checking the macaroons of the paid export. A token is a V2 macaroon whose
 * identifier is an {@link L402Identifier} and whose first-party caveats are
 * <ul>
 * <li>{@code expiry=<unix seconds>}: usable while now &lt; expiry;</li>
 * <li>{@code filter=<64 hex>}: SHA-256 of the canonical filter it was bought for ({@link L402Filters#hash});</li>
 * <li>{@code quota=<n>}: at most n events per request.</li>
 * </ul>
 * A holder may attenuate a token by appending more caveats of these kinds; every caveat must hold
 * (so the earliest expiry and the smallest quota win). Any other caveat is refused, as is a token
 * missing one of the three. Checking never contacts the Lightning node: the preimage proves payment.
 */
public final class L402Token {
    public static final String EXPIRY = "expiry";
    public static final String FILTER = "filter";
    public static final String QUOTA = "quota";

    private L402Token() {
    }

    /** What a token grants. */
    public record Terms(long expiresAt, String filterHash, long quota) {
        public Terms {
            if (expiresAt < 0 || quota < 0) {
                throw new IllegalArgumentException("expiry and quota are not negative");
            }
            if (filterHash == null || filterHash.length() != 64 || !filterHash.equals(filterHash.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("the filter hash is 64 lower-case hex characters");
            }
        }
    }

    public static Macaroon mint(byte[] rootKey, String location, L402Identifier id, Terms terms) {
        return Macaroon.mint(rootKey, location, id.encode())
                .addFirstPartyCaveat(EXPIRY + "=" + terms.expiresAt())
                .addFirstPartyCaveat(FILTER + "=" + terms.filterHash())
                .addFirstPartyCaveat(QUOTA + "=" + terms.quota());
    }

    /** A token that passed every check but the quota, which needs the store: see {@link #quota()}. */
    public record Verified(L402Identifier identifier, long expiresAt, long quota) {
    }

    /**
     * Checks, in this order, the signature with {@code rootKey}, the identifier layout, that the
     * preimage hashes to the identifier's payment hash, and every caveat against {@code now} and the
     * request's filter hash. Throws {@link L402Refusal} with BAD_TOKEN, WRONG_PREIMAGE, UNKNOWN_CAVEAT,
     * EXPIRED or FILTER_MISMATCH.
     */
    public static Verified verify(L402Credentials credentials, byte[] rootKey, long now, String requestFilterHash) {
        Macaroon m = credentials.macaroon();
        if (!m.verifySignature(rootKey)) {
            throw refuse(L402Refusal.Code.BAD_TOKEN, "token signature does not verify (not issued by this node, or altered)");
        }
        L402Identifier id;
        try {
            id = L402Identifier.decode(m.identifier());
        } catch (IllegalArgumentException e) {
            throw refuse(L402Refusal.Code.BAD_TOKEN, "token identifier: " + e.getMessage());
        }
        if (!credentials.preimage().unlocks(id.paymentHash())) {
            throw refuse(L402Refusal.Code.WRONG_PREIMAGE,
                    "the preimage does not hash to the token's payment hash " + id.paymentHash().hex());
        }
        long expiry = Long.MAX_VALUE, quota = Long.MAX_VALUE;
        boolean sawExpiry = false, sawFilter = false, sawQuota = false;
        for (Caveat c : m.caveats()) {
            String pred = c.predicate();
            int eq = pred.indexOf('=');
            if (!c.isFirstParty() || eq < 0) {
                throw refuse(L402Refusal.Code.UNKNOWN_CAVEAT, "unknown caveat " + describe(c));
            }
            String key = pred.substring(0, eq).strip();
            String value = pred.substring(eq + 1).strip();
            switch (key) {
                case EXPIRY -> {
                    long e = number(value, pred);
                    sawExpiry = true;
                    expiry = Math.min(expiry, e);
                    if (now >= e) {
                        throw refuse(L402Refusal.Code.EXPIRED, "token expired at " + e + " (now " + now + ")");
                    }
                }
                case FILTER -> {
                    sawFilter = true;
                    if (!value.equals(requestFilterHash)) {
                        throw refuse(L402Refusal.Code.FILTER_MISMATCH, "the token was bought for filter sha256 " + clip(value)
                                + ", this request's filter is " + requestFilterHash);
                    }
                }
                case QUOTA -> {
                    sawQuota = true;
                    quota = Math.min(quota, number(value, pred));
                }
                default -> throw refuse(L402Refusal.Code.UNKNOWN_CAVEAT, "unknown caveat " + describe(c));
            }
        }
        if (!sawExpiry || !sawFilter || !sawQuota) {
            throw refuse(L402Refusal.Code.BAD_TOKEN, "token lacks an expiry, filter or quota caveat");
        }
        return new Verified(id, expiry, quota);
    }

    private static long number(String value, String predicate) {
        if (value.isEmpty() || value.length() > 18 || !value.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            throw refuse(L402Refusal.Code.UNKNOWN_CAVEAT, "caveat " + NostrJson.quote(clip(predicate)) + " needs a non-negative integer");
        }
        return Long.parseLong(value);
    }

    private static String describe(Caveat c) {
        return c.isFirstParty() ? NostrJson.quote(clip(c.predicate())) : "(third-party caveat)";
    }

    private static String clip(String s) {
        return s.length() > 100 ? s.substring(0, 100) + "..." : s;
    }

    private static L402Refusal refuse(L402Refusal.Code code, String message) {
        return new L402Refusal(code, message);
    }
}
