package org.fleetmesh.settlement.lightning.l402;

import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.NostrJson;
import org.fleetmesh.settlement.lightning.macaroon.Macaroon;
import org.fleetmesh.spi.settlement.Invoice;
import org.fleetmesh.spi.settlement.Preimage;
import org.fleetmesh.spi.settlement.SettlementException;
import org.fleetmesh.spi.settlement.SettlementRail;
import org.fleetmesh.spi.storage.EventStore;

/**
 * The paid export of events matching one NIP-01 filter, independent of HTTP plumbing
 * ({@link L402ExportRoute} serves it).
 *
 * <p>Without L402 credentials: count the matching events, n = min(count, the filter's limit, the
 * relay's max limit); price = max(min price, n × price per event); ask the rail for an invoice on a
 * fresh random preimage (the server forgets it: the payment hash is in the token) and answer 402
 * with a token whose caveats are expiry, the filter's hash and quota n.
 *
 * <p>With credentials: check them offline ({@link L402Token#verify}), then the quota: the request
 * would deliver d = min(count now, the request's limit, the max limit) events; d &gt; quota is
 * refused (QUOTA_EXCEEDED: newer events arrived, or the request dropped the limit it was priced
 * with; add {@code "limit": quota} to the filter, or buy again). Otherwise the d newest events are
 * streamed. A token is reusable until it expires, each request bounded by the quota.
 */
public final class L402Export {

    /** What to answer. */
    public sealed interface Outcome permits Challenge, Refused, Granted {
        int status();
    }

    /** 402: pay {@code challenge.invoice()} for {@code events} events. {@code body} is the JSON offer. */
    public record Challenge(L402Challenge challenge, long events, long priceMsat, long expiresAt, String filterHash,
            String body) implements Outcome {
        @Override
        public int status() {
            return 402;
        }
    }

    /** An error status with a JSON body {@code {"error": code, "message": ...}}. */
    public record Refused(L402Refusal.Code code, String message) implements Outcome {
        @Override
        public int status() {
            return code.status();
        }

        public String body() {
            return "{\"error\":" + NostrJson.quote(code.wire()) + ",\"message\":" + NostrJson.quote(message) + "}";
        }
    }

    /** 200: stream {@code query} (its limit is the number of events to deliver) as JSONL. */
    public record Granted(Filter query, int events, L402Identifier token) implements Outcome {
        @Override
        public int status() {
            return 200;
        }
    }

    private final L402Settings settings;
    private final byte[] rootKey;
    private final Supplier<EventStore> stores;
    private final Supplier<SettlementRail> rails;

    /**
     * @param stores gives the event store, or throws an UNAVAILABLE {@link L402Refusal}
     * @param rails  gives the rail to invoice on, or throws an UNAVAILABLE {@link L402Refusal}
     */
    public L402Export(L402Settings settings, byte[] rootKey, Supplier<EventStore> stores, Supplier<SettlementRail> rails) {
        if (rootKey == null || rootKey.length < 32) {
            throw new IllegalArgumentException("the L402 root key is at least 32 bytes");
        }
        this.settings = settings;
        this.rootKey = rootKey.clone();
        this.stores = stores;
        this.rails = rails;
    }

    /**
     * Decides the answer to {@code GET ?filter=<filterJson>} with the given Authorization header
     * (null when absent) at {@code now} (unix seconds). Never throws for bad input.
     */
    public Outcome handle(String filterJson, String authorization, long now) {
        return handle(filterJson, authorization, now, () -> {
        });
    }

