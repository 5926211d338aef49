package org.fleetmesh.settlement.lightning.bolt11;

import static org.fleetmesh.settlement.lightning.bolt11.SpecExamples.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11.WrongLengthFields;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11Exception.Reason;
import org.junit.jupiter.api.Test;

/** The "Examples" and "Examples of Invalid Invoices" of BOLT #11, with the fields the spec states for each. */
class Bolt11SpecExamplesTest {

    private static Invoice decode(String invoice) throws Bolt11Exception {
        return Bolt11.decode(invoice);
    }

    /** Payee, payment hash, secret and timestamp shared by every example but the pico one. */
    private static void assertCommon(Invoice inv) {
        assertEquals(NodeId.ofHex(PAYEE), inv.payee());
        assertEquals(PaymentHash.ofHex(PAYMENT_HASH), inv.paymentHash());
        assertEquals(PaymentSecret.ofHex(PAYMENT_SECRET), inv.paymentSecret());
        assertEquals(TIMESTAMP, inv.timestamp());
    }

    private static void assertSignature(Invoice inv, String compactHex, int recoveryId) {
        InvoiceSignature sig = inv.signature().orElseThrow();
        assertEquals(compactHex, org.fleetmesh.nostr.Hex.encode(sig.compact()));
        assertEquals(recoveryId, sig.recoveryId());
    }

    private static void assertHashedDescription(Invoice inv) {
        assertTrue(inv.description().isEmpty());
        assertEquals(DescriptionHash.ofHex("3925b6f67e2c340036ed12093dd44e0368df1b6ea26c53dbe4811f58fd5db8c1"),
                inv.descriptionHash().orElseThrow());
        assertTrue(inv.commitsTo(HASHED_TEXT));
        assertFalse(inv.commitsTo(HASHED_TEXT + "."));
    }

    private static void assertFallback(Invoice inv, String address) {
        assertEquals(1, inv.fallbacks().size());
        assertEquals(address, inv.fallbacks().get(0).address(inv.network()));
    }

    @Test
    void donationOfAnyAmount() throws Exception {
        Invoice inv = decode(DONATION);
        assertCommon(inv);
        assertEquals(Network.BITCOIN, inv.network());
        assertEquals(OptionalLong.empty(), inv.amountMsat());
        assertEquals(Optional.of("Please consider supporting this project"), inv.description());
        assertEquals(3600, inv.expiry());
        assertEquals(18, inv.minFinalCltvExpiryDelta());
        assertEquals(List.of(8, 14), inv.features().bits());
        assertTrue(inv.routeHints().isEmpty());
        assertTrue(inv.fallbacks().isEmpty());
        assertSignature(inv, DONATION_SIGNATURE, DONATION_RECOVERY_ID);
    }

    @Test
    void cupOfCoffeeWithinOneMinute() throws Exception {
        Invoice inv = decode(COFFEE);
        assertCommon(inv);
        assertEquals(OptionalLong.of(250_000_000L), inv.amountMsat()); // 2500u = 0.0025 BTC
        assertEquals(Optional.of("1 cup coffee"), inv.description());
        assertEquals(60, inv.expiry());
        assertSignature(inv, COFFEE_SIGNATURE, COFFEE_RECOVERY_ID);
    }

    @Test
    void cupOfNonsenseInUtf8() throws Exception {
        Invoice inv = decode(NONSENSE);
        assertCommon(inv);
        assertEquals(OptionalLong.of(250_000_000L), inv.amountMsat());
        assertEquals(Optional.of("ナンセンス 1杯"), inv.description());
        assertEquals(60, inv.expiry());
        assertSignature(inv, NONSENSE_SIGNATURE, NONSENSE_RECOVERY_ID);
    }

    @Test
    void hashedDescription() throws Exception {
        Invoice inv = decode(HASHED_DESCRIPTION);
        assertCommon(inv);
        assertEquals(OptionalLong.of(2_000_000_000L), inv.amountMsat()); // 20m
        assertHashedDescription(inv);
        assertSignature(inv, HASHED_DESCRIPTION_SIGNATURE, HASHED_DESCRIPTION_RECOVERY_ID);
    }

    @Test
    void testnetWithP2pkhFallback() throws Exception {
        Invoice inv = decode(TESTNET_P2PKH_FALLBACK);
        assertCommon(inv);
        assertEquals(Network.TESTNET, inv.network());
        assertEquals(OptionalLong.of(2_000_000_000L), inv.amountMsat());
        assertHashedDescription(inv);
        assertFallback(inv, "mk2QpYatsKicvFVuTAQLBryyccRXMUaGHP");
        assertEquals(Fallback.P2PKH, inv.fallbacks().get(0).version());
        assertSignature(inv, TESTNET_P2PKH_FALLBACK_SIGNATURE, TESTNET_P2PKH_FALLBACK_RECOVERY_ID);
    }

