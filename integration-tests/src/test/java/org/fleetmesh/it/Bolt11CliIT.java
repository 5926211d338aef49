package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** {@code ./meshnode bolt11 decode}: the donation example of BOLT #11, and a corrupted copy. */
class Bolt11CliIT {
    static final String DONATION = "lnbc1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq9qrsgq357wnc5r2ueh7ck6q93dj32dlqnls087fxdwk8qakdyafkq3yap9us6v52vjjsrvywa6rt52cm9r9zqt8r2t7mlcwspyetp5h2tztugp9lfyql";

    record Out(int exit, String stdout, String stderr) {
    }

    static Out decode(String invoice) throws Exception {
        Process p = new ProcessBuilder(MeshnodeProcess.projectRoot().resolve("meshnode").toString(), "bolt11", "decode",
                invoice).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Out(p.exitValue(), out, err);
    }

    @Test
    void decodesTheSpecDonationInvoice() throws Exception {
        Out o = decode(DONATION);
        assertEquals(0, o.exit(), o.stderr());
        JsonNode j = NostrClient.JSON.readTree(o.stdout());
        assertEquals("bitcoin", j.path("network").asText());
        assertTrue(j.path("amount_msat").isNull());
        assertEquals(1496314658L, j.path("timestamp").asLong());
        assertEquals("0001020304050607080900010203040506070809000102030405060708090102", j.path("payment_hash").asText());
        assertEquals("Please consider supporting this project", j.path("description").asText());
        assertEquals("03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad", j.path("payee").asText());
        assertEquals(3600, j.path("expiry").asInt());
        assertEquals(18, j.path("min_final_cltv_expiry").asInt());
    }

    @Test
    void aCorruptedInvoiceExitsNonZeroWithAReason() throws Exception {
        String corrupted = DONATION.substring(0, 100) + (DONATION.charAt(100) == 'q' ? 'p' : 'q') + DONATION.substring(101);
        Out o = decode(corrupted);
        assertEquals(1, o.exit());
        assertTrue(o.stderr().contains("invalid invoice:"), o.stderr());
        assertEquals("", o.stdout());
    }
}