    /**
     * As {@link #handle(String, String, long)}; {@code beforeChallenge} runs before a challenge counts events and opens
     * an invoice, and may refuse it by throwing an {@link L402Refusal} (a budget of challenges).
     */
    public Outcome handle(String filterJson, String authorization, long now, Runnable beforeChallenge) {
        try {
            Filter filter = L402Filters.parse(filterJson);
            String filterHash = L402Filters.hash(filter);
            Optional<L402Credentials> credentials = L402Credentials.parse(authorization);
            if (credentials.isEmpty()) {
                beforeChallenge.run();
                return challenge(filter, filterHash, now);
            }
            L402Token.Verified token = L402Token.verify(credentials.get(), rootKey, now, filterHash);
            EventStore store = stores.get();
            int cap = cap(filter);
            long deliver = Math.min(store.count(filter, now), cap);
            if (deliver > token.quota()) {
                throw new L402Refusal(L402Refusal.Code.QUOTA_EXCEEDED, "this request would return " + deliver
                        + " events, the token pays for at most " + token.quota()
                        + " per request: add \"limit\": " + token.quota() + " to the filter, or buy a new token");
            }
            return new Granted(filter.withLimit((int) deliver), (int) deliver, token.identifier());
        } catch (L402Refusal r) {
            return new Refused(r.code(), r.getMessage());
        }
    }

    /** Streams a granted export: each event's JSON to {@code line}, newest first, at most {@code granted.events()}. */
    public void stream(Granted granted, long now, Consumer<String> line) {
        if (granted.events() == 0) {
            return;
        }
        int[] sent = { 0 };
        stores.get().query(granted.query(), now, (id, json) -> {
            line.accept(json);
            return ++sent[0] < granted.events();
        });
    }

    private int cap(Filter filter) {
        return filter.limit() == null ? settings.maxEvents() : Math.min(filter.limit(), settings.maxEvents());
    }

    private Outcome challenge(Filter filter, String filterHash, long now) {
        EventStore store = stores.get();
        long events = Math.min(store.count(filter, now), cap(filter));
        long price = settings.priceMsat(events);
        SettlementRail rail = rails.get();
        Preimage preimage = Preimage.random();
        Invoice invoice;
        try {
            invoice = rail.invoice(preimage, price, "fleetmesh export: " + events + " events", settings.invoiceExpiry());
        } catch (SettlementException e) {
            L402Refusal.Code code = e.reason() == SettlementException.Reason.RAIL_UNAVAILABLE ? L402Refusal.Code.UNAVAILABLE
                    : L402Refusal.Code.RAIL_ERROR;
            throw new L402Refusal(code, "the settlement rail could not issue an invoice: " + e.getMessage());
        }
        if (!invoice.paymentHash().equals(preimage.hash()) || invoice.amountMsat() != price) {
            throw new L402Refusal(L402Refusal.Code.RAIL_ERROR,
                    "the settlement rail returned an invoice for another payment hash or amount");
        }
        long expiresAt = now + settings.tokenLifetime().toSeconds();
        L402Identifier id = L402Identifier.random(preimage.hash());
        Macaroon token = L402Token.mint(rootKey, settings.location(), id, new L402Token.Terms(expiresAt, filterHash, events));
        L402Challenge challenge = new L402Challenge(token, invoice.paymentRequest());
        String body = "{\"price_msat\":" + price + ",\"events\":" + events + ",\"price_msat_per_event\":"
                + settings.pricePerEventMsat() + ",\"min_price_msat\":" + settings.minPriceMsat() + ",\"quota\":" + events
                + ",\"token_expires_at\":" + expiresAt + ",\"invoice_expires_at\":" + invoice.expiresAt().getEpochSecond()
                + ",\"filter_sha256\":" + NostrJson.quote(filterHash) + ",\"payment_hash\":"
                + NostrJson.quote(preimage.hash().hex()) + ",\"token\":" + NostrJson.quote(token.toBase64())
                + ",\"invoice\":" + NostrJson.quote(invoice.paymentRequest()) + "}";
        return new Challenge(challenge, events, price, expiresAt, filterHash, body);
    }

    /** Response headers common to every answer (CORS for browser wallets). */
    public static Map<String, String> corsHeaders() {
        return Map.of("Access-Control-Allow-Origin", "*", "Access-Control-Allow-Headers", "Authorization",
                "Access-Control-Allow-Methods", "GET, OPTIONS", "Access-Control-Expose-Headers", "WWW-Authenticate");
    }
}
