package org.fleetmesh.settlement.cashu.nut;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Reads the NUT vector files under src/test/resources/nuts. */
public final class Vectors {
    private Vectors() {
    }

    public static JsonNode load(String file) {
        try (InputStream in = Vectors.class.getResourceAsStream("/nuts/" + file)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource nuts/" + file);
            }
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
