package org.fleetmesh.it;

import static org.fleetmesh.it.Keys.now;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.Test;

/**
 * The CLI reads the relay's configuration: a setting only in {@code config/application.properties} of the working
 * directory (as Quarkus reads it for {@code ./meshnode relay}) is honoured by {@code did show} and {@code import}.
 */
class CliConfigIT {

    @Test
    void dataDirFromConfigApplicationPropertiesIsHonouredByTheCli() throws Exception {
        Path work = MeshnodeProcess.newDataDir("cli-config-work");
        Path data = MeshnodeProcess.newDataDir("cli-config-data");
        Path file = work.resolve("events.jsonl");
        try {
            Files.createDirectories(work.resolve("config"));
            Files.writeString(work.resolve("config/application.properties"), "fleetmesh.data-dir=" + data + "\n",
                    StandardCharsets.UTF_8);

            Launcher.Run did = Launcher.runIn(work, Map.of(), null, "did", "show");
            assertEquals(0, did.exit(), did.stderr());
            assertFalse(Files.exists(work.resolve("data")), "the CLI used ./data, not the configured data dir");
            try (var keys = Files.list(data)) {
                assertTrue(keys.findAny().isPresent(), "did show created no keys in the configured data dir " + data);
            }
            Launcher.Run again = Launcher.runIn(work, Map.of(), null, "did", "show");
            assertEquals(NostrClient.tree(did.stdout()).path("did"), NostrClient.tree(again.stdout()).path("did"),
                    "the same keys both times");

            Event note = Keys.fresh().note(now() - 5, "imported through the configured data dir");
            Files.write(file, List.of(note.json()), StandardCharsets.UTF_8);
            Launcher.Run imported = Launcher.runIn(work, Map.of(), file, "import");
            assertEquals(0, imported.exit(), imported.stderr());
            assertEquals(1, imported.summary()[0], imported.stderr());

            // the usual way (FLEETMESH_DATA_DIR, the environment over the file) sees what the import stored
            Launcher.Run exported = Launcher.run(data, null, "export");
            assertEquals(0, exported.exit(), exported.stderr());
            assertEquals(note.id().hex(), NostrClient.tree(exported.stdout().strip()).path("id").asText(), exported.stderr());
            assertFalse(Files.exists(work.resolve("data")));
        } finally {
            MeshnodeProcess.stopLeftoverPostmasters(data);
            MeshnodeProcess.deleteDataDir(data);
            MeshnodeProcess.deleteDataDir(work);
        }
    }

    @Test
    void theEnvironmentOverridesConfigApplicationProperties() throws Exception {
        Path work = MeshnodeProcess.newDataDir("cli-config-env-work");
        Path fromFile = MeshnodeProcess.newDataDir("cli-config-file");
        Path fromEnv = MeshnodeProcess.newDataDir("cli-config-env");
        try {
            Files.createDirectories(work.resolve("config"));
            Files.writeString(work.resolve("config/application.properties"), "fleetmesh.data-dir=" + fromFile + "\n",
                    StandardCharsets.UTF_8);
            Launcher.Run did = Launcher.runIn(work, Map.of("FLEETMESH_DATA_DIR", fromEnv.toString()), null, "did", "show");
            assertEquals(0, did.exit(), did.stderr());
            try (var inEnv = Files.list(fromEnv); var inFile = Files.list(fromFile)) {
                assertTrue(inEnv.findAny().isPresent(), "keys belong in FLEETMESH_DATA_DIR");
                assertFalse(inFile.findAny().isPresent(), "the file's setting is below the environment's");
            }
        } finally {
            MeshnodeProcess.deleteDataDir(fromFile);
            MeshnodeProcess.deleteDataDir(fromEnv);
            MeshnodeProcess.deleteDataDir(work);
        }
    }
}
