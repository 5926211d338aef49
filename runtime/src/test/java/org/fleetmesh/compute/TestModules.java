package org.fleetmesh.compute;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The committed test modules under src/test/resources/wasm/ (built by its build.sh), and jobs over them. */
public final class TestModules {
    public static final String ZERO_SEED = "0".repeat(64);

    private TestModules() {
    }

    public static byte[] load(String name) {
        try (InputStream in = TestModules.class.getResourceAsStream("/wasm/" + name + ".wasm")) {
            if (in == null) {
                throw new IllegalArgumentException("no test module " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static JobSpec spec(byte[] module, byte[] input, List<String> args, long fuel, int pages) {
        return new JobSpec(JobSpec.sha256(module), JobSpec.sha256(input), args, fuel, pages, 0, ZERO_SEED);
    }

    public static JobSpec spec(byte[] module, byte[] input) {
        return spec(module, input, List.of(), 1_000_000_000L, 256);
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
