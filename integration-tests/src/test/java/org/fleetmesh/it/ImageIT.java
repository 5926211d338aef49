package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code ./meshnode image} without a Docker daemon: builds the image tarball, checks its manifest and config (digests
 * included), unpacks its layers in order into a root file system and runs the image's entrypoint there as the image's
 * user (a private mount and PID namespace, {@code chroot --userspec}; the /data volume a directory bind-mounted in),
 * waits for /q/health/ready, runs the image's own health command, does a NIP-01 round trip and stops the node.
 * About three minutes on 2 cores (most of it jlink and Jib), so behind {@code -Dmeshnode.it.image=true}.
 */
@EnabledIfSystemProperty(named = "meshnode.it.image", matches = "true")
class ImageIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Pattern LISTENING = Pattern.compile("Listening on: http://[^\\s:]+:(\\d+)");

    @Test
    void imageBuildsLoadsAndServes() throws Exception {
        Path root = MeshnodeProcess.projectRoot();
        Path work = MeshnodeProcess.newDataDir("image");
        Path logs = MeshnodeProcess.targetDir().resolve("it-logs");
        Files.createDirectories(logs);

        // 1. build, as the operator would (the app is built already: the script, not the launcher, so no rebuild)
        Path buildLog = logs.resolve("image-build.log");
        run(List.of(root.resolve("deploy/image/build.sh").toString()), root, buildLog, Duration.ofMinutes(8));
        Path tarball = root.resolve("meshnode-app/target/meshnode-image.tar");
        assertTrue(Files.isRegularFile(tarball), "no image tarball at " + tarball);

        // 2. the tarball: docker-save layout, digests, config
        Path outer = Files.createDirectories(work.resolve("tar"));
        run(List.of("tar", "-xf", tarball.toString(), "-C", outer.toString()), work, logs.resolve("image-untar.log"),
                Duration.ofMinutes(2));
        JsonNode manifest = NostrClient.JSON.readTree(outer.resolve("manifest.json").toFile());
        assertEquals(1, manifest.size(), "one image in the tarball");
        JsonNode entry = manifest.get(0);
        assertTrue(entry.get("RepoTags").get(0).asText().startsWith("fleetmesh/meshnode:"), entry.toString());
        JsonNode config = NostrClient.JSON.readTree(outer.resolve(entry.get("Config").asText()).toFile());
        JsonNode c = config.get("config");
        String user = c.get("User").asText();
        assertTrue(user.matches("\\d+:\\d+"), "numeric user:group, not " + user);
        String uid = user.split(":")[0];
        String gid = user.split(":")[1];
        assertNotEquals("0", uid, "the image must not run as root");
        assertTrue(c.get("Volumes").has("/data"), "the /data volume: " + c);
        assertTrue(c.get("ExposedPorts").has("7777/tcp"), "port 7777 exposed: " + c);
        List<String> env = strings(c.get("Env"));
        assertTrue(env.contains("FLEETMESH_DATA_DIR=/data"), "data dir in the volume: " + env);
        List<String> entrypoint = strings(c.get("Entrypoint"));
        assertEquals("/opt/java/bin/java", entrypoint.get(0));
        assertEquals("/app/quarkus-run.jar", entrypoint.get(entrypoint.size() - 1));
        List<String> health = strings(c.get("Healthcheck").get("Test"));
        assertEquals("CMD", health.get(0), "an exec-form health command: " + health);
        assertEquals("/data", c.get("WorkingDir").asText());

        List<String> layers = strings(entry.get("Layers"));
        JsonNode diffIds = config.get("rootfs").get("diff_ids");
        assertEquals(layers.size(), diffIds.size(), "one diff_id per layer");
        for (int i = 0; i < layers.size(); i++) {
            Path layer = outer.resolve(layers.get(i));
            // Jib names each compressed layer by its digest; the config lists the uncompressed one
            assertEquals(layers.get(i).replaceAll("\\.tar\\.gz$", ""), sha256(layer, false), "layer file digest " + i);
            assertEquals(diffIds.get(i).asText(), "sha256:" + sha256(layer, true), "diff_id of layer " + i);
        }

        // 2b. podman load, where podman is installed (a daemonless loader; its own throwaway storage)
        Optional<Path> podman = onPath("podman");
        if (podman.isPresent()) {
            Path store = work.resolve("podman");
            // podman wants a run root of at most 50 characters
            Path runRoot = Files.createTempDirectory(Path.of("/tmp"), "mn-podman-");
            List<String> p = concat(List.of(podman.get().toString()), "--root", store.resolve("root").toString(),
                    "--runroot", runRoot.toString(), "--storage-driver", "vfs", "--cgroup-manager", "cgroupfs",
                    "--events-backend", "none");
            // crun cannot start containers under a hybrid cgroup v1 layout (this machine's); runc can
            Optional<String> runtime = Optional.ofNullable(System.getenv("MESHNODE_IT_OCI_RUNTIME"))
                    .or(() -> onPath("runc").map(Path::toString));
            if (runtime.isPresent()) {
                p = concat(p, "--runtime", runtime.get());
            }
            Path podmanLog = logs.resolve("image-podman.log");
            String tag = entry.get("RepoTags").get(0).asText();
            try {
                run(concat(p, "load", "-i", tarball.toString()), work, podmanLog, Duration.ofMinutes(3));
                Path inspected = logs.resolve("image-podman-inspect.log");
                run(concat(p, "image", "inspect", "--format", "{{.Config.User}} {{json .Config.Volumes}}", tag), work,
                        inspected, Duration.ofMinutes(1));
                String seen = Files.readString(inspected).trim();
                assertTrue(seen.startsWith(user + " ") && seen.contains("/data"), "podman sees " + seen);
                if (Boolean.parseBoolean(System.getProperty("meshnode.it.image.podman-run", "true"))) {
                    runUnderPodman(p, tag, uid, gid, work, logs);
                }
            } finally {
                exitCode(concat(p, "rm", "-a", "-f"), podmanLog);
                exitCode(concat(p, "rmi", "-a", "-f"), podmanLog);
                deleteTree(store);
                deleteTree(runRoot);
            }
        } else {
            System.out.println("ImageIT: podman is not installed: `podman load` not tried (apt-get install podman)");
        }

        // 3. the root file system: the layers in order
        Path rootfs = Files.createDirectories(work.resolve("rootfs"));
        for (String layer : layers) {
            run(List.of("tar", "--warning=no-unknown-keyword", "-xzf", outer.resolve(layer).toString(), "-C",
                    rootfs.toString()), work, logs.resolve("image-unpack.log"), Duration.ofMinutes(2));
        }
        try (Stream<Path> all = Files.walk(rootfs)) {
            assertFalse(all.anyMatch(p -> p.getFileName() != null && p.getFileName().toString().startsWith(".wh.")),
                    "no whiteouts expected in a fresh image");
        }
        String passwd = Files.readString(rootfs.resolve("etc/passwd"));
        assertTrue(passwd.lines().anyMatch(l -> l.split(":")[2].equals(uid)),
                "the image's user needs a passwd entry (initdb refuses one without): " + passwd);
        assertEquals(Integer.parseInt(uid), Files.getAttribute(rootfs.resolve("data"), "unix:uid"),
                "the volume's mount point belongs to the image's user");

        // 4. run the entrypoint as the image's user, the volume a directory of ours
        Path volume = Files.createDirectories(work.resolve("volume"));
        Files.setAttribute(volume, "unix:uid", Integer.parseInt(uid));
        Files.setAttribute(volume, "unix:gid", Integer.parseInt(gid));
        Path script = work.resolve("run-container.sh");
        Files.writeString(script, runScript(env, entrypoint, user));
        Path nodeLog = logs.resolve("image-node.log");
        Process container = new ProcessBuilder("unshare", "--mount", "--pid", "--fork", "--kill-child=SIGTERM",
                "bash", script.toString(), rootfs.toString(), volume.toString())
                .redirectErrorStream(true).redirectOutput(nodeLog.toFile()).start();
        try {
            int port = awaitListening(container, nodeLog, Duration.ofMinutes(3));
            awaitReady(container, nodeLog, port, Duration.ofMinutes(2));
            assertEquals(200, get(port, "/q/health/live"), "liveness");

            // the image's own health command, as the runtime would run it (in the image, as its user)
            List<String> probe = new ArrayList<>(List.of("env", "-i", "QUARKUS_HTTP_PORT=" + port,
                    "/usr/sbin/chroot", "--userspec=" + user, rootfs.toString()));
            probe.addAll(health.subList(1, health.size()));
            assertEquals(0, exitCode(probe, logs.resolve("image-health.log")), "health command on a ready node");
            List<String> wrongPort = new ArrayList<>(probe);
            wrongPort.set(2, "QUARKUS_HTTP_PORT=" + freePortNobodyListensOn());
            assertEquals(1, exitCode(wrongPort, logs.resolve("image-health-down.log")),
                    "health command where no node listens");

            // NIP-01 round trip
            Keys author = Keys.fresh();
            Event note = author.note(Keys.now(), "from the container image");
            try (NostrClient client = NostrClient.connect(URI.create("ws://127.0.0.1:" + port + "/"))) {
                client.publishAndWait(note).assertAccepted();
                List<JsonNode> got = client.query("back", FilterSpec.of().ids(note));
                assertEquals(1, got.size(), "the event read back");
                assertEquals(note.id().hex(), got.get(0).get("id").asText());
                assertEquals("from the container image", got.get(0).get("content").asText());
            }
        } finally {
            stop(container, nodeLog);
        }
        assertTrue(Files.readString(nodeLog).contains("meshnode stopped"), "a clean stop; log " + nodeLog);
        // nothing left mounted: the mounts lived in the container's own namespace
        assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains(rootfs.toString()),
                "mounts under " + rootfs + " left behind");

        // 5. all state is in the volume, owned by the image's user
        assertTrue(Files.isDirectory(volume.resolve("pg")), "the embedded PostgreSQL in the volume");
        assertTrue(Files.isDirectory(volume.resolve("keys")), "the node keys in the volume");
        try (Stream<Path> all = Files.walk(volume)) {
            List<Path> foreign = all.filter(p -> {
                try {
                    return !Files.getAttribute(p, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS).toString()
                            .equals(uid);
                } catch (IOException e) {
                    return true;
                }
            }).toList();
            assertTrue(foreign.isEmpty(), "files in the volume not owned by the image's user: " + foreign);
        }
        try (Stream<Path> all = Files.walk(rootfs)) {
            List<Path> written = all.filter(p -> !p.startsWith(rootfs.resolve("tmp"))
                    && !p.startsWith(rootfs.resolve("data")) && ownedBy(p, uid)).toList();
            assertTrue(written.isEmpty(), "the node wrote outside /data and /tmp: " + written);
        }
        // passed: the unpacked image (about 300 MB with the extracted layers) is not kept
        deleteTree(rootfs);
        deleteTree(outer);
    }

    private static Optional<Path> onPath(String name) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(":")).filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, name)).filter(Files::isExecutable).findFirst();
    }

    /**
     * The image in a real OCI runtime, as an operator runs it: {@code podman run -d} with the port published on
     * loopback and a host directory as the /data volume; ready, the runtime's own health check, a NIP-01 round trip,
     * {@code podman stop} (SIGTERM: a clean stop), {@code podman start} on the same volume, the event still there.
     * Limits the runtime may raise are set explicitly (a container host without CAP_SYS_RESOURCE cannot raise them).
     */
    private static void runUnderPodman(List<String> p, String tag, String uid, String gid, Path work, Path logs)
            throws Exception {
        Path volume = Files.createDirectories(work.resolve("podman-volume"));
        Files.setAttribute(volume, "unix:uid", Integer.parseInt(uid));
        Files.setAttribute(volume, "unix:gid", Integer.parseInt(gid));
        int port = freePortNobodyListensOn();
        String name = "meshnode-it-" + Long.toHexString(System.nanoTime());
        Path log = logs.resolve("image-podman-run.log");
        run(concat(p, "run", "-d", "--name", name, "--ulimit", "nofile=8192:8192", "--ulimit", "nproc=4096:4096",
                "-p", "127.0.0.1:" + port + ":7777", "-e", "FLEETMESH_MONITOR_ENABLED=false", "-v",
                volume + ":/data", tag), work, log, Duration.ofMinutes(2));
        Keys author = Keys.fresh();
        Event note = author.note(Keys.now(), "through podman");
        awaitPodmanReady(p, name, port, log);
        assertEquals(0, exitCode(concat(p, "healthcheck", "run", name), logs.resolve("image-podman-health.log")),
                "the image's health check under podman");
        try (NostrClient client = NostrClient.connect(URI.create("ws://127.0.0.1:" + port + "/"))) {
            client.publishAndWait(note).assertAccepted();
        }
        String self = relaySelf(port);
        run(concat(p, "stop", "-t", "60", name), work, log, Duration.ofMinutes(2));
        Path stopped = logs.resolve("image-podman-node.log");
        exitCode(concat(p, "logs", name), stopped);
        assertTrue(Files.readString(stopped).contains("meshnode stopped"), "a clean stop on SIGTERM: " + tail(stopped));
        // the same container again: the volume holds the node (keys, database, the event)
        run(concat(p, "start", name), work, log, Duration.ofMinutes(2));
        awaitPodmanReady(p, name, port, log);
        try (NostrClient client = NostrClient.connect(URI.create("ws://127.0.0.1:" + port + "/"))) {
            List<JsonNode> got = client.query("back", FilterSpec.of().ids(note));
            assertEquals(1, got.size(), "the event survives a restart of the container");
            assertEquals("through podman", got.get(0).get("content").asText());
        }
        assertEquals(self, relaySelf(port), "the same node key after the restart (NIP-11 self)");
        run(concat(p, "stop", "-t", "60", name), work, log, Duration.ofMinutes(2));
    }

    private static String relaySelf(int port) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                .header("Accept", "application/nostr+json").timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        String self = NostrClient.JSON.readTree(r.body()).path("self").asText();
        assertTrue(self.matches("[0-9a-f]{64}"), "NIP-11 self: " + r.body());
        return self;
    }

    private static void awaitPodmanReady(List<String> p, String name, int port, Path log) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        Path state = log.resolveSibling("image-podman-state.log");
        while (System.nanoTime() < deadline) {
            if (get(port, "/q/health/ready") == 200) {
                return;
            }
            exitCode(concat(p, "inspect", "--format", "{{.State.Status}}", name), state);
            String status = Files.readString(state).trim();
            assertFalse(status.endsWith("exited") || status.endsWith("stopped"), "the container stopped: " + status);
            Thread.sleep(500);
        }
        Path nodeLog = log.resolveSibling("image-podman-node.log");
        exitCode(concat(p, "logs", name), nodeLog);
        throw new AssertionError("not ready under podman: " + tail(nodeLog));
    }

    private static List<String> concat(List<String> head, String... tail) {
        List<String> all = new ArrayList<>(head);
        all.addAll(List.of(tail));
        return all;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** The container's start: the mounts a runtime provides, then the entrypoint as the image's user. */
    private static String runScript(List<String> env, List<String> entrypoint, String user) {
        StringBuilder s = new StringBuilder("""
                set -e
                R="$1"; V="$2"
                mount -t proc proc "$R/proc"
                mount -t tmpfs -o mode=755,size=64k tmpfs "$R/dev"
                mknod -m 666 "$R/dev/null" c 1 3
                mknod -m 666 "$R/dev/zero" c 1 5
                mknod -m 666 "$R/dev/random" c 1 8
                mknod -m 666 "$R/dev/urandom" c 1 9
                mkdir "$R/dev/shm"
                mount -t tmpfs -o mode=1777 tmpfs "$R/dev/shm"
                mount --bind "$V" "$R/data"
                exec env -i""");
        // the image's environment, then what the test overrides (a free port, loopback only, no NIP-66 probes)
        for (String e : env) {
            s.append(" '").append(e).append('\'');
        }
        s.append(" QUARKUS_HTTP_PORT=0 QUARKUS_HTTP_HOST=127.0.0.1 FLEETMESH_MONITOR_ENABLED=false");
        s.append(" /usr/sbin/chroot --userspec=").append(user).append(" \"$R\"");
        for (String a : entrypoint) {
            s.append(" '").append(a).append('\'');
        }
        return s.append('\n').toString();
    }

    private static int awaitListening(Process p, Path log, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            assertTrue(p.isAlive(), "the container exited: " + tail(log));
            Matcher m = LISTENING.matcher(Files.readString(log, StandardCharsets.UTF_8));
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the node in the container never listened: " + tail(log));
    }

    private static void awaitReady(Process p, Path log, int port, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            assertTrue(p.isAlive(), "the container exited: " + tail(log));
            if (get(port, "/q/health/ready") == 200) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("not ready: " + tail(log));
    }

    private static int get(int port, String path) throws InterruptedException {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        }
    }

    /** SIGTERM to the node (the namespace's first process), then the namespace ends with it. */
    private static void stop(Process container, Path log) throws Exception {
        if (!container.isAlive()) {
            return;
        }
        Optional<ProcessHandle> node = container.toHandle().descendants()
                .filter(h -> h.info().command().map(cmd -> cmd.endsWith("java")).orElse(false)).findFirst();
        node.ifPresent(ProcessHandle::destroy);
        if (!container.waitFor(60, TimeUnit.SECONDS)) {
            container.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            container.destroyForcibly();
            container.waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("the container did not stop on SIGTERM: " + tail(log));
        }
    }

    private static boolean ownedBy(Path p, String uid) {
        try {
            return Files.getAttribute(p, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS).toString().equals(uid);
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePortNobodyListensOn() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String sha256(Path file, boolean gunzip) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream raw = Files.newInputStream(file);
                InputStream in = gunzip ? new GZIPInputStream(raw, 65536) : raw) {
            byte[] buf = new byte[65536];
            for (int n; (n = in.read(buf)) > 0;) {
                md.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static void run(List<String> cmd, Path dir, Path log, Duration timeout) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(cmd + " took longer than " + timeout + "; log " + log);
        }
        assertEquals(0, p.exitValue(), cmd + " failed: " + tail(log));
    }

    private static int exitCode(List<String> cmd, Path log) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), cmd + " hung");
        return p.exitValue();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return log + ":\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return log + " (unreadable: " + e + ")";
        }
    }
}
