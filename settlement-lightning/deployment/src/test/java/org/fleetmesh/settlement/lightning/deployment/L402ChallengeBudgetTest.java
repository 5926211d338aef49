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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import jakarta.inject.Inject;

import org.fleetmesh.settlement.lightning.l402.L402Challenge;
import org.fleetmesh.spi.settlement.Preimage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;

/**
 * Each challenge opens an invoice the Lightning node keeps: a stranger's requests without a token are held to
 * {@code fleetmesh.l402.challenges-per-minute} from one address, past it 429 {@code rate_limited} with
 * {@code Retry-After} and no invoice; a paid token is still served.
 */
class L402ChallengeBudgetTest {
    static final Path DATA = Path.of("target", "l402-budget-test-data").toAbsolutePath();
    static final String FILTER = "{\"kinds\":[1]}";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(TestStore.class, L402ExportRouteTest.TestRail.class,
                    L402ExportRouteTest.class, L402ChallengeBudgetTest.class))
            .overrideConfigKey("fleetmesh.data-dir", DATA.toString())
            .overrideConfigKey("fleetmesh.l402.enabled", "true")
            .overrideConfigKey("fleetmesh.l402.challenges-per-minute", "3")
            .overrideConfigKey("quarkus.http.test-port", "0");

    @TestHTTPResource("/l402/export")
    URL export;

    @Inject
    L402ExportRouteTest.TestRail rail;

    final HttpClient http = HttpClient.newHttpClient();

    HttpResponse<String> get(String filter, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(export + "?filter="
                + URLEncoder.encode(filter, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(30));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void challengesFromOneAddressAreBoundedAndAPaidTokenIsStillServed() throws Exception {
        assertEquals(400, get("{\"kinds\":", null).statusCode(), "a bad filter is refused before it counts");
        List<L402Challenge> made = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = get(FILTER, null);
            assertEquals(402, r.statusCode(), "challenge " + i + ": " + r.body());
            made.add(L402Challenge.parse(r.headers().allValues("WWW-Authenticate").get(0)).orElseThrow());
        }
        HttpResponse<String> limited = get(FILTER, null);
        assertEquals(429, limited.statusCode(), limited.body());
        assertTrue(limited.body().contains("\"error\":\"rate_limited\""), limited.body());
        assertTrue(limited.body().contains("rate-limited: too many challenges"), limited.body());
        long retry = Long.parseLong(limited.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(retry >= 1 && retry <= 20, "one challenge refills every 60/3 s: " + retry);
        assertTrue(limited.headers().allValues("WWW-Authenticate").isEmpty(), "no invoice, no challenge");

        Preimage paid = rail.pay(made.get(0).invoice(), 0).preimage().orElseThrow();
        HttpResponse<String> served = get(FILTER, "L402 " + made.get(0).macaroon().toBase64() + ":" + paid.revealHex());
        assertEquals(200, served.statusCode(), "a token is checked offline, whatever the budget: " + served.body());
    }
}
