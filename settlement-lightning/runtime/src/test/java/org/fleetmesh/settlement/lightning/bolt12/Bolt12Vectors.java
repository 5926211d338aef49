package org.fleetmesh.settlement.lightning.bolt12;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * The official BOLT #12 vector files, found as the runtime module's {@code org.fleetmesh.VectorFile}
 * finds its own: in the directory of the {@code fleetmesh.vectors.dir} system property, which the parent
 * pom's surefire configuration sets to {@code ../shared/vectors}. That helper lives in the runtime
 * module's test sources, which this module cannot see, hence this twin. Absent files skip the tests
 * with the reason, as there.
 */
final class Bolt12Vectors {
    private Bolt12Vectors() {
    }

    static JsonNode load(String file) throws IOException {
        String dir = System.getProperty("fleetmesh.vectors.dir");
        Assumptions.assumeTrue(dir != null && !dir.isBlank(),
                "system property fleetmesh.vectors.dir is not set; skipping the " + file + " vectors");
        Path f = Path.of(dir).resolve(file);
        Assumptions.assumeTrue(Files.isRegularFile(f),
                file + " not found at " + f.toAbsolutePath().normalize() + "; skipping it");
        return new ObjectMapper().readTree(f.toFile());
    }
}
