package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The job ABI is plain WASI preview 1 (docs/spec/compute-runtimes.md, "Interop"): each deterministic test module, on
 * the same stdin and arguments, prints the same stdout and stderr and exits with the same code under Node's
 * {@code node:wasi} as under {@code ./meshnode compute run} on chicory and on wasmtime. The module {@code info}
 * reads the clocks and random_get, which node:wasi does not pin: only its argv lines are compared.
 */
class WasiInteropIT {
    record Case(String module, String input, List<String> args) {
    }

    static final List<Case> CASES = List.of(
            new Case("upper", "hello, fleetmesh\nÜnïcödé stays as it is\n", List.of()),
            new Case("sha256sum", "abc", List.of()),
            new Case("sha256sum", "the quick brown fox\n".repeat(3000), List.of("7")),
            new Case("floats", "", List.of()),
            new Case("exit", "", List.of()),
            new Case("count", "", List.of()),
            new Case("bulk", "", List.of()),
            new Case("nan", "", List.of()));

    /** How a run ended; stdout and stderr as the guest wrote them (any bytes), as base64 so they compare exactly. */
    record Out(int exit, String stdout, String stderr) {
        static Out of(int exit, byte[] stdout, byte[] stderr) {
            return new Out(exit, Base64.getEncoder().encodeToString(stdout), Base64.getEncoder().encodeToString(stderr));
        }

        String text() {
            return new String(Base64.getDecoder().decode(stdout), StandardCharsets.UTF_8);
        }

        String errText() {
            return new String(Base64.getDecoder().decode(stderr), StandardCharsets.UTF_8);
        }
    }

    /** A process's exit code and output, as text. */
    record Proc(int exit, String stdout, String stderr) {
    }

    static Path dir() throws IOException {
        Path d = MeshnodeProcess.targetDir().resolve("wasi-interop");
        Files.createDirectories(d);
        return d;
    }

    static Path module(String name) throws IOException {
        Path p = dir().resolve(name + ".wasm");
        try (InputStream in = WasiInteropIT.class.getResourceAsStream("/wasm/" + name + ".wasm")) {
            Files.write(p, in.readAllBytes());
        }
        return p;
    }

    static Proc exec(List<String> cmd) throws IOException, InterruptedException {
        Path out = MeshnodeProcess.outputFile("wasi-", ".out");
        Path err = MeshnodeProcess.outputFile("wasi-", ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(String.join(" ", cmd) + " did not finish in 120 s");
        }
        return new Proc(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** The module under node:wasi: exit code, stdout and stderr of the guest. */
    static Out node(Path module, Path input, List<String> args) throws Exception {
        Path script = dir().resolve("wasi-run.mjs");
        Files.copy(Path.of(System.getProperty("meshnode.it.js", "src/test/js"), "wasi-run.mjs"), script,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Path out = Files.createTempFile(dir(), "guest-", ".out");
        Path err = Files.createTempFile(dir(), "guest-", ".err");
        List<String> cmd = new ArrayList<>(List.of("node", "--no-warnings", script.toString(), module.toString(),
                input.toString(), out.toString(), err.toString()));
        cmd.addAll(args);
        Proc o = exec(cmd);
        assertEquals(0, o.exit(), "node: " + o.stderr());
        int code = NostrClient.JSON.readTree(o.stdout()).path("exit_code").asInt(-1);
        return Out.of(code, Files.readAllBytes(out), Files.readAllBytes(err));
    }

    /** The module under {@code ./meshnode compute run} on {@code runtime}. */
    static Out meshnode(Path module, Path input, List<String> args, String runtime) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(MeshnodeProcess.projectRoot().resolve("meshnode").toString(),
                "compute", "run", module.toString(), "--input", input.toString(), "--runtime", runtime));
        for (String a : args) {
            cmd.add("--arg");
            cmd.add(a);
        }
        Proc o = exec(cmd);
        assertEquals(0, o.exit(), "meshnode compute run: " + o.stderr());
        JsonNode j = NostrClient.JSON.readTree(o.stdout());
        return new Out(j.path("exit_code").asInt(), j.path("stdout").asText(), j.path("stderr").asText());
    }

    static void requireNode() throws Exception {
        try {
            Proc v = exec(List.of("node", "--version"));
            Assumptions.assumeTrue(v.exit() == 0 && v.stdout().compareTo("v20") >= 0,
                    "node:wasi with version preview1 needs Node 20 or later, have " + v.stdout().trim());
        } catch (IOException noNode) {
            Assumptions.abort("node is not installed, so the node:wasi interop test cannot run: " + noNode.getMessage());
        }
    }

    @Test
    void nodeWasiAndMeshnodeAgree() throws Exception {
        requireNode();
        int n = 0;
        for (Case c : CASES) {
            Path module = module(c.module());
            Path input = dir().resolve("input-" + n++);
            Files.writeString(input, c.input(), StandardCharsets.UTF_8);
            Out node = node(module, input, c.args());
            for (String runtime : List.of("chicory", "wasmtime")) {
                Out ours = meshnode(module, input, c.args(), runtime);
                assertEquals(node, ours, c.module() + " " + c.args() + " on " + runtime + " vs node:wasi: stdout\n"
                        + ours.text() + "\nvs\n" + node.text());
            }
        }
    }

    @Test
    void argumentsReachTheGuestAsUnderNodeWasi() throws Exception {
        requireNode();
        Path module = module("info");
        Path input = dir().resolve("input-info");
        Files.writeString(input, "", StandardCharsets.UTF_8);
        List<String> args = List.of("one", "two words", "ünï", "");
        Out node = node(module, input, args);
        for (String runtime : List.of("chicory", "wasmtime")) {
            Out ours = meshnode(module, input, args, runtime);
            assertEquals(node.exit(), ours.exit(), runtime);
            assertEquals(argv(node.text()), argv(ours.text()), runtime);
            assertTrue(argv(ours.text()).contains("argv[2]=two words"), ours.text());
            assertEquals(node.stderr(), ours.stderr(), runtime);
        }
    }

    private static List<String> argv(String stdout) {
        return stdout.lines().filter(l -> l.startsWith("argv[")).toList();
    }
}
