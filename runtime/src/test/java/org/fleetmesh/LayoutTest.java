package org.fleetmesh;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The layout shows the architecture: the top level holds only the design's mechanisms, and in each
 * the Quarkus edges (CDI, config, endpoints) live in its {@code quarkus} sub-package while the rest
 * imports no framework.
 */
class LayoutTest {
    private static final Path SOURCES = Path.of("src/main/java/org/fleetmesh");
    private static final Set<String> MECHANISMS = Set.of("nostr", "relay", "negentropy", "identity", "peering",
            "delivery", "shards", "standing", "compute", "settlement",
            // the operator's mechanisms (issue 18): the live status page, and which adapters a build carries
            "status", "adapters",
            // the process's own footprint (issue 17): the heap trim
            "memory");
    private static final Pattern EDGE = Pattern.compile(
            "^import (static )?(jakarta\\.|io\\.quarkus\\.|io\\.smallrye\\.config\\.|org\\.eclipse\\.microprofile\\.)",
            Pattern.MULTILINE);

    @Test
    void theTopLevelHoldsOnlyMechanisms() throws IOException {
        try (Stream<Path> entries = Files.list(SOURCES)) {
            List<String> other = entries.map(p -> p.getFileName().toString())
                    .filter(n -> !MECHANISMS.contains(n)).sorted().collect(Collectors.toList());
            assertEquals(List.of(), other, "not a mechanism of the design: " + other);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "relay", "negentropy", "identity", "peering", "settlement", "nostr", "shards", "status",
        "adapters", "memory" })
    void noClassOutsideQuarkusImportsCdiConfigOrQuarkus(String mechanism) throws IOException {
        Path root = SOURCES.resolve(mechanism);
        try (Stream<Path> files = Files.walk(root)) {
            List<String> edges = files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !root.relativize(f).startsWith("quarkus"))
                    .filter(f -> {
                        try {
                            return EDGE.matcher(Files.readString(f)).find();
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .map(f -> root.relativize(f).toString()).sorted().collect(Collectors.toList());
            assertEquals(List.of(), edges, "move these to org.fleetmesh." + mechanism + ".quarkus");
        }
    }
}
