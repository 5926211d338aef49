package org.fleetmesh;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;

/**
 * An official vector file shipped in this module's test resources ({@code src/test/resources/vectors/},
 * sources and licences in the README there). A missing file fails the test that needs it: conformance
 * tests never skip.
 */
public final class VectorFile {
    private VectorFile() {
    }

    public static Path named(String file) {
        URL url = VectorFile.class.getResource("/vectors/" + file);
        if (url == null) {
            throw new AssertionError("official vector file vectors/" + file
                    + " is missing from the test resources (see src/test/resources/vectors/README.md)");
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError("unreadable vector path " + url, e);
        }
    }
}
