package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/** Node.js scripts beside the tests, with nostr-tools from npm as the independent client. */
final class NodeJs {
    static final String NOSTR_TOOLS = "2.25.2";
    /** @nostr-dev-kit/sync and its peer dependency NDK (3.x), for {@link #withNdkSync}. */
    static final String NDK_SYNC = "1.0.0";
    static final String NDK = "3.0.3";

    record Run(int exit, String stdout, String stderr) {
    }

    private NodeJs() {
    }

    static Run run(Path dir, long timeoutSeconds, String... cmd) throws IOException, InterruptedException {
        Path out = MeshnodeProcess.outputFile("js-", ".out");
        Path err = MeshnodeProcess.outputFile("js-", ".err");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(String.join(" ", cmd) + " did not finish in " + timeoutSeconds + " s:\n"
                    + Files.readString(out) + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /**
     * Installs nostr-tools (and ws) into target/js once, copies {@code script} from src/test/js
     * there, and returns the directory. Aborts the test (skipped, with the reason) without npm.
     */
    static Path withNostrTools(String script) throws Exception {
        Path jsDir = MeshnodeProcess.targetDir().resolve("js");
        Files.createDirectories(jsDir);
        try {
            run(jsDir, 60, "npm", "--version");
        } catch (IOException noNpm) {
            Assumptions.abort("npm is not installed, so the nostr-tools interop test cannot run: " + noNpm.getMessage());
        }
        Path pkg = jsDir.resolve("node_modules/nostr-tools/package.json");
        boolean installed = Files.isRegularFile(pkg) && Files.isDirectory(jsDir.resolve("node_modules/ws"))
                && NostrClient.tree(Files.readString(pkg)).path("version").asText().equals(NOSTR_TOOLS);
        if (!installed) {
            if (!Files.exists(jsDir.resolve("package.json"))) {
                Files.writeString(jsDir.resolve("package.json"),
                        "{\"name\":\"fleetmesh-it-js\",\"private\":true,\"type\":\"module\"}\n", StandardCharsets.UTF_8);
            }
            Run npm = run(jsDir, 300, "npm", "install", "--no-audit", "--no-fund", "nostr-tools@" + NOSTR_TOOLS, "ws");
            assertEquals(0, npm.exit(), "npm install failed:\n" + npm.stdout() + npm.stderr());
        }
        Path src = Path.of(System.getProperty("meshnode.it.js", "src/test/js")).resolve(script);
        Files.copy(src, jsDir.resolve(script), StandardCopyOption.REPLACE_EXISTING);
        return jsDir;
    }

    /**
     * As {@link #withNostrTools}, and also installs @nostr-dev-kit/sync with NDK (pinned versions)
     * into the same target/js, then copies every script there.
     */
    static Path withNdkSync(String... scripts) throws Exception {
        Path jsDir = withNostrTools(scripts[0]);
        boolean installed = version(jsDir, "@nostr-dev-kit/sync").equals(NDK_SYNC)
                && version(jsDir, "@nostr-dev-kit/ndk").equals(NDK);
        if (!installed) {
            Run npm = run(jsDir, 300, "npm", "install", "--no-audit", "--no-fund", "nostr-tools@" + NOSTR_TOOLS, "ws",
                    "@nostr-dev-kit/sync@" + NDK_SYNC, "@nostr-dev-kit/ndk@" + NDK);
            assertEquals(0, npm.exit(), "npm install failed:\n" + npm.stdout() + npm.stderr());
        }
        for (String script : scripts) {
            Path src = Path.of(System.getProperty("meshnode.it.js", "src/test/js")).resolve(script);
            Files.copy(src, jsDir.resolve(script), StandardCopyOption.REPLACE_EXISTING);
        }
        return jsDir;
    }

    /**
     * rust-nostr's JavaScript bindings (the Rust crates compiled to WebAssembly) and fake-indexeddb, the IndexedDB
     * its only event-storing database needs in Node, for {@link #withRustNostr}.
     */
    static final String RUST_NOSTR = "0.43.0";
    static final String FAKE_INDEXEDDB = "6.2.8";

    /**
     * As {@link #withNostrTools} (for ws and the module package.json), and also installs @rust-nostr/nostr-sdk and
     * fake-indexeddb (pinned) into the same target/js, then copies {@code script} there.
     */
    static Path withRustNostr(String script) throws Exception {
        Path jsDir = withNostrTools(script);
        boolean installed = version(jsDir, "@rust-nostr/nostr-sdk").equals(RUST_NOSTR)
                && version(jsDir, "fake-indexeddb").equals(FAKE_INDEXEDDB);
        if (!installed) {
            Run npm = run(jsDir, 300, "npm", "install", "--no-audit", "--no-fund", "nostr-tools@" + NOSTR_TOOLS, "ws",
                    "@rust-nostr/nostr-sdk@" + RUST_NOSTR, "fake-indexeddb@" + FAKE_INDEXEDDB);
            assertEquals(0, npm.exit(), "npm install failed:\n" + npm.stdout() + npm.stderr());
        }
        return jsDir;
    }

    /** playwright-core, for {@link #withPlaywright}: drives the system's chromium; downloads no browser. */
    static final String PLAYWRIGHT_CORE = "1.65.1";

    /**
     * Installs playwright-core (pinned) into target/js-browser once, copies {@code script} from src/test/js there, and
     * returns the directory. Aborts the test (skipped, with the reason) without npm.
     */
    static Path withPlaywright(String script) throws Exception {
        Path jsDir = MeshnodeProcess.targetDir().resolve("js-browser");
        Files.createDirectories(jsDir);
        try {
            run(jsDir, 60, "npm", "--version");
        } catch (IOException noNpm) {
            Assumptions.abort("npm is not installed, so the browser test cannot run: " + noNpm.getMessage());
        }
        if (!version(jsDir, "playwright-core").equals(PLAYWRIGHT_CORE)) {
            if (!Files.exists(jsDir.resolve("package.json"))) {
                Files.writeString(jsDir.resolve("package.json"),
                        "{\"name\":\"fleetmesh-it-browser\",\"private\":true,\"type\":\"module\"}\n",
                        StandardCharsets.UTF_8);
            }
            Run npm = run(jsDir, 300, "npm", "install", "--no-audit", "--no-fund", "playwright-core@" + PLAYWRIGHT_CORE);
            assertEquals(0, npm.exit(), "npm install failed:\n" + npm.stdout() + npm.stderr());
        }
        Path src = Path.of(System.getProperty("meshnode.it.js", "src/test/js")).resolve(script);
        Files.copy(src, jsDir.resolve(script), StandardCopyOption.REPLACE_EXISTING);
        return jsDir;
    }

    /** didcomm-node (SICPA's didcomm-rust compiled to WASM), for {@link #withDidcommNode}. */
    static final String DIDCOMM_NODE = "0.4.1";

    /**
     * Installs didcomm-node (pinned) into target/js-didcomm once, copies {@code script} from src/test/js there, and
     * returns the directory. Aborts the test (skipped, with the reason) without npm.
     */
    static Path withDidcommNode(String script) throws Exception {
        Path jsDir = MeshnodeProcess.targetDir().resolve("js-didcomm");
        Files.createDirectories(jsDir);
        try {
            run(jsDir, 60, "npm", "--version");
        } catch (IOException noNpm) {
            Assumptions.abort("npm is not installed, so the didcomm-node interop test cannot run: " + noNpm.getMessage());
        }
        if (!version(jsDir, "didcomm-node").equals(DIDCOMM_NODE)) {
            if (!Files.exists(jsDir.resolve("package.json"))) {
                Files.writeString(jsDir.resolve("package.json"),
                        "{\"name\":\"fleetmesh-it-didcomm\",\"private\":true,\"type\":\"module\"}\n",
                        StandardCharsets.UTF_8);
            }
            Run npm = run(jsDir, 300, "npm", "install", "--no-audit", "--no-fund", "didcomm-node@" + DIDCOMM_NODE);
            assertEquals(0, npm.exit(), "npm install failed:\n" + npm.stdout() + npm.stderr());
        }
        Path src = Path.of(System.getProperty("meshnode.it.js", "src/test/js")).resolve(script);
        Files.copy(src, jsDir.resolve(script), StandardCopyOption.REPLACE_EXISTING);
        return jsDir;
    }

    private static String version(Path jsDir, String pkg) throws IOException {
        Path json = jsDir.resolve("node_modules").resolve(pkg).resolve("package.json");
        return Files.isRegularFile(json) ? NostrClient.tree(Files.readString(json)).path("version").asText() : "";
    }
}
