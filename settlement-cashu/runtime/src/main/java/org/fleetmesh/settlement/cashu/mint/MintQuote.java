package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * NUT-04/23 {@code PostMintQuoteBolt11Response}, the answer to a mint quote and to its state check.
 *
 * @param quote   the quote id; a secret between wallet and mint (whoever knows it can mint), never log it
 * @param request the bolt11 invoice to pay
 * @param amount  in {@code unit}
 * @param expiry  unix seconds until which the invoice can be paid, or null when the mint gives none
 * @param pubkey  the NUT-20 lock key, or null for an unlocked quote
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MintQuote(@JsonProperty("quote") String quote,
                        @JsonProperty("request") String request,
                        @JsonProperty("amount") long amount,
                        @JsonProperty("unit") String unit,
                        @JsonProperty("state") State state,
                        @JsonProperty("expiry") Long expiry,
                        @JsonProperty("pubkey") String pubkey) {
    /** UNPAID: invoice not paid; PAID: paid, ecash not yet issued; ISSUED: paid and issued. */
    public enum State { UNPAID, PAID, ISSUED }

    public MintQuote {
        Wire.required(quote, "quote");
        Wire.required(request, "request");
        Wire.required(unit, "unit");
        Wire.required(state, "state");
    }

    /** Reads {@code state}, or the deprecated boolean {@code paid} of older mints when {@code state} is absent. */
    @JsonCreator
    static MintQuote fromJson(@JsonProperty("quote") String quote, @JsonProperty("request") String request,
                              @JsonProperty("amount") Long amount, @JsonProperty("unit") String unit,
                              @JsonProperty("state") State state, @JsonProperty("paid") Boolean paid,
                              @JsonProperty("expiry") Long expiry, @JsonProperty("pubkey") String pubkey) {
        State s = state != null ? state : paid == null ? null : paid ? State.PAID : State.UNPAID;
        return new MintQuote(quote, request, Wire.nonNegative(amount, "amount"), unit,
                Wire.required(s, "state"), expiry, pubkey);
    }
}
