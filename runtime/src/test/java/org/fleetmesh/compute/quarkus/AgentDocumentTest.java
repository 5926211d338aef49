package org.fleetmesh.compute.quarkus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** The OpenAPI document lists exactly the routes served, and the served copy is the one in docs/spec. */
class AgentDocumentTest {
    static final Path SPEC = Path.of("..", "docs", "spec", "compute-agent-api.yaml");
    private static final Pattern PATH = Pattern.compile("^  (/\\S+):\\s*$");
    private static final Pattern METHOD = Pattern.compile("^    (get|put|post|delete|patch|head|options):\\s*$");

    /** "METHOD /path" for each operation under {@code paths:} (two-space indented paths, four-space methods). */
    static List<String> operations(String yaml) {
        List<String> ops = new ArrayList<>();
        boolean inPaths = false;
        String path = null;
        for (String line : yaml.split("\n")) {
            if (!line.startsWith(" ") && !line.isBlank()) {
                inPaths = line.startsWith("paths:");
                path = null;
                continue;
            }
            if (!inPaths) {
                continue;
            }
            Matcher p = PATH.matcher(line);
            if (p.matches()) {
                path = p.group(1);
                continue;
            }
            Matcher m = METHOD.matcher(line);
            if (m.matches() && path != null) {
                ops.add(m.group(1).toUpperCase(java.util.Locale.ROOT) + " " + path);
            }
        }
        return ops;
    }

    @Test
    void servedCopyIsTheSpecsFile() throws Exception {
        byte[] spec = Files.readAllBytes(SPEC);
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(AgentRoutes.OPENAPI)) {
            assertArrayEquals(spec, in.readAllBytes(), "runtime/src/main/resources/" + AgentRoutes.OPENAPI
                    + " must be a copy of docs/spec/compute-agent-api.yaml");
        }
    }

    @Test
    void documentListsExactlyTheRoutesServed() throws Exception {
        List<String> ops = operations(Files.readString(SPEC, StandardCharsets.UTF_8));
        Set<String> documented = new TreeSet<>(ops);
        assertEquals(ops.size(), documented.size(), "each operation once");
        assertEquals(new TreeSet<>(AgentRoutes.ROUTES), documented);
    }
}