    @Test
    void mainnetP2pkhFallbackWithRouteHints() throws Exception {
        Invoice inv = decode(P2PKH_FALLBACK_AND_ROUTE_HINTS);
        assertCommon(inv);
        assertEquals(OptionalLong.of(2_000_000_000L), inv.amountMsat());
        assertHashedDescription(inv);
        assertFallback(inv, "1RustyRX2oai4EYYDpQGWvEL62BBGqN9T");
        assertEquals(1, inv.routeHints().size());
        assertEquals(List.of(
                new RouteHop(NodeId.ofHex("029e03a901b85534ff1e92c43c74431f7ce72046060fcf7a95c37e148f78c77255"),
                        new ShortChannelId(0x0102030405060708L), 1, 20, 3),
                new RouteHop(NodeId.ofHex("039e03a901b85534ff1e92c43c74431f7ce72046060fcf7a95c37e148f78c77255"),
                        new ShortChannelId(0x030405060708090aL), 2, 30, 4)),
                inv.routeHints().get(0).hops());
        assertSignature(inv, P2PKH_FALLBACK_AND_ROUTE_HINTS_SIGNATURE, P2PKH_FALLBACK_AND_ROUTE_HINTS_RECOVERY_ID);
    }

    @Test
    void p2shFallback() throws Exception {
        Invoice inv = decode(P2SH_FALLBACK);
        assertCommon(inv);
        assertHashedDescription(inv);
        assertFallback(inv, "3EktnHQD7RiAE6uzMj2ZifT9YgRrkSgzQX");
        assertSignature(inv, P2SH_FALLBACK_SIGNATURE, P2SH_FALLBACK_RECOVERY_ID);
    }

    @Test
    void p2wpkhFallback() throws Exception {
        Invoice inv = decode(P2WPKH_FALLBACK);
        assertCommon(inv);
        assertHashedDescription(inv);
        assertFallback(inv, "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4");
        assertSignature(inv, P2WPKH_FALLBACK_SIGNATURE, P2WPKH_FALLBACK_RECOVERY_ID);
    }

    @Test
    void p2wshFallback() throws Exception {
        Invoice inv = decode(P2WSH_FALLBACK);
        assertCommon(inv);
        assertHashedDescription(inv);
        assertFallback(inv, "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3");
        assertSignature(inv, P2WSH_FALLBACK_SIGNATURE, P2WSH_FALLBACK_RECOVERY_ID);
    }

    @Test
    void p2trFallbackIsBech32m() throws Exception {
        Invoice inv = decode(P2TR_FALLBACK);
        assertCommon(inv);
        assertHashedDescription(inv);
        assertFallback(inv, "bc1pptdvg0d2nj99568qn6ssdy4cygnwuxgw2ukmnwgwz7jpqjz2kszse2s3lm");
        assertEquals(1, inv.fallbacks().get(0).version());
        assertSignature(inv, P2TR_FALLBACK_SIGNATURE, P2TR_FALLBACK_RECOVERY_ID);
    }

    @Test
    void picoBitcoinAmountWithOneWeekExpiryAndRouteHint() throws Exception {
        Invoice inv = decode(PICO_AMOUNT);
        assertEquals(NodeId.ofHex(PAYEE), inv.payee());
        assertEquals(OptionalLong.of(967_878_534L), inv.amountMsat()); // 9678785340p
        assertEquals(1572468703L, inv.timestamp());
        assertEquals(PaymentHash.ofHex("462264ede7e14047e9b249da94fefc47f41f7d02ee9b091815a5506bc8abf75f"),
                inv.paymentHash());
        assertEquals(PaymentSecret.ofHex(PAYMENT_SECRET), inv.paymentSecret());
        assertEquals(Optional.of("Blockstream Store: 88.85 USD for Blockstream Ledger Nano S x 1, "
                + "\"Back In My Day\" Sticker x 2, \"I Got Lightning Working\" Sticker x 2 and 1 more items"),
                inv.description());
        assertEquals(604800, inv.expiry());
        assertEquals(10, inv.minFinalCltvExpiryDelta());
        RouteHop hop = inv.routeHints().get(0).hops().get(0);
        assertEquals(1, inv.routeHints().get(0).hops().size());
        assertEquals(NodeId.ofHex("03d06758583bb5154774a6eb221b1276c9e82d65bbaceca806d90e20c108f4b1c7"), hop.pubkey());
        assertEquals("589390x3312x1", hop.shortChannelId().toString());
        assertEquals(ShortChannelId.of(589390, 3312, 1), hop.shortChannelId());
        assertEquals(1000, hop.feeBaseMsat());
        assertEquals(2500, hop.feeProportionalMillionths());
        assertEquals(40, hop.cltvExpiryDelta());
        assertEquals(List.of(8, 14), inv.features().bits());
    }

