package org.fleetmesh.settlement.lightning.deployment;

import org.fleetmesh.settlement.lightning.l402.L402Challenge;
import org.fleetmesh.settlement.lightning.l402.L402RootKey;
import org.fleetmesh.settlement.lightning.l402.MemoryRail;

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
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11;
import org.fleetmesh.spi.settlement.Preimage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;

/**
 * Boots the extension with an in-memory store and rail and talks HTTP to the real route: 402 with
 * the L402 challenge headers, then 200 with the paid events as JSONL, and the refusals.
 */
class L402ExportRouteTest {
    /** Fixed: the class is loaded twice (JUnit and Quarkus class loaders), a random name would differ. */
    static final Path DATA = Path.of("target", "l402-route-test-data").toAbsolutePath();
    static final PubKey ALICE = new PubKey(fill(32, 0xa1));
    static final String FILTER = "{\"kinds\":[1],\"authors\":[\"" + ALICE.hex() + "\"]}";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(TestStore.class, TestRail.class, L402ExportRouteTest.class))
            .overrideConfigKey("fleetmesh.data-dir", DATA.toString())
            .overrideConfigKey("fleetmesh.l402.enabled", "true")
            .overrideConfigKey("fleetmesh.l402.price-msat-per-event", "1500")
            .overrideConfigKey("fleetmesh.l402.min-price-msat", "2000")
            .overrideConfigKey("quarkus.http.test-port", "0");

    @TestHTTPResource("/l402/export")
    URL export;

    @Inject
    TestStore store;

    @Inject
    TestRail rail;

    final HttpClient http = HttpClient.newHttpClient();

    static byte[] fill(int n, int v) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) v);
        return b;
    }

    HttpResponse<String> get(String filter, String authorization) throws Exception {
        String q = filter == null ? "" : "?filter=" + URLEncoder.encode(filter, StandardCharsets.UTF_8);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(export + q)).timeout(Duration.ofSeconds(30));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void payThenExport() throws Exception {
        store.events.clear();
        List<Event> alice = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            alice.add(store.add(ALICE, 1, 1000 + i, i));
        }
        store.add(new PubKey(fill(32, 0xb0)), 1, 5000, 9);

        HttpResponse<String> challenge = get(FILTER, null);
        assertEquals(402, challenge.statusCode(), challenge.body());
        List<String> auth = challenge.headers().allValues("WWW-Authenticate");
        assertEquals(2, auth.size(), auth.toString());
        assertTrue(auth.get(0).startsWith("L402 version=\"0\", token=\""), auth.get(0));
        assertTrue(auth.get(1).startsWith("LSAT macaroon=\""), auth.get(1));
        assertTrue(challenge.body().contains("\"price_msat\":4500"), challenge.body());
        L402Challenge parsed = L402Challenge.parse(auth.get(0)).orElseThrow();
        assertEquals(4500, Bolt11.decode(parsed.invoice()).amountMsat().getAsLong());
        assertTrue(Files.exists(DATA.resolve("keys").resolve(L402RootKey.FILE_NAME)));
        assertEquals("rw-------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(DATA.resolve("keys").resolve(L402RootKey.FILE_NAME))));

        Preimage preimage = rail.pay(parsed.invoice(), 0).preimage().orElseThrow();
        String header = "L402 " + parsed.macaroon().toBase64() + ":" + preimage.revealHex();
        HttpResponse<String> paid = get(FILTER, header);
        assertEquals(200, paid.statusCode(), paid.body());
        assertEquals("application/x-ndjson", paid.headers().firstValue("Content-Type").orElseThrow());
        assertEquals(alice.get(2).json() + "\n" + alice.get(1).json() + "\n" + alice.get(0).json() + "\n", paid.body());

        HttpResponse<String> wrong = get(FILTER, "L402 " + parsed.macaroon().toBase64() + ":" + Preimage.random().revealHex());
        assertEquals(401, wrong.statusCode());
        assertTrue(wrong.body().contains("\"error\":\"wrong_preimage\""), wrong.body());
        HttpResponse<String> mismatch = get("{\"kinds\":[1]}", header);
        assertEquals(401, mismatch.statusCode());
        assertTrue(mismatch.body().contains("\"error\":\"filter_mismatch\""), mismatch.body());
        HttpResponse<String> badFilter = get("{\"kinds\":", header);
        assertEquals(400, badFilter.statusCode());
        assertEquals(400, get(null, null).statusCode());
        HttpResponse<String> malformed = get(FILTER, "L402 ::");
        assertEquals(401, malformed.statusCode());
        assertTrue(malformed.body().contains("\"error\":\"malformed_authorization\""), malformed.statusCode() + " " + malformed.body());
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(export.toURI()).POST(HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
    }

    /** The runtime module's in-memory rail (real regtest BOLT-11 invoices; pay() hands the preimage back) as a bean. */
    @ApplicationScoped
    public static class TestRail extends MemoryRail {
    }
}
