package org.fleetmesh.settlement.lightning.bolt11;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.OptionalLong;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11Exception.Reason;
import org.junit.jupiter.api.Test;

class HumanReadablePartTest {

    private static long msat(String hrp) throws Bolt11Exception {
        return HumanReadablePart.parse(hrp).amountMsat().orElseThrow();
    }

    @Test
    void readsEachMultiplierAsMillisatoshis() throws Exception {
        assertEquals(100_000_000_000L, msat("lnbc1"));
        assertEquals(2_000_000_000L, msat("lnbc20m"));
        assertEquals(250_000_000L, msat("lnbc2500u"));
        assertEquals(100L, msat("lnbc1n"));
        assertEquals(1L, msat("lnbc10p"));
        assertEquals(967_878_534L, msat("lnbc9678785340p"));
    }

    @Test
    void anEmptyAmountIsUnspecified() throws Exception {
        assertEquals(OptionalLong.empty(), HumanReadablePart.parse("lnbc").amountMsat());
    }

    @Test
    void knowsEveryNetworkPrefix() throws Exception {
        assertEquals(Network.BITCOIN, HumanReadablePart.parse("lnbc").network());
        assertEquals(Network.TESTNET, HumanReadablePart.parse("lntb1m").network());
        assertEquals(Network.SIGNET, HumanReadablePart.parse("lntbs1m").network());
        assertEquals(Network.REGTEST, HumanReadablePart.parse("lnbcrt500u").network());
        assertEquals(Network.SIMNET, HumanReadablePart.parse("lnsb1").network());
        assertEquals(50_000_000L, msat("lnbcrt500u"));
    }

    @Test
    void refusesUnknownPrefixes() {
        assertRefused(Reason.UNKNOWN_PREFIX, "lnxy1m");
        assertRefused(Reason.UNKNOWN_PREFIX, "bc1m");
        assertRefused(Reason.UNKNOWN_PREFIX, "ln");
    }

    @Test
    void refusesMalformedAmounts() {
        assertRefused(Reason.INVALID_AMOUNT, "lnbc025u"); // leading 0
        assertRefused(Reason.INVALID_AMOUNT, "lnbc0");
        assertRefused(Reason.INVALID_AMOUNT, "lnbcm"); // multiplier without digits
        assertRefused(Reason.INVALID_AMOUNT, "lnbc2500x");
        assertRefused(Reason.INVALID_AMOUNT, "lnbc2u5");
        assertRefused(Reason.INVALID_AMOUNT, "lnbc1mu");
        assertRefused(Reason.INVALID_AMOUNT, "lnbc92233720368548"); // * 10^11 msat overflows
        assertRefused(Reason.INVALID_AMOUNT, "lnbc99999999999999999999p");
    }

    @Test
    void refusesSubMillisatoshiPicoAmounts() {
        assertRefused(Reason.SUB_MILLISATOSHI_AMOUNT, "lnbc1p");
        assertRefused(Reason.SUB_MILLISATOSHI_AMOUNT, "lnbc2500000001p");
    }

    @Test
    void writesTheShortestAmount() {
        assertEquals("lnbc", new HumanReadablePart(Network.BITCOIN, OptionalLong.empty()).format());
        assertEquals("lnbc1", new HumanReadablePart(Network.BITCOIN, OptionalLong.of(100_000_000_000L)).format());
        assertEquals("lntb20m", new HumanReadablePart(Network.TESTNET, OptionalLong.of(2_000_000_000L)).format());
        assertEquals("lnbcrt2500u", new HumanReadablePart(Network.REGTEST, OptionalLong.of(250_000_000L)).format());
        assertEquals("lntbs1n", new HumanReadablePart(Network.SIGNET, OptionalLong.of(100L)).format());
        assertEquals("lnbc9678785340p", new HumanReadablePart(Network.BITCOIN, OptionalLong.of(967_878_534L)).format());
        assertEquals("lnbc92233720368547758070p",
                new HumanReadablePart(Network.BITCOIN, OptionalLong.of(Long.MAX_VALUE)).format());
    }

    private static void assertRefused(Reason reason, String hrp) {
        assertEquals(reason, assertThrows(Bolt11Exception.class, () -> HumanReadablePart.parse(hrp)).reason(), hrp);
    }
}
