package org.fleetmesh.meshnode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code meshnode compute run}: the JSON on success, the reason and exit 1 on failure, exit 2 for usage. */
class ComputeCommandTest {
    @TempDir
    Path dir;

    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    Path module(String name) throws IOException {
        Path p = dir.resolve(name + ".wasm");
        try (InputStream in = getClass().getResourceAsStream("/wasm/" + name + ".wasm")) {
            Files.write(p, in.readAllBytes());
        }
        return p;
    }

    int run(String... args) {
        return ComputeCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void printsTheResultAsOneLineOfJson() throws IOException {
        Path input = dir.resolve("in.txt");
        Files.writeString(input, "hello\n");
        int code = run("compute", "run", module("upper").toString(), "--input", input.toString(), "--fuel", "1000000",
                "--memory-pages", "16", "--runtime", "chicory-interpreter");
        assertEquals(0, code, err.toString());
        String line = out.toString(StandardCharsets.UTF_8);
        assertEquals(1, line.split("\n").length);
        JsonNode j = new ObjectMapper().readTree(line);
        assertEquals(0, j.get("exit_code").asInt());
        assertEquals("HELLO\n", new String(Base64.getDecoder().decode(j.get("stdout").asText()), StandardCharsets.UTF_8));
        assertEquals("", j.get("stderr").asText());
        assertTrue(j.get("fuel_used").asLong() > 0);
        assertEquals(64, j.get("module_hash").asText().length());
        assertEquals(64, j.get("input_digest").asText().length());
        assertEquals(64, j.get("output_digest").asText().length());
    }

    @Test
    void aFailedJobPrintsItsReasonAndExitsOne() throws IOException {
        assertEquals(1, run("compute", "run", module("spin").toString(), "--fuel", "100000"));
        assertEquals("meshnode: compute: fuel exhausted\n", err.toString(StandardCharsets.UTF_8));
        assertEquals("", out.toString());
        err.reset();
        assertEquals(1, run("compute", "run", module("forbidden_import").toString()));
        assertEquals("meshnode: compute: import not allowed: env.foo\n", err.toString(StandardCharsets.UTF_8));
        err.reset();
        assertEquals(1, run("compute", "run", module("spin").toString(), "--fuel", "1000000000000", "--timeout",
                "300ms"));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("meshnode: compute: timeout"), err.toString());
    }

    @Test
    void badCommandLinesAreUsageErrors() throws IOException {
        String m = module("upper").toString();
        assertThrows(UsageException.class, () -> run("compute", "run"));
        assertThrows(UsageException.class, () -> run("compute", "run", m, "--fuel", "lots"));
        assertThrows(UsageException.class, () -> run("compute", "run", m, "--runtime", "nope"));
        assertThrows(UsageException.class, () -> run("compute", "run", m, "--seed", "abc"));
        assertThrows(UsageException.class, () -> run("compute", "run", m, "--bogus", "1"));
    }
}
