package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.fleetmesh.settlement.cashu.nut.BlindSignature;

import java.util.List;

/**
 * NUT-05/23 {@code PostMeltQuoteBolt11Response}: the answer to a melt quote, its state check and the melt
 * itself, with the NUT-08 {@code change}.
 *
 * @param quote           the quote id; a secret between wallet and mint, never log it
 * @param request         the bolt11 invoice the mint pays (null if a mint leaves it out)
 * @param amount          what the invoice costs in {@code unit}
 * @param feeReserve      the most the Lightning fee may take; inputs must cover amount + fee_reserve + input fees
 * @param expiry          unix seconds until which the quote holds, or null
 * @param paymentPreimage proof of payment once PAID, else null
 * @param change          blind signatures on the NUT-08 blank outputs for the unused fee reserve, in their order; empty when none
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MeltQuote(@JsonProperty("quote") String quote,
                        @JsonProperty("request") String request,
                        @JsonProperty("amount") long amount,
                        @JsonProperty("unit") String unit,
                        @JsonProperty("fee_reserve") long feeReserve,
                        @JsonProperty("state") State state,
                        @JsonProperty("expiry") Long expiry,
                        @JsonProperty("payment_preimage") String paymentPreimage,
                        @JsonProperty("change") List<BlindSignature> change) {
    /** UNPAID: not paid yet; PENDING: being paid; PAID: paid. */
    public enum State { UNPAID, PENDING, PAID }

    public MeltQuote {
        Wire.required(quote, "quote");
        Wire.required(unit, "unit");
        Wire.required(state, "state");
        change = Wire.optionalList(change, "change");
    }

    /** Reads {@code state}, or the deprecated boolean {@code paid} of older mints when {@code state} is absent. */
    @JsonCreator
    static MeltQuote fromJson(@JsonProperty("quote") String quote, @JsonProperty("request") String request,
                              @JsonProperty("amount") Long amount, @JsonProperty("unit") String unit,
                              @JsonProperty("fee_reserve") Long feeReserve, @JsonProperty("state") State state,
                              @JsonProperty("paid") Boolean paid, @JsonProperty("expiry") Long expiry,
                              @JsonProperty("payment_preimage") String paymentPreimage,
                              @JsonProperty("change") List<BlindSignature> change) {
        State s = state != null ? state : paid == null ? null : paid ? State.PAID : State.UNPAID;
        return new MeltQuote(quote, request, Wire.nonNegative(amount, "amount"), unit,
                Wire.nonNegative(feeReserve, "fee_reserve"), Wire.required(s, "state"), expiry, paymentPreimage, change);
    }
}
