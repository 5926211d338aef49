package org.fleetmesh.settlement.lightning.bolt11;

import static org.fleetmesh.settlement.lightning.bolt11.RawInvoice.filled;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11.WrongLengthFields;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11Exception.Reason;
import org.junit.jupiter.api.Test;

/** The reader requirements of BOLT #11 that the spec's examples do not reach. */
class Bolt11ReaderRulesTest {
    private static final byte[] KEY = Hex.decode(SpecExamples.PRIV_KEY, 32);
    private static final byte[] OTHER_KEY = filled(0x42, 32);

    private static RawInvoice invoice() {
        return new RawInvoice("lnbcrt10u", 1_700_000_000L);
    }

    private static void assertRefused(Reason reason, String invoice) {
        Bolt11Exception e = assertThrows(Bolt11Exception.class, () -> Bolt11.decode(invoice));
        assertEquals(reason, e.reason(), e.getMessage());
    }

    @Test
    void absentFieldsTakeTheSpecDefaults() throws Exception {
        Invoice inv = Bolt11.decode(invoice().basics().sign(KEY));
        assertEquals(Network.REGTEST, inv.network());
        assertEquals(1_000_000L, inv.amountMsat().getAsLong());
        assertEquals(3600, inv.expiry());
        assertEquals(18, inv.minFinalCltvExpiryDelta());
        assertEquals(Features.NONE, inv.features());
        assertEquals(NodeId.fromSecretKey(KEY), inv.payee());
        assertEquals(Optional.of("coffee"), inv.description());
    }

    @Test
    void refusesAnInvoiceWithoutPaymentHash() {
        assertRefused(Reason.MISSING_PAYMENT_HASH,
                invoice().bytes('s', filled(0x11, 32)).text('d', "coffee").sign(KEY));
    }

    @Test
    void refusesBothDescriptionAndDescriptionHash() {
        assertRefused(Reason.DESCRIPTION_AMBIGUOUS, invoice().basics().bytes('h', filled(7, 32)).sign(KEY));
    }

    @Test
    void refusesNeitherDescriptionNorDescriptionHash() {
        assertRefused(Reason.DESCRIPTION_AMBIGUOUS,
                invoice().bytes('s', filled(0x11, 32)).bytes('p', filled(1, 32)).sign(KEY));
    }

    @Test
    void theFirstPaymentHashIsTheOneToPay() throws Exception {
        Invoice inv = Bolt11.decode(invoice().basics().bytes('p', filled(2, 32)).sign(KEY));
        assertEquals(new PaymentHash(filled(1, 32)), inv.paymentHash());
    }

    @Test
    void refusesFixedLengthFieldsOfAnotherLength() {
        assertRefused(Reason.WRONG_FIELD_LENGTH, invoice().basics().field('p').sign(KEY));
        assertRefused(Reason.WRONG_FIELD_LENGTH, invoice().basics().bytes('s', filled(1, 31)).sign(KEY));
        assertRefused(Reason.WRONG_FIELD_LENGTH, invoice().basics().bytes('n', filled(2, 32)).sign(KEY));
    }

    @Test
    void skipsFixedLengthFieldsOfAnotherLengthUnderTheOldRule() throws Exception {
        String s = invoice().bytes('p', filled(9, 20)).basics().sign(KEY);
        assertEquals(new PaymentHash(filled(1, 32)), Bolt11.decode(s, WrongLengthFields.SKIP).paymentHash());
    }

    @Test
    void refusesNonMinimalExpiryCltvAndFeatures() {
        assertRefused(Reason.NON_MINIMAL_FIELD, invoice().basics().field('x', (byte) 0, (byte) 1).sign(KEY));
        assertRefused(Reason.NON_MINIMAL_FIELD, invoice().basics().field('c', (byte) 0, (byte) 9).sign(KEY));
        assertRefused(Reason.NON_MINIMAL_FIELD, invoice().basics().field('9', (byte) 0, (byte) 2).sign(KEY));
    }

