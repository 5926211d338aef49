package org.fleetmesh.meshnode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher script ({@code ./meshnode}) around the CLI, with a stand-in for the JVM ({@code MESHNODE_JAVA}) that
 * reports what it was given: no build and no JVM started.
 */
class LauncherTest {
    @TempDir
    Path tmp;

    /** Runs {@code script} under bash with the launcher as $0 and a fake JVM that prints its standard descriptors. */
    private String run(String script) throws Exception {
        return run(script, "17.0.1");
    }

    /** ... with a JVM of {@code version} (its release file), which also reports its arguments. */
    private String run(String script, String version) throws Exception {
        Path launcher = Path.of("").toAbsolutePath().getParent().resolve("meshnode");
        assertTrue(Files.isRegularFile(launcher), launcher.toString());
        Path app = Files.createDirectories(tmp.resolve("app"));
        Files.writeString(app.resolve("quarkus-run.jar"), "");
        Path jdk = Files.createDirectories(tmp.resolve("jdk/bin"));
        Files.writeString(tmp.resolve("jdk/release"), "JAVA_VERSION=\"" + version + "\"\n");
        Path java = jdk.resolve("java");
        Path report = tmp.resolve("fds");
        Files.writeString(java, "#!/bin/sh\nexec 3> '" + report + "'\n"
                + "for fd in 0 1 2; do echo \"$fd $(readlink /proc/$$/fd/$fd || echo closed)\" >&3; done\n"
                + "echo \"args $*\" >&3\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", script, launcher.toString());
        pb.environment().put("MESHNODE_APP", app.toString());
        pb.environment().put("MESHNODE_JAVA", java.toString());
        pb.environment().put("MESHNODE_AOT", "off");
        pb.redirectOutput(tmp.resolve("out").toFile()).redirectError(tmp.resolve("err").toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the launcher did not end");
        assertEquals(0, p.exitValue(), Files.readString(tmp.resolve("err")));
        return Files.readString(report, StandardCharsets.UTF_8);
    }

    @Test
    void aClosedStandardDescriptorReachesTheJvmAsDevNull() throws Exception {
        // closed, fd 0 was the JVM's first open file (its lib/modules), which `import` read as JSONL
        String fds = run("exec 0<&- 1>&- 2>&-; exec \"$0\" import");
        assertTrue(fds.contains("0 /dev/null\n"), fds);
        assertTrue(fds.contains("1 /dev/null\n"), fds);
        assertTrue(fds.contains("2 /dev/null\n"), fds);
    }

    @Test
    void openDescriptorsAreLeftAsTheyAre() throws Exception {
        Path in = Files.writeString(tmp.resolve("in.jsonl"), "");
        String fds = run("exec \"$0\" import < '" + in + "'");
        assertTrue(fds.contains("0 " + in.toRealPath() + "\n"), fds);
    }

    @Test
    void onJdk25ACommandsJvmLetsNettyUseUnsafeWithoutAWarningOnStderr() throws Exception {
        String on25 = run("exec \"$0\" import < /dev/null", "25.0.1");
        assertTrue(on25.contains("--sun-misc-unsafe-memory-access=allow"), on25);
        String on17 = run("exec \"$0\" import < /dev/null", "17.0.1");
        assertTrue(on17.contains("args ") && !on17.contains("--sun-misc-unsafe-memory-access"), on17);
    }

    /** Every command the launcher knows (the list its "unknown command" line gives) is in {@code meshnode help}. */
    @Test
    void theHelpNamesEveryCommandTheLauncherTakes() throws Exception {
        Path launcher = Path.of("").toAbsolutePath().getParent().resolve("meshnode");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("unknown command '\\$cmd' \\(try: ([a-z0-9, -]+)\\)")
                .matcher(Files.readString(launcher));
        assertTrue(m.find(), "the launcher's unknown-command line");
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        Cli.usage(new java.io.PrintStream(b, true, StandardCharsets.UTF_8));
        String help = b.toString(StandardCharsets.UTF_8);
        java.util.List<String> missing = new java.util.ArrayList<>();
        for (String c : m.group(1).split(",\\s*")) {
            if (!c.equals("help") && !java.util.regex.Pattern.compile("meshnode \\[?" + c + "\\b").matcher(help).find()) {
                missing.add(c);
            }
        }
        assertTrue(missing.isEmpty(), "not in meshnode help: " + missing);
    }
}
