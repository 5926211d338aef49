package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipFile;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Adapters are chosen at build time (docs/OPERATING.md, "Choosing adapters"): this test builds the app a second time
 * with every optional adapter left out ({@code -Dno-lightning -Dno-cashu -Dno-wasmtime}), by Maven as an operator
 * would, into its own directory, and checks that the lean build carries none of their code, runs as a relay, refuses
 * settings that need what it left out, and that its CLI says which adapter a command needs.
 */
class AdapterChoiceIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static Path app;
    private static Path buildDir;

    @BeforeAll
    static void buildLeanApp() throws Exception {
        Path root = MeshnodeProcess.projectRoot();
        buildDir = MeshnodeProcess.targetDir().resolve("lean-build");
        Path log = MeshnodeProcess.targetDir().resolve("it-logs").resolve("lean-build.log");
        Files.createDirectories(log.getParent());
        // -am: the reactor's other modules come from this checkout (a CI machine has no org.fleetmesh in ~/.m2);
        // they are rebuilt in place with the same content, and the app itself goes to lean-build/, not target/
        List<String> cmd = new ArrayList<>(List.of("mvn", "-B", "-q", "-o", "-ntp", "package", "-DskipTests",
                "-DskipExtensionValidation", "-pl", "meshnode-app", "-am", "-Dno-lightning", "-Dno-cashu", "-Dno-wasmtime",
                "-Dmeshnode.build.dir=" + buildDir));
        Process p = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(15, TimeUnit.MINUTES), "the lean build took over 15 minutes; log " + log);
        assertEquals(0, p.exitValue(), "the lean build failed; log " + log + ":\n" + Files.readString(log));
        app = buildDir.resolve("quarkus-app");
        assertTrue(Files.isRegularFile(app.resolve("quarkus-run.jar")), "no quarkus-run.jar under " + app);
    }

    @Test
    void theLeanBuildCarriesNoneOfTheLeftOutAdapters() throws IOException {
        List<String> libs;
        try (Stream<Path> s = Files.list(app.resolve("lib/main"))) {
            libs = s.map(f -> f.getFileName().toString()).sorted().toList();
        }
        assertTrue(libs.stream().anyMatch(n -> n.startsWith("org.fleetmesh.fleetmesh-storage-postgres-")), libs.toString());
        for (String gone : List.of("fleetmesh-settlement-lightning", "fleetmesh-settlement-cashu", "fleetmesh-compute-wasmtime",
                "org.lightningj.", "wasmtime-java", "io.grpc.")) {
            assertTrue(libs.stream().noneMatch(n -> n.contains(gone)), gone + " is in the lean build: " + libs);
        }
        Path appJar;
        try (Stream<Path> s = Files.list(app.resolve("app"))) {
            appJar = s.filter(f -> f.getFileName().toString().endsWith(".jar")).findFirst().orElseThrow();
        }
        try (ZipFile zip = new ZipFile(appJar.toFile())) {
            assertTrue(zip.stream().noneMatch(e -> e.getName().startsWith("org/fleetmesh/meshnode/lightning/")
                    || e.getName().startsWith("org/fleetmesh/meshnode/cashu/")), "adapter commands in " + appJar);
            assertTrue(zip.getEntry("org/fleetmesh/meshnode/Cli.class") != null, "no Cli in " + appJar);
        }
    }

    @Test
    void theLeanBuildIsARelayWithoutRails() throws Exception {
        try (MeshnodeProcess node = MeshnodeProcess.startApp(app, "lean", Map.of())) {
            JsonNode ready = NostrClient.tree(get(node.httpUri().resolve("/q/health/ready"), "application/json").body());
            assertEquals("UP", ready.path("status").asText(), ready.toString());
            for (JsonNode check : ready.path("checks")) {
                String name = check.path("name").asText().toLowerCase();
                assertFalse(name.contains("lnd") || name.contains("cashu") || name.contains("lightning"),
                        "a rail's check in a build without rails: " + ready);
            }
            HttpResponse<String> info = get(node.httpUri(), "application/nostr+json");
            assertEquals(200, info.statusCode());
            assertTrue(NostrClient.tree(info.body()).path("supported_nips").isArray(), info.body());
            Keys k = Keys.fresh();
            try (NostrClient c = NostrClient.connect(node)) {
                var e = k.note(Keys.now(), "a lean node stores notes too");
                assertTrue(c.publishAndWait(e).accepted());
                List<JsonNode> got = c.query("q", FilterSpec.of().ids(e.id().toString()));
                assertEquals(1, got.size(), got.toString());
            }
        }
    }

    @Test
    void settingsThatNeedALeftOutAdapterStopTheStartWithTheReason() throws Exception {
        IllegalStateException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> MeshnodeProcess.startApp(app, "lean-cashu", Map.of("FLEETMESH_CASHU_ENABLED", "true",
                        "FLEETMESH_CASHU_MINT_URL", "http://127.0.0.1:9/")).close());
        assertTrue(refused.getMessage().contains("fleetmesh.cashu.enabled=true needs the adapter org.fleetmesh.settlement.cashu"),
                refused.getMessage());
        IllegalStateException noLnd = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> MeshnodeProcess.startApp(app, "lean-ln", Map.of("FLEETMESH_LIGHTNING_ENABLED", "true")).close());
        assertTrue(noLnd.getMessage().contains("needs the adapter org.fleetmesh.settlement.lightning"), noLnd.getMessage());
    }

    @Test
    void theLeanCliSaysWhichAdapterACommandNeeds() throws Exception {
        Path data = MeshnodeProcess.newDataDir("lean-cli");
        Launcher.Run bolt11 = Launcher.run(data, Map.of("MESHNODE_APP", app.toString()), null, "bolt11", "decode", "lnbc1");
        assertEquals(2, bolt11.exit(), bolt11.stderr());
        assertTrue(bolt11.stderr().contains("'bolt11' needs the lightning adapter"), bolt11.stderr());
        Launcher.Run cashu = Launcher.run(data, Map.of("MESHNODE_APP", app.toString()), null, "cashu", "balance");
        assertEquals(2, cashu.exit(), cashu.stderr());
        assertTrue(cashu.stderr().contains("'cashu' needs the cashu adapter"), cashu.stderr());
        // the full build, by contrast, has both (the same command line, the default app)
        Launcher.Run full = Launcher.run(data, Map.of(), null, "bolt11", "decode", "lnbc1");
        assertEquals(1, full.exit(), full.stderr());
        assertTrue(full.stderr().contains("invalid invoice"), full.stderr());
    }

    private static HttpResponse<String> get(URI uri, String accept) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri).header("Accept", accept).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
