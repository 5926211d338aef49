package org.fleetmesh.settlement.lightning.bolt12;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;

/**
 * The official BOLT #12 vector files, shipped in this module's test resources
 * ({@code src/test/resources/vectors/}, source and licence in the README there). A missing file fails
 * the test: conformance tests never skip.
 */
final class Bolt12Vectors {
    private Bolt12Vectors() {
    }

    static JsonNode load(String file) throws IOException {
        try (InputStream in = Bolt12Vectors.class.getResourceAsStream("/vectors/" + file)) {
            if (in == null) {
                throw new AssertionError("official vector file vectors/" + file
                        + " is missing from the test resources (see src/test/resources/vectors/README.md)");
            }
            return new ObjectMapper().readTree(in);
        }
    }
}
