package org.fleetmesh.compute.market;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.PubKey;

/**
 * The job record, kind 30811 (docs/spec/compute.md, "Job record"): addressable by {@code d} = the request digest,
 * signed by the worker node's Nostr key; it names the job ({@code job}, {@code module}, {@code input}), commits to the
 * result ({@code commitment}), locks the payment ({@code payment_hash} = SHA-256(k)), and states the fuel, the price,
 * the engine and the buyer ({@code p}). The final record, published after the key's release, adds {@code output}.
 */
public record JobRecord(String request, String job, String module, String input, String commitment,
        String paymentHash, long fuel, long priceMsat, String runtime, String buyer, Optional<String> output) {
    public static final int KIND = 30811;

    public JobRecord {
        Objects.requireNonNull(output, "output");
    }

    public List<List<String>> tags() {
        List<List<String>> t = new ArrayList<>();
        t.add(List.of("d", request));
        t.add(List.of("job", job));
        t.add(List.of("module", module));
        t.add(List.of("input", input));
        t.add(List.of("commitment", commitment));
        t.add(List.of("payment_hash", paymentHash));
        t.add(List.of("fuel", Long.toString(fuel)));
        t.add(List.of("price", Long.toString(priceMsat)));
        t.add(List.of("runtime", runtime));
        t.add(List.of("p", buyer));
        output.ifPresent(o -> t.add(List.of("output", o)));
        t.add(List.of("alt", "fleetmesh compute job record (compute/1.0)"));
        return t;
    }

    public Event sign(byte[] nostrSecret, long createdAt) {
        return Events.sign(nostrSecret, createdAt, KIND, tags(), "");
    }

    public JobRecord withOutput(String outputDigest) {
        return new JobRecord(request, job, module, input, commitment, paymentHash, fuel, priceMsat, runtime, buyer,
                Optional.of(outputDigest));
    }

    /** Reads a record (signature checked). */
    public static JobRecord parse(Event e) throws MarketProtocolException {
        if (e.kind() != KIND) {
            throw new MarketProtocolException("a job record is kind " + KIND + ", not " + e.kind());
        }
        String bad = Events.verify(e);
        if (bad != null) {
            throw new MarketProtocolException("job record: " + bad);
        }
        return new JobRecord(Offer.required(e, "d"), Offer.required(e, "job"), Offer.required(e, "module"),
                Offer.required(e, "input"), Offer.required(e, "commitment"), Offer.required(e, "payment_hash"),
                Offer.number(e, "fuel"), Offer.number(e, "price"), Offer.required(e, "runtime"),
                Offer.required(e, "p"), Optional.ofNullable(Offer.single(e, "output")));
    }

    /**
     * What the buyer checks before paying: the record is signed by {@code worker} (the Nostr key the worker proved on
     * the link) and names exactly the request; its price is within the request's maximum. Null when it holds, else why.
     */
    public static String mismatch(Event e, JobRecord r, Request q, PubKey worker, String buyerPubkeyHex) {
        if (!e.pubkey().equals(worker)) {
            return "job record: signed by " + e.pubkey().hex() + ", not by the worker's key " + worker.hex();
        }
        if (!r.request().equals(q.digest())) {
            return "job record: d is " + r.request() + ", the request digest is " + q.digest();
        }
        if (!r.job().equals(q.spec().digest()) || !r.module().equals(q.spec().module())
                || !r.input().equals(q.spec().input())) {
            return "job record: job, module or input differ from the request";
        }
        if (!r.buyer().equals(buyerPubkeyHex)) {
            return "job record: p is " + r.buyer() + ", not this buyer";
        }
        if (r.priceMsat() > q.maxPriceMsat()) {
            return "price: the record asks " + r.priceMsat() + " msat, the request allows " + q.maxPriceMsat();
        }
        if (r.fuel() > q.spec().fuelLimit()) {
            return "job record: fuel " + r.fuel() + " is above the job's limit " + q.spec().fuelLimit();
        }
        return null;
    }
}
