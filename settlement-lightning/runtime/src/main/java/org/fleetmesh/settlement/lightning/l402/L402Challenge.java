package org.fleetmesh.settlement.lightning.l402;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.settlement.lightning.macaroon.Macaroon;

/**
 * The {@code WWW-Authenticate} challenge of a 402 answer: a macaroon and the invoice whose
 * preimage completes it. Sent twice: the current bLIP-26 form
 * {@code L402 version="0", token="<base64>", invoice="<bolt11>"} and the legacy
 * {@code LSAT macaroon="<base64>", invoice="<bolt11>"} older clients read.
 */
public record L402Challenge(Macaroon macaroon, String invoice) {

    public String header() {
        return "L402 version=\"0\", token=" + AuthParams.quote(macaroon.toBase64()) + ", invoice="
                + AuthParams.quote(invoice);
    }

    public String legacyHeader() {
        return "LSAT macaroon=" + AuthParams.quote(macaroon.toBase64()) + ", invoice=" + AuthParams.quote(invoice);
    }

    public List<String> headers() {
        return List.of(header(), legacyHeader());
    }

    /**
     * Reads a challenge as a client would: scheme L402 or LSAT (any case), {@code token=} or
     * {@code macaroon=}, {@code invoice=}, optional {@code version="0"}. Empty for another scheme;
     * IllegalArgumentException when it names L402/LSAT and cannot be read.
     */
    public static Optional<L402Challenge> parse(String header) {
        if (header == null) {
            return Optional.empty();
        }
        AuthParams.Split split = AuthParams.split(header);
        String scheme = split.scheme().toUpperCase(Locale.ROOT);
        if (!scheme.equals("L402") && !scheme.equals("LSAT")) {
            return Optional.empty();
        }
        Map<String, String> p = AuthParams.parse(split.rest());
        String version = p.get("version");
        if (version != null && !version.equals("0")) {
            throw new IllegalArgumentException("unsupported L402 version " + version);
        }
        String token = p.containsKey("token") ? p.get("token") : p.get("macaroon");
        String invoice = p.get("invoice");
        if (token == null || invoice == null) {
            throw new IllegalArgumentException("a challenge needs token (or macaroon) and invoice");
        }
        return Optional.of(new L402Challenge(Macaroon.fromBase64(token), invoice));
    }
}
