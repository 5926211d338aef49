package org.fleetmesh.spi.settlement;

import java.time.Duration;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A way to get paid and to pay, locked to a payment hash: the compute-escrow contract is "pay
 * SHA256(k), learn k". Lightning hold invoices and Cashu NUT-14 HTLCs both fit it unchanged.
 *
 * <p>How each call maps onto the two rails:
 * <table>
 * <caption>rail mapping</caption>
 * <tr><th>call</th><th>Lightning (hold invoices)</th><th>Cashu NUT-14</th></tr>
 * <tr><td>{@link #holdInvoice}</td><td>add a hold invoice on hash H</td>
 *     <td>a payment request asking for proofs whose secret is {@code ["HTLC", {"data": H, "tags": [["pubkeys", payee],
 *     ["locktime", t], ["refund", payer]]}]}: locked to SHA256(k) <em>and</em> the payee's key, refundable to the
 *     payer after locktime t = now + expiry</td></tr>
 * <tr><td>ACCEPTED (via {@link #watch})</td><td>HTLCs locked in</td>
 *     <td>the locked token arrived, its secret matches H and the payee key, locktime is far enough, and the mint
 *     says the proofs are unspent (NUT-07)</td></tr>
 * <tr><td>{@link #settle}</td><td>settle the invoice with k</td>
 *     <td>swap the proofs at the mint with witness {@code {"preimage": k, "signatures": [payee sig]}} (claim with k)</td></tr>
 * <tr><td>{@link #cancel}</td><td>cancel the hold invoice: HTLCs fail back</td>
 *     <td>do not claim; after the locktime the payer's refund key spends the proofs (CANCELED, or EXPIRED once the
 *     locktime passed)</td></tr>
 * <tr><td>{@link #invoice}</td><td>a plain invoice created with the preimage</td>
 *     <td>same as holdInvoice followed by an automatic claim with k on arrival</td></tr>
 * <tr><td>{@link #pay}</td><td>pay a BOLT-11, preimage from the HTLC settle</td>
 *     <td>lock proofs to the request's hash and payee key; the preimage is learned when the payee claims
 *     (from the mint's witness, NUT-07) or from the payee's message</td></tr>
 * </table>
 *
 * <p>Calls are idempotent where the rail allows it: settling a settled invoice with the right
 * preimage and canceling a canceled one succeed, so a caller that crashed between persisting a
 * step and performing it can simply perform it again. Errors are {@link SettlementException}s.
 * Implementations must be safe for use by several threads.
 */
public interface SettlementRail {

    /** Stable id used in offers and in the ledger's account names, e.g. {@code "ln"} or {@code "cashu:<mint url>"}. */
    String id();

    /**
     * The step of the amounts this rail carries, in msat: 1 for Lightning, 1000 for a Cashu mint that counts in sat.
     * An amount that is not a multiple of it is refused ({@code AMOUNT_OUT_OF_RANGE}), never rounded: a payee prices
     * in whole steps of the rail it asks to be paid on.
     */
    default long amountStepMsat() {
        return 1;
    }

    Set<Capability> capabilities();

    /**
     * An invoice the rail settles by itself when paid, because it is given the preimage
     * ({@link Capability#PREIMAGE_INVOICE}).
     */
    Invoice invoice(Preimage preimage, long amountMsat, String memo, Duration expiry);

    /**
     * An invoice on {@code hash} that, once paid, stays ACCEPTED until {@link #settle} reveals the
     * preimage or {@link #cancel} releases it ({@link Capability#HOLD_INVOICE}).
     */
    Invoice holdInvoice(PaymentHash hash, long amountMsat, String memo, Duration expiry);

    /**
     * Claims the ACCEPTED payment locked to {@code preimage.hash()}, revealing the preimage to the
     * payer. Throws {@link SettlementException.Reason#NOT_ACCEPTED} if nothing is locked in yet,
     * {@link SettlementException.Reason#ALREADY_CANCELED} if it was canceled or expired.
     */
    void settle(Preimage preimage);

    /** Gives up the payment on {@code hash}; the payer gets its funds back. Throws ALREADY_SETTLED if too late. */
    void cancel(PaymentHash hash);

    /**
     * Reports every state change of our invoice on {@code hash} to {@code listener}, starting with
     * its current state, until a final state ({@link InvoiceState#isFinal()}) has been reported.
     * After a restart the caller watches again; a state may then be reported twice.
     */
    void watch(PaymentHash hash, Consumer<InvoiceState> listener);

    /**
     * Pays {@code paymentRequest}, spending at most {@code maxFeeMsat} in fees ({@link Capability#PAY}).
     * Routing failures come back as a FAILED result; an exception means the call itself failed and
     * the payment may or may not be in flight.
     */
    PaymentResult pay(String paymentRequest, long maxFeeMsat);

    /** Reads a request without paying it ({@link Capability#DECODE}); INVALID_REQUEST if malformed. */
    DecodedRequest decode(String paymentRequest);
}
