package org.fleetmesh.settlement.cashu.mint;

import org.fleetmesh.settlement.cashu.nut.BlindSignature;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;
import org.fleetmesh.settlement.cashu.nut.Keyset;
import org.fleetmesh.settlement.cashu.nut.Proof;

import java.util.List;

/**
 * A Cashu mint's HTTP API as a wallet uses it (NUT-01..09, bolt11 per NUT-23). Every method throws
 * {@link MintException}; its {@link MintException#definite()} says whether the request surely had no effect.
 */
public interface MintApi {
    /** NUT-06 {@code GET /v1/info}. */
    MintInfo info();

    /** NUT-01 {@code GET /v1/keys}: the active keysets with their keys. */
    List<Keyset> keys();

    /** NUT-02 {@code GET /v1/keys/{keyset_id}}: one keyset, active or not, with its keys. */
    Keyset keys(String keysetId);

    /** NUT-02 {@code GET /v1/keysets}: all keysets, without keys. */
    List<Keyset> keysets();

    /** NUT-03 {@code POST /v1/swap}: spends {@code inputs}, signs {@code outputs}; signatures in output order. */
    List<BlindSignature> swap(List<Proof> inputs, List<BlindedMessage> outputs);

    /** NUT-04/23 {@code POST /v1/mint/quote/bolt11}: an invoice for {@code amount} in {@code unit}. */
    MintQuote mintQuote(long amount, String unit);

    /** NUT-04/23 {@code GET /v1/mint/quote/bolt11/{quote}}. */
    MintQuote mintQuoteState(String quote);

    /** NUT-04/23 {@code POST /v1/mint/bolt11}: signs {@code outputs} against a PAID quote. */
    List<BlindSignature> mint(String quote, List<BlindedMessage> outputs);

    /** NUT-05/23 {@code POST /v1/melt/quote/bolt11}: what paying {@code bolt11} costs in {@code unit}. */
    MeltQuote meltQuote(String bolt11, String unit);

    /** NUT-05/23 {@code GET /v1/melt/quote/bolt11/{quote}}. */
    MeltQuote meltQuoteState(String quote);

    /**
     * NUT-05/23 {@code POST /v1/melt/bolt11}: pays the quote's invoice with {@code inputs}; NUT-08
     * {@code blankOutputs} (may be empty) receive the unused fee reserve as {@link MeltQuote#change()}.
     */
    MeltQuote melt(String quote, List<Proof> inputs, List<BlindedMessage> blankOutputs);

    /** NUT-07 {@code POST /v1/checkstate}: one state per Y, in the order asked, with the witness a spend used. */
    List<ProofState> checkState(List<String> ys);

    /** NUT-09 {@code POST /v1/restore}: the asked outputs the mint had signed, with their signatures. */
    Restored restore(List<BlindedMessage> outputs);
}