    private static void assertCoffeeBeans(Invoice inv) {
        assertCommon(inv);
        assertEquals(OptionalLong.of(2_500_000_000L), inv.amountMsat()); // 25m
        assertEquals(Optional.of("coffee beans"), inv.description());
        assertEquals(List.of(8, 14, 99), inv.features().bits());
        assertTrue(inv.fallbacks().isEmpty());
    }

    @Test
    void unknownOddFeature99IsIgnored() throws Exception {
        assertCoffeeBeans(decode(COFFEE_BEANS_FEATURES));
    }

    @Test
    void allUpperCaseIsTheSameInvoice() throws Exception {
        Invoice upper = decode(COFFEE_BEANS_UPPER_CASE);
        assertCoffeeBeans(upper);
        assertEquals(decode(COFFEE_BEANS_FEATURES), upper);
    }

    @Test
    void fieldsThatMustBeIgnoredAreSkippedUnderTheOldReaderRule() throws Exception {
        Invoice inv = Bolt11.decode(COFFEE_BEANS_WITH_IGNORED_FIELDS, WrongLengthFields.SKIP);
        assertCoffeeBeans(inv); // unknown field 2 and the version-19 fallback are skipped in every mode
    }

    @Test
    void fieldsOfWrongLengthAreRefusedUnderTheCurrentReaderRule() {
        // lightning/bolts#1243 turned "MUST skip" into "MUST fail"; the example was not updated
        assertRefused(Reason.WRONG_FIELD_LENGTH, COFFEE_BEANS_WITH_IGNORED_FIELDS);
    }

    @Test
    void paymentMetadata() throws Exception {
        Invoice inv = decode(PAYMENT_METADATA);
        assertCommon(inv);
        assertEquals(OptionalLong.of(1_000_000_000L), inv.amountMsat()); // 10m
        assertEquals(Optional.of("payment metadata inside"), inv.description());
        assertEquals(Optional.of(PaymentMetadata.ofHex("01fafaf0")), inv.metadata());
        assertEquals(List.of(8, 14, 48), inv.features().bits());
    }

    @Test
    void publicKeyRecoveryAcceptsHighS() throws Exception {
        Invoice inv = decode(HIGH_S_RECOVERY);
        assertFalse(inv.signature().orElseThrow().isLowS());
        // The vector is the donation signature with s negated but the recovery id left at 1, so plain
        // recovery (libsecp256k1's, which the spec cites) yields a different key than priv_key's: the spec
        // asks only that the invoice be accepted, and states no payee for it.
        assertEquals(NodeId.ofHex("02d0139ce7427d6dfffd26a326c18be754ef1e64672b42694ba5b23ef6e6e7803d"), inv.payee());
        assertEquals(PaymentHash.ofHex(PAYMENT_HASH), inv.paymentHash());
        assertEquals(TIMESTAMP, inv.timestamp());
        assertEquals(Optional.of("Please consider supporting this project"), inv.description());
        assertSignature(inv, HIGH_S_RECOVERY_SIGNATURE, HIGH_S_RECOVERY_RECOVERY_ID);
    }

    // Examples of Invalid Invoices

    private static void assertRefused(Reason reason, String invoice) {
        Bolt11Exception e = assertThrows(Bolt11Exception.class, () -> Bolt11.decode(invoice));
        assertEquals(reason, e.reason(), e.getMessage());
    }

    @Test
    void refusesUnknownEvenFeature100() {
        assertRefused(Reason.UNKNOWN_REQUIRED_FEATURE, INVALID_UNKNOWN_FEATURE_100);
    }

    @Test
    void refusesBadChecksum() {
        assertRefused(Reason.BAD_CHECKSUM, INVALID_CHECKSUM);
    }

    @Test
    void refusesStringWithoutSeparator() {
        assertRefused(Reason.MALFORMED_BECH32, INVALID_NO_SEPARATOR);
    }

    @Test
    void refusesMixedCase() {
        assertRefused(Reason.MIXED_CASE, INVALID_MIXED_CASE);
    }

    @Test
    void refusesUnrecoverableSignature() {
        assertRefused(Reason.INVALID_SIGNATURE, INVALID_SIGNATURE_NOT_RECOVERABLE);
    }

    @Test
    void refusesTooShortString() {
        assertRefused(Reason.TOO_SHORT, INVALID_TOO_SHORT);
    }

    @Test
    void refusesUnknownMultiplier() {
        assertRefused(Reason.INVALID_AMOUNT, INVALID_MULTIPLIER);
    }

    @Test
    void refusesSubMillisatoshiAmount() {
        assertRefused(Reason.SUB_MILLISATOSHI_AMOUNT, INVALID_SUB_MILLISATOSHI);
    }

    @Test
    void refusesMissingPaymentSecret() {
        assertRefused(Reason.MISSING_PAYMENT_SECRET, INVALID_MISSING_S);
    }

    @Test
    void refusesHighSSignatureWhenNFieldIsPresent() {
        assertRefused(Reason.HIGH_S_SIGNATURE, INVALID_HIGH_S_WITH_N);
    }
}
