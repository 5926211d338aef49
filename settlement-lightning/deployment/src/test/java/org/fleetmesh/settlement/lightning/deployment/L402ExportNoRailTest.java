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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;

/** Without a SettlementRail bean the export answers 503 with the reason, not 500; a bad filter is still 400. */
class L402ExportNoRailTest {
    static final Path DATA = Path.of("target", "l402-norail-test-data").toAbsolutePath();

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(TestStore.class))
            .overrideConfigKey("fleetmesh.data-dir", DATA.toString())
            .overrideConfigKey("fleetmesh.l402.enabled", "true")
            .overrideConfigKey("fleetmesh.l402.path", "/paid/events")
            .overrideConfigKey("quarkus.http.test-port", "0");

    @TestHTTPResource("/paid/events")
    URL export;

    @Test
    void unavailableWithoutARail() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String q = "?filter=" + URLEncoder.encode("{\"kinds\":[1]}", StandardCharsets.UTF_8);
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(export + q)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(503, r.statusCode(), r.body());
        assertTrue(r.body().contains("\"error\":\"unavailable\"") && r.body().contains("no settlement rail"), r.body());
        HttpResponse<String> bad = http.send(HttpRequest.newBuilder(URI.create(export + "?filter=%7B")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, bad.statusCode(), bad.body());
        HttpResponse<String> badEscape = http.send(HttpRequest.newBuilder(URI.create(export + "?filter=%E9%7B")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, badEscape.statusCode(), badEscape.body());
    }
}
