package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Issue 18, fast start: the build is packaged so that a class archive (JDK 25's AOT cache, or a CDS archive on older
 * JDKs) can hold the node's own classes, not only the JDK's: every jar is on the application class path (Quarkus's
 * aot-jar layout; the fast-jar's own class loader keeps its classes out of any archive) and no jar is signed (the JVM
 * never archives a signed jar's classes). The last test checks the outcome itself, with the JVM that runs the tests.
 */
class PackagingIT {

    private static List<Path> jars(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList();
        }
    }

    @Test
    void everyLibraryIsOnTheApplicationClassPath() throws IOException {
        Path app = MeshnodeProcess.appDir();
        Manifest mf;
        try (JarFile run = new JarFile(app.resolve("quarkus-run.jar").toFile())) {
            mf = run.getManifest();
        }
        String classPath = mf.getMainAttributes().getValue("Class-Path");
        assertTrue(classPath != null && !classPath.isBlank(), "quarkus-run.jar names no Class-Path: not an aot-jar");
        Set<String> listed = Arrays.stream(classPath.trim().split("\\s+")).collect(Collectors.toSet());
        List<String> missing = new ArrayList<>();
        for (Path jar : jars(app.resolve("lib/main"))) {
            String rel = app.relativize(jar).toString().replace('\\', '/');
            if (!listed.contains(rel)) {
                missing.add(rel);
            }
        }
        assertEquals(List.of(), missing, "libraries the application class loader would not see");
    }

    @Test
    void noPackagedJarIsSigned() throws IOException {
        List<String> signed = new ArrayList<>();
        for (Path jar : jars(MeshnodeProcess.appDir())) {
            try (JarFile j = new JarFile(jar.toFile(), false)) {
                j.stream().map(e -> e.getName())
                        .filter(n -> n.startsWith("META-INF/") && n.indexOf('/', 9) < 0
                                && (n.endsWith(".SF") || n.endsWith(".RSA") || n.endsWith(".DSA") || n.endsWith(".EC")))
                        .forEach(n -> signed.add(jar.getFileName() + "!" + n));
            }
        }
        // a new Bouncy Castle names its signature files anew: meshnode-app's application.properties removes them
        // (quarkus.class-loading.removed-resources)
        assertEquals(List.of(), signed, "signature files in the packaged jars");
    }

    @Test
    void aClassArchiveHoldsTheNodesOwnClasses() throws Exception {
        Path work = MeshnodeProcess.newDataDir("archive");
        Path archive = work.resolve("node.jsa");
        Path classLog = work.resolve("classes.log");
        Path data = work.resolve("data");
        Files.createDirectories(data);
        MeshnodeProcess trained = MeshnodeProcess.startOn("archive", data,
                Map.of("JAVA_OPTS", "-XX:ArchiveClassesAtExit=" + archive), 0);
        trained.stop(); // the JVM writes the archive as it exits
        assertTrue(Files.size(archive) > 0, "no archive written; log:\n" + trained.logTail(40));
        MeshnodeProcess mapped = MeshnodeProcess.startOn("archive", data, Map.of("JAVA_OPTS",
                "-XX:SharedArchiveFile=" + archive + " -Xshare:on -Xlog:class+load=info:file=" + classLog), 0);
        try {
            assertTrue(mapped.isAlive());
        } finally {
            mapped.stop();
        }
        long own = 0;
        long archived = 0;
        for (String line : Files.readAllLines(classLog)) {
            // "[info][class,load] org.fleetmesh.relay.Relay source: shared objects file (top)"
            int at = line.indexOf("] org.fleetmesh.");
            if (at < 0 || line.contains("$$Lambda")) {
                continue;
            }
            own++;
            if (line.contains("source: shared objects file")) {
                archived++;
            }
        }
        assertTrue(own > 500, "the node loaded only " + own + " of its own classes?");
        // with the fast-jar layout, 484 of 583 on JDK 17 (its class loader defines them); with the aot-jar, all of them
        assertTrue(archived >= own * 95 / 100, archived + " of the node's " + own + " classes came from the archive");
        MeshnodeProcess.stopLeftoverPostmasters(data);
        MeshnodeProcess.deleteDataDir(work);
    }
}
