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

    /**
     * The launcher's CLI archive (docs/OPERATING.md "Fast start"): the first CLI command after a build writes it beside
     * the build, with a stamp of the JVM and options; the next maps it, and its output is only the command's. The JVM
     * is the test's own behind a wrapper that logs where each class came from (the wrapper is the launcher's
     * MESHNODE_JAVA, so the stamp names it in both runs).
     */
    @Test
    void theCliWritesItsClassArchiveOnceAndMapsItAfterwards() throws Exception {
        Path app = MeshnodeProcess.appDir();
        Path jsa = app.resolve("meshnode-cli.jsa");
        Path stamp = app.resolve("meshnode-cli.jsa.stamp");
        Path work = MeshnodeProcess.newDataDir("cli-archive");
        Path data = work.resolve("data");
        Files.createDirectories(data);
        Path bin = Files.createDirectories(work.resolve("jdk/bin"));
        Path java = bin.resolve("java");
        String real = ProcessHandle.current().info().command().orElseThrow();
        Files.writeString(java, "#!/bin/sh\nexec " + real + " -Xlog:class+load=info:file=" + work
                + "/load-$$.log \"$@\"\n");
        java.toFile().setExecutable(true);
        Files.deleteIfExists(jsa);
        Files.deleteIfExists(stamp);
        Map<String, String> env = Map.of("FLEETMESH_DATA_DIR", data.toString(), "MESHNODE_JAVA", java.toString());
        Launcher.Run first = Launcher.runIn(work, env, null, "did", "show");
        assertEquals(0, first.exit(), first.stderr());
        assertTrue(Files.size(jsa) > 1_000_000, "the first CLI run wrote no archive: " + first.stderr());
        assertTrue(Files.readString(stamp).startsWith(java.toRealPath().toString() + " "), Files.readString(stamp));
        String did = NostrClient.tree(first.stdout()).path("did").asText();
        assertTrue(did.startsWith("did:peer:4"), first.stdout());
        try (Stream<Path> logs = Files.list(work)) {
            logs.filter(f -> f.getFileName().toString().startsWith("load-")).forEach(f -> f.toFile().delete());
        }
        long written = Files.getLastModifiedTime(jsa).toMillis();
        Launcher.Run second = Launcher.runIn(work, env, null, "did", "show");
        assertEquals(0, second.exit(), second.stderr());
        assertEquals(did, NostrClient.tree(second.stdout()).path("did").asText(), "stdout is the command's alone");
        assertEquals(written, Files.getLastModifiedTime(jsa).toMillis(), "not written again");
        long own = 0;
        long archived = 0;
        try (Stream<Path> logs = Files.list(work)) {
            for (Path log : logs.filter(f -> f.getFileName().toString().startsWith("load-")).toList()) {
                for (String line : Files.readAllLines(log)) {
                    if (line.contains("] org.fleetmesh.") && !line.contains("$$Lambda")) {
                        own++;
                        archived += line.contains("source: shared objects file (top)") ? 1 : 0;
                    }
                }
            }
        }
        assertTrue(own > 20, "the CLI loaded " + own + " of the node's classes?");
        assertTrue(archived >= own * 95 / 100, archived + " of " + own + " came from the CLI's archive");
        // the archive names the wrapper: the next CLI run (with the usual JVM) would write its own anyway
        Files.deleteIfExists(jsa);
        Files.deleteIfExists(stamp);
        MeshnodeProcess.deleteDataDir(work);
    }
}
