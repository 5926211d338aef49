package org.fleetmesh;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An official vector file from {@code ../shared/vectors} (system property {@code fleetmesh.vectors.dir}):
 * its path when present, else the reason the tests that need it are skipped.
 */
public record VectorFile(Path path, String absence) {

    public static VectorFile named(String file, String what) {
        String dir = System.getProperty("fleetmesh.vectors.dir");
        Path f = dir == null || dir.isBlank() ? null : Path.of(dir).resolve(file);
        if (f == null) {
            return new VectorFile(null, "system property fleetmesh.vectors.dir is not set; skipping the " + what + " vectors");
        }
        if (!Files.isRegularFile(f)) {
            return new VectorFile(null, what + " vectors not found at " + f.toAbsolutePath().normalize() + "; skipping them");
        }
        return new VectorFile(f, null);
    }
}
