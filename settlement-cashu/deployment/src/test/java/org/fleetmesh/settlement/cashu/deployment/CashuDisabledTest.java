package org.fleetmesh.settlement.cashu.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.fleetmesh.settlement.cashu.rail.CashuRail;
import org.fleetmesh.spi.settlement.SettlementRail;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;

/** With the extension in the build but Cashu not enabled: no rail bean, no mint contacted, the pay route says why. */
class CashuDisabledTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .overrideConfigKey("fleetmesh.cashu.mint-url", "http://127.0.0.1:9")
            .overrideConfigKey("quarkus.http.test-port", "0");

    @Inject
    Instance<CashuRail> cashu;

    @Inject
    Instance<SettlementRail> rails;

    @TestHTTPResource("/cashu/v1/pay")
    URL pay;

    @TestHTTPResource("/q/health/ready")
    URL ready;

    @Test
    void noRailBeanWhenDisabled() {
        assertFalse(cashu.isResolvable());
        assertTrue(rails.stream().noneMatch(r -> r.id().startsWith("cashu:")));
    }

    @Test
    void thePayRouteAnswers503WithTheReason() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(pay.toString()))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(503, r.statusCode(), r.body());
        assertTrue(r.body().contains("takes no Cashu payments"), r.body());
        HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create(pay.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(405, get.statusCode(), get.body());
    }

    @Test
    void readinessSaysDisabled() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(ready.toString()))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().contains("\"cashu\"") && r.body().contains("disabled"), r.body());
    }
}
