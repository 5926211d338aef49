package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs the {@code ./meshnode} launcher on a data dir, as an operator would. */
final class Launcher {
    static final Pattern SUMMARY = Pattern.compile("(?m)^accepted (\\d+), duplicate (\\d+), rejected (\\d+)");

    record Run(int exit, String stdout, String stderr) {
        /** accepted, duplicate, rejected from an {@code import} report. */
        long[] summary() {
            Matcher m = SUMMARY.matcher(stderr);
            assertTrue(m.find(), "no 'accepted N, duplicate N, rejected N' line on stderr:\n" + stderr);
            return new long[] { Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)) };
        }

        /** The JSON summary line a {@code sync} prints last on stdout. */
        com.fasterxml.jackson.databind.JsonNode syncSummary() {
            String last = null;
            for (String line : stdout.split("\n")) {
                if (line.startsWith("{")) {
                    last = line;
                }
            }
            assertTrue(last != null, "no JSON summary on stdout:\n" + stdout + "\nstderr:\n" + stderr);
            return NostrClient.tree(last);
        }

        void assertCounts(long have, long need, long downloaded, long uploaded, long failed) {
            var s = syncSummary();
            String ctx = "summary " + s + "\nstderr:\n" + stderr;
            org.junit.jupiter.api.Assertions.assertEquals(have, s.path("have").asLong(-1), "have: " + ctx);
            org.junit.jupiter.api.Assertions.assertEquals(need, s.path("need").asLong(-1), "need: " + ctx);
            org.junit.jupiter.api.Assertions.assertEquals(downloaded, s.path("downloaded").asLong(-1), "downloaded: " + ctx);
            org.junit.jupiter.api.Assertions.assertEquals(uploaded, s.path("uploaded").asLong(-1), "uploaded: " + ctx);
            org.junit.jupiter.api.Assertions.assertEquals(failed, s.path("failed").asLong(-1), "failed: " + ctx);
            assertTrue(s.path("rounds").asLong(0) >= 1, "rounds: " + ctx);
            assertTrue(s.has("seconds"), "seconds: " + ctx);
        }
    }

    private Launcher() {
    }

    /** {@code ./meshnode <args>} with FLEETMESH_DATA_DIR={@code dir} and a file (or nothing) as stdin. */
    static Run run(Path dir, Path stdin, String... args) throws Exception {
        return runIn(MeshnodeProcess.projectRoot(), java.util.Map.of("FLEETMESH_DATA_DIR", dir.toString()), stdin, args);
    }

    /** As {@link #run(Path, Path, String...)}, with more environment variables ({@code env}) for the launcher. */
    static Run run(Path dir, java.util.Map<String, String> env, Path stdin, String... args) throws Exception {
        java.util.Map<String, String> all = new java.util.HashMap<>(env);
        all.put("FLEETMESH_DATA_DIR", dir.toString());
        return runIn(MeshnodeProcess.projectRoot(), all, stdin, args);
    }

    /**
     * {@code ./meshnode <args>} in {@code workingDir}, with no FLEETMESH_* or QUARKUS_* variable but {@code env},
     * and a file (or nothing) as stdin.
     */
    static Run runIn(Path workingDir, java.util.Map<String, String> env, Path stdin, String... args) throws Exception {
        Path root = MeshnodeProcess.projectRoot();
        Path launcher = root.resolve("meshnode");
        List<String> cmd = new ArrayList<>();
        if (!Files.isExecutable(launcher)) {
            cmd.add("bash");
        }
        cmd.add(launcher.toString());
        cmd.addAll(List.of(args));
        Path out = MeshnodeProcess.outputFile("meshnode-" + args[0], ".out");
        Path err = MeshnodeProcess.outputFile("meshnode-" + args[0], ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(workingDir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.redirectInput(stdin == null ? ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))
                : ProcessBuilder.Redirect.from(stdin.toFile()));
        pb.environment().keySet().removeIf(k -> k.startsWith("FLEETMESH_") || k.startsWith("QUARKUS_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(240, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("meshnode " + String.join(" ", args) + " did not finish:\n" + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
