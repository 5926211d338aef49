package org.fleetmesh.peering;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/** The Quarkus edges of this mechanism live in {@code .quarkus}; the rest imports no framework. */
class ProtocolIsPureTest {
    private static final Pattern EDGE = Pattern.compile(
            "^import (static )?(jakarta\\.|io\\.quarkus\\.|io\\.smallrye\\.config\\.|org\\.eclipse\\.microprofile\\.)",
            Pattern.MULTILINE);

    @Test
    void noClassOutsideQuarkusImportsCdiConfigOrQuarkus() throws IOException {
        Path root = Path.of("src/main/java/org/fleetmesh/peering");
        try (Stream<Path> files = Files.walk(root)) {
            List<String> edges = files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !root.relativize(f).startsWith("quarkus"))
                    .filter(f -> {
                        try {
                            return EDGE.matcher(Files.readString(f)).find();
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .map(f -> root.relativize(f).toString()).sorted().collect(Collectors.toList());
            assertEquals(List.of(), edges, "move these to org.fleetmesh.peering.quarkus");
        }
    }
}
