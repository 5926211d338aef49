package org.fleetmesh.settlement.lightning.l402;

import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.settlement.lightning.macaroon.Macaroon;
import org.fleetmesh.settlement.lightning.macaroon.MacaroonException;
import org.fleetmesh.spi.settlement.Preimage;

/**
 * The credentials of an {@code Authorization} header. Accepted forms (scheme case-insensitive,
 * surrounding whitespace ignored):
 * <ul>
 * <li>{@code L402 <base64 macaroon>:<preimage>}, the bLIP-26 form, and the same with the legacy scheme {@code LSAT};</li>
 * <li>that token68 in double quotes;</li>
 * <li>auth-params {@code L402 token="<base64 macaroon>", preimage="<preimage>"} (also {@code macaroon=} for {@code token=},
 *     and an optional {@code version="0"}).</li>
 * </ul>
 * The preimage is 64 hex characters (the current spec) or the base64 of its 32 bytes (the old LSAT
 * text). Only one macaroon is accepted: this server issues one per token.
 */
public record L402Credentials(Macaroon macaroon, Preimage preimage) {
    private static final java.util.Set<String> PARAM_NAMES = java.util.Set.of("token", "macaroon", "preimage", "version");

    /**
     * Empty when the header is absent or uses another scheme (then the client has no L402 yet);
     * {@link L402Refusal.Code#MALFORMED_AUTHORIZATION} or {@link L402Refusal.Code#BAD_TOKEN} when it
     * names L402/LSAT and cannot be read.
     */
    public static Optional<L402Credentials> parse(String header) {
        if (header == null || header.isBlank()) {
            return Optional.empty();
        }
        AuthParams.Split split = AuthParams.split(header);
        String scheme = split.scheme().toUpperCase(Locale.ROOT);
        if (!scheme.equals("L402") && !scheme.equals("LSAT")) {
            return Optional.empty();
        }
        String rest = split.rest();
        if (rest.isEmpty()) {
            throw malformed(split.scheme() + " without credentials");
        }
        String mac, pre;
        if (AuthParams.looksLikeParams(rest, PARAM_NAMES)) {
            Map<String, String> params;
            try {
                params = AuthParams.parse(rest);
            } catch (IllegalArgumentException e) {
                throw malformed(e.getMessage());
            }
            String version = params.get("version");
            if (version != null && !version.equals("0")) {
                throw malformed("unsupported L402 version " + version);
            }
            String token = params.get("token");
            String legacy = params.get("macaroon");
            if (token != null && legacy != null) {
                throw malformed("both token and macaroon given");
            }
            mac = token != null ? token : legacy;
            pre = params.get("preimage");
            if (mac == null || pre == null) {
                throw malformed("credentials need token (or macaroon) and preimage");
            }
        } else {
            String t = rest;
            if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
                t = t.substring(1, t.length() - 1).strip();
            }
            int colon = t.indexOf(':');
            if (colon < 0 || colon != t.lastIndexOf(':')) {
                throw malformed("expected <macaroon>:<preimage>");
            }
            mac = t.substring(0, colon).strip();
            pre = t.substring(colon + 1).strip();
            if (mac.isEmpty() || pre.isEmpty()) {
                throw malformed("expected <macaroon>:<preimage>");
            }
            if (mac.indexOf('"') >= 0 || pre.indexOf('"') >= 0) {
                throw malformed("unbalanced quotes");
            }
        }
        if (mac.indexOf(',') >= 0) {
            throw malformed("more than one macaroon: this server issues exactly one per token");
        }
        for (int i = 0; i < mac.length(); i++) {
            char c = mac.charAt(i);
            if (c <= ' ' || c == 0x7f) {
                throw malformed("macaroon contains whitespace or control characters");
            }
        }
        Preimage preimage = preimage(pre);
        Macaroon macaroon;
        try {
            macaroon = Macaroon.fromBase64(mac);
        } catch (MacaroonException e) {
            throw new L402Refusal(L402Refusal.Code.BAD_TOKEN, "token is not a readable macaroon: " + e.getMessage());
        }
        return Optional.of(new L402Credentials(macaroon, preimage));
    }

    /** 64 hex characters (either case), or base64 (standard or URL-safe, padded or not) of 32 bytes. */
    static Preimage preimage(String text) {
        if (text.length() == 64 && text.chars().allMatch(HexFormat::isHexDigit)) {
            return new Preimage(HexFormat.of().parseHex(text.toLowerCase(Locale.ROOT)));
        }
        byte[] raw;
        try {
            String s = text.replace('-', '+').replace('_', '/');
            int rem = s.length() % 4;
            raw = Base64.getDecoder().decode(rem == 0 ? s : s + "=".repeat(4 - rem));
        } catch (IllegalArgumentException e) {
            throw malformed("preimage is neither 64 hex characters nor base64");
        }
        if (raw.length != 32) {
            throw malformed("preimage is " + raw.length + " bytes, want 32");
        }
        return new Preimage(raw);
    }

    private static L402Refusal malformed(String why) {
        return new L402Refusal(L402Refusal.Code.MALFORMED_AUTHORIZATION, "malformed Authorization: " + why);
    }

    /** The header a client sends: {@code L402 <base64 macaroon>:<hex preimage>}. */
    public String toHeader() {
        return "L402 " + macaroon.toBase64() + ":" + preimage.revealHex();
    }

    @Override
    public String toString() {
        return "L402Credentials[" + macaroon + ", " + preimage + "]";
    }
}
