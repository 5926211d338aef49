package org.fleetmesh.settlement.lightning.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import jakarta.inject.Inject;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.settlement.lightning.l402.L402Challenge;
import org.fleetmesh.settlement.lightning.lnd.LndConnection;
import org.fleetmesh.settlement.lightning.lnd.LndRail;
import org.fleetmesh.settlement.lightning.sim.SimulatedLightningNetwork;
import org.fleetmesh.settlement.lightning.sim.SimulatedLnd;
import org.fleetmesh.settlement.lightning.sim.SimulatedMacaroons;
import org.fleetmesh.spi.settlement.PaymentResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;

/**
 * The extension as an operator runs it: {@code fleetmesh.lightning.enabled=true} against a
 * SIMULATED LND (gRPC over TLS, the node's cert pinned, a baked least-privilege macaroon), readiness
 * by GetInfo, and an L402 export paid for real: the buyer pays the invoice through a second
 * simulated node and learns the preimage from the payment, not from the seller.
 */
class LndL402EndToEndTest {
    static final Path DIR = Path.of("target", "lnd-l402-e2e").toAbsolutePath();
    static final PubKey ALICE = new PubKey(fill(32, 0xa1));
    static final String FILTER = "{\"kinds\":[1],\"authors\":[\"" + ALICE.hex() + "\"]}";

    /**
     * The class is loaded twice (JUnit's and Quarkus's class loaders): the simulation is started once,
     * by the first, and found by the second through system properties.
     */
    static final SimulatedLightningNetwork NET;
    static {
        if (System.getProperty("lnd-e2e.seller.port") == null) {
            try {
                if (Files.exists(DIR)) {
                    try (var walk = Files.walk(DIR)) {
                        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                    }
                }
                NET = new SimulatedLightningNetwork(DIR.resolve("lnd"));
                SimulatedLnd seller = NET.startNode("seller");
                SimulatedLnd buyer = NET.startNode("buyer");
                // least privilege for a node that sells: invoices read/write, info read for readiness
                Path mac = DIR.resolve("seller-l402.macaroon");
                Files.write(mac, seller.bakeMacaroon(List.of(new SimulatedMacaroons.Op("invoices", "read"),
                        new SimulatedMacaroons.Op("invoices", "write"), new SimulatedMacaroons.Op("info", "read")))
                        .serialize());
                System.setProperty("lnd-e2e.seller.port", String.valueOf(seller.port()));
                System.setProperty("lnd-e2e.seller.cert", seller.tlsCertPath().toString());
                System.setProperty("lnd-e2e.seller.macaroon", mac.toString());
                System.setProperty("lnd-e2e.buyer.port", String.valueOf(buyer.port()));
                System.setProperty("lnd-e2e.buyer.cert", buyer.tlsCertPath().toString());
                System.setProperty("lnd-e2e.buyer.macaroon", buyer.adminMacaroonPath().toString());
                Runtime.getRuntime().addShutdownHook(new Thread(NET::close));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        } else {
            NET = null;
        }
    }

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(TestStore.class, LndL402EndToEndTest.class))
            .overrideConfigKey("fleetmesh.data-dir", DIR.resolve("data").toString())
            .overrideConfigKey("fleetmesh.lightning.enabled", "true")
            .overrideConfigKey("fleetmesh.lightning.lnd.host", "127.0.0.1")
            .overrideConfigKey("fleetmesh.lightning.lnd.port", System.getProperty("lnd-e2e.seller.port"))
            .overrideConfigKey("fleetmesh.lightning.lnd.tls-cert-path", System.getProperty("lnd-e2e.seller.cert"))
            .overrideConfigKey("fleetmesh.lightning.lnd.macaroon-path", System.getProperty("lnd-e2e.seller.macaroon"))
            .overrideConfigKey("fleetmesh.l402.enabled", "true")
            .overrideConfigKey("fleetmesh.l402.price-msat-per-event", "2000")
            .overrideConfigKey("quarkus.http.test-port", "0");

    @TestHTTPResource("/l402/export")
    URL export;

    @TestHTTPResource("/q/health/ready")
    URL ready;

    @Inject
    TestStore store;

    final HttpClient http = HttpClient.newHttpClient();

    static byte[] fill(int n, int v) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) v);
        return b;
    }

    HttpResponse<String> get(URL url, String query, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + query)).timeout(Duration.ofSeconds(30));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void readinessAndAPaidExportOverTheLndRail() throws Exception {
        HttpResponse<String> health = get(ready, "", null);
        assertEquals(200, health.statusCode(), health.body());
        String compact = health.body().replaceAll("\\s", "");
        assertTrue(compact.contains("\"name\":\"lightning\",\"status\":\"UP\""), health.body());
        assertTrue(compact.contains("\"synced_to_chain\":true"), health.body());

        store.events.clear();
        Event e1 = store.add(ALICE, 1, 1000, 1);
        Event e2 = store.add(ALICE, 1, 1001, 2);
        String q = "?filter=" + URLEncoder.encode(FILTER, StandardCharsets.UTF_8);
        HttpResponse<String> challenge = get(export, q, null);
        assertEquals(402, challenge.statusCode(), challenge.body());
        L402Challenge c = L402Challenge.parse(challenge.headers().allValues("WWW-Authenticate").get(0)).orElseThrow();

        try (LndRail buyer = new LndRail(LndConnection.open("127.0.0.1", Integer.parseInt(System.getProperty("lnd-e2e.buyer.port")),
                Path.of(System.getProperty("lnd-e2e.buyer.cert")), Path.of(System.getProperty("lnd-e2e.buyer.macaroon")),
                Duration.ZERO), LndRail.Options.defaults(), Clock.systemUTC())) {
            assertEquals(4000, buyer.decode(c.invoice()).amountMsat().getAsLong(), "2 events at 2000 msat");
            PaymentResult paid = buyer.pay(c.invoice(), 100);
            assertTrue(paid.succeeded(), paid.toString());
            String auth = "L402 " + c.macaroon().toBase64() + ":" + paid.preimage().orElseThrow().revealHex();
            HttpResponse<String> body = get(export, q, auth);
            assertEquals(200, body.statusCode(), body.body());
            assertEquals(e2.json() + "\n" + e1.json() + "\n", body.body());
            // a preimage that is not the payment's: 401, with a challenge naming the error (RFC 7235), no new invoice
            HttpResponse<String> wrong = get(export, q, "L402 " + c.macaroon().toBase64() + ":" + "00".repeat(32));
            assertEquals(401, wrong.statusCode(), wrong.body());
            assertEquals("L402 version=\"0\", error=\"wrong_preimage\"", wrong.headers().firstValue("WWW-Authenticate").orElseThrow());
        }
    }
}