    @Test
    void readsExpiryAndCltvDelta() throws Exception {
        Invoice inv = Bolt11.decode(invoice().basics().field('x', (byte) 1, (byte) 28).field('c', (byte) 9).sign(KEY));
        assertEquals(60, inv.expiry());
        assertEquals(9, inv.minFinalCltvExpiryDelta());
        assertEquals(1_700_000_060L, inv.expiresAt());
    }

    @Test
    void skipsUnknownFieldsAndFutureFallbackVersions() throws Exception {
        Invoice inv = Bolt11.decode(invoice().basics()
                .field('2', (byte) 1, (byte) 2, (byte) 3)
                .field('f', (byte) 19, (byte) 0, (byte) 0)
                .sign(KEY));
        assertTrue(inv.fallbacks().isEmpty());
    }

    @Test
    void refusesAFallbackProgramOfImpossibleLength() {
        byte[] program = Bech32.toGroups(filled(1, 10));
        byte[] groups = new byte[program.length + 1];
        groups[0] = Fallback.P2PKH;
        System.arraycopy(program, 0, groups, 1, program.length);
        assertRefused(Reason.INVALID_FALLBACK, invoice().basics().field('f', groups).sign(KEY));
    }

    @Test
    void refusesARouteHintThatIsNotWholeHops() {
        assertRefused(Reason.INVALID_ROUTE_HINT, invoice().basics().bytes('r', filled(2, 50)).sign(KEY));
    }

    @Test
    void refusesADescriptionThatIsNotUtf8() {
        assertRefused(Reason.INVALID_DESCRIPTION, invoice().bytes('s', filled(0x11, 32)).bytes('p', filled(1, 32))
                .bytes('d', new byte[] {(byte) 0xc3, 0x28}).sign(KEY));
    }

    @Test
    void refusesAFieldThatRunsIntoTheSignature() {
        assertRefused(Reason.MALFORMED_FIELD, invoice().basics().raw((byte) 13, (byte) 31, (byte) 31).sign(KEY));
    }

    @Test
    void verifiesTheSignatureAgainstTheNField() throws Exception {
        byte[] payee = NodeId.fromSecretKey(KEY).bytes();
        Invoice inv = Bolt11.decode(invoice().basics().bytes('n', payee).sign(KEY));
        assertEquals(new NodeId(payee), inv.payee());
        assertRefused(Reason.INVALID_SIGNATURE, invoice().basics().bytes('n', payee).sign(OTHER_KEY));
    }

    @Test
    void refusesAnNFieldThatIsNotAPublicKey() {
        byte[] notAKey = filled(0, 33);
        notAKey[0] = 5;
        assertRefused(Reason.MALFORMED_FIELD, invoice().basics().bytes('n', notAKey).sign(KEY));
    }

    @Test
    void refusesARecoveryIdAbove3() {
        RawInvoice raw = invoice().basics();
        String good = raw.sign(KEY);
        byte[] compact = Bolt11Quiet.decode(good).signature().orElseThrow().compact();
        assertRefused(Reason.INVALID_SIGNATURE, raw.withSignature(compact, 4));
    }

    @Test
    void ignoresUnknownOddFeaturesAndRefusesUnknownEvenOnes() throws Exception {
        Features odd = Bolt11.decode(invoice().basics().field('9', Features.of(101).toGroups()).sign(KEY)).features();
        assertEquals(List.of(101), odd.bits());
        assertRefused(Reason.UNKNOWN_REQUIRED_FEATURE, invoice().basics().field('9', Features.of(100).toGroups()).sign(KEY));
    }

    @Test
    void refusesBasicMppWithoutPaymentSecret() {
        assertRefused(Reason.MISSING_FEATURE_DEPENDENCY,
                invoice().basics().field('9', Features.of(8, 17).toGroups()).sign(KEY));
    }

    /** Decode where the test has already shown the invoice is valid. */
    private static final class Bolt11Quiet {
        static Invoice decode(String s) {
            try {
                return Bolt11.decode(s);
            } catch (Bolt11Exception e) {
                throw new AssertionError(e);
            }
        }
    }
}
