package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A SIMULATED Cashu mint for tests (src/test/js/cashu-mint.mjs: real blind signatures and DLEQ
 * from @cashu/crypto, fake Lightning) in its own Node process on 127.0.0.1. Its state lives in a
 * file, so {@link #kill()} (SIGKILL) and {@link #restart()} simulate a crash: the mint comes back
 * with the same keys, spent proofs and quotes on the same URL.
 */
final class CashuMintSim implements AutoCloseable {
    /** npm packages the two scripts need, pinned, installed once into target/js-cashu. */
    static final String CASHU_CRYPTO = "0.3.4";
    static final String CASHU_TS = "4.8.0";
    static final String NOBLE_CURVES = "1.9.7";
    static final String SCURE_BASE = "1.2.6";
    static final String BOLT11_DECODER = "3.2.0";
    private static final List<String[]> PACKAGES = List.of(
            new String[] {"@cashu/crypto", CASHU_CRYPTO}, new String[] {"@cashu/cashu-ts", CASHU_TS},
            new String[] {"@noble/curves", NOBLE_CURVES}, new String[] {"@scure/base", SCURE_BASE},
            new String[] {"light-bolt11-decoder", BOLT11_DECODER});
    static final String MINT_SCRIPT = "cashu-mint.mjs";
    static final String WALLET_SCRIPT = "cashu-ts-wallet.mjs";

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern READY = Pattern.compile("MINT_URL (http://127\\.0\\.0\\.1:(\\d+))");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Set<CashuMintSim> RUNNING = ConcurrentHashMap.newKeySet();
    private static Path installed;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(m -> {
            if (m.process != null) {
                m.process.destroyForcibly();
            }
        }), "cashu-mint-sim-cleanup"));
    }

    private final Path dir;
    private final Path stateFile;
    private final List<String> flags;
    private Process process;
    private String url;
    private int port;
    private Path log;

    private CashuMintSim(Path dir, Path stateFile, List<String> flags) {
        this.dir = dir;
        this.stateFile = stateFile;
        this.flags = flags;
    }

    /**
     * Installs the pinned packages into target/js-cashu (once per version set), copies both
     * scripts there and returns the directory. Aborts the test (skipped, with the reason) without npm.
     */
    static synchronized Path install() throws Exception {
        if (installed != null) {
            return installed;
        }
        Path jsDir = MeshnodeProcess.targetDir().resolve("js-cashu");
        Files.createDirectories(jsDir);
        try {
            NodeJs.run(jsDir, 60, "npm", "--version");
        } catch (IOException noNpm) {
            Assumptions.abort("npm is not installed, so the Cashu mint simulation cannot run: " + noNpm.getMessage());
        }
        // cashu-ts 4.8.0 declares node >= 22.4 but works on 20 for everything used here; its
        // @noble/curves 2 needs >= 20.19, which is the real floor
        NodeJs.Run node = NodeJs.run(jsDir, 60, "node", "--version");
        Matcher v = Pattern.compile("v(\\d+)\\.(\\d+)").matcher(node.stdout());
        if (!v.find() || Integer.parseInt(v.group(1)) * 100 + Integer.parseInt(v.group(2)) < 2019) {
            Assumptions.abort("the Cashu mint simulation needs Node.js >= 20.19, found " + node.stdout().strip());
        }
        boolean current = true;
        List<String> specs = new ArrayList<>();
        for (String[] p : PACKAGES) {
            current &= version(jsDir, p[0]).equals(p[1]);
            specs.add(p[0] + "@" + p[1]);
        }
        if (!current) {
            Files.writeString(jsDir.resolve("package.json"),
                    "{\"name\":\"fleetmesh-it-cashu\",\"private\":true,\"type\":\"module\"}\n", StandardCharsets.UTF_8);
            List<String> cmd = new ArrayList<>(List.of("npm", "install", "--no-audit", "--no-fund", "--save-exact"));
            cmd.addAll(specs);
            NodeJs.Run npm = NodeJs.run(jsDir, 300, cmd.toArray(String[]::new));
            assertEquals(0, npm.exit(), "npm install failed:\n" + npm.stdout() + npm.stderr());
        }
        Path src = Path.of(System.getProperty("meshnode.it.js", "src/test/js"));
        for (String script : List.of(MINT_SCRIPT, WALLET_SCRIPT)) {
            Files.copy(src.resolve(script), jsDir.resolve(script), StandardCopyOption.REPLACE_EXISTING);
        }
        installed = jsDir;
        return jsDir;
    }

    private static String version(Path jsDir, String pkg) throws IOException {
        Path json = jsDir.resolve("node_modules").resolve(pkg).resolve("package.json");
        return Files.isRegularFile(json) ? JSON.readTree(json.toFile()).path("version").asText() : "";
    }

    /**
     * Starts a mint keeping its state in {@code stateFile} (created if missing; an existing one is
     * loaded) with the script's {@code flags}, e.g. "--fee-ppk", "100" or "--no-auto-pay".
     */
    static CashuMintSim start(Path stateFile, String... flags) throws Exception {
        CashuMintSim m = new CashuMintSim(install(), stateFile.toAbsolutePath(), List.of(flags));
        m.launch(0);
        return m;
    }

    private void launch(int bindPort) throws Exception {
        Path logs = MeshnodeProcess.targetDir().resolve("it-logs");
        Files.createDirectories(logs);
        Path out = Files.createTempFile(logs, "cashu-mint-", ".out");
        log = out.resolveSibling(out.getFileName().toString().replace(".out", ".err"));
        List<String> cmd = new ArrayList<>(List.of("node", MINT_SCRIPT, "--state", stateFile.toString()));
        cmd.addAll(flags);
        cmd.addAll(List.of("--port", Integer.toString(bindPort))); // last one wins
        process = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(log.toFile()).start();
        RUNNING.add(this);
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (true) {
            Matcher ready = READY.matcher(Files.readString(out));
            if (ready.find()) {
                url = ready.group(1);
                port = Integer.parseInt(ready.group(2));
                return;
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new AssertionError("cashu mint did not start (exit " + (process.isAlive() ? "-" : process.exitValue())
                        + "):\n" + Files.readString(out) + Files.readString(log));
            }
            Thread.sleep(50);
        }
    }

    /** Base URL, e.g. http://127.0.0.1:41234 (stays the same across {@link #restart()}). */
    String url() {
        return url;
    }

    Path stateFile() {
        return stateFile;
    }

    /** The mint's stderr log (one line per request). */
    Path log() {
        return log;
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** Marks a mint quote paid (for a mint started with --no-auto-pay); returns the quote. */
    JsonNode pay(String quote) {
        return post("/test/pay/" + quote, "{}");
    }

    /**
     * The next request to {@code path} (e.g. "/v1/swap") commits its effects to the state file and
     * then never answers; the test then {@link #kill()}s and {@link #restart()}s the mint.
     */
    void hangNext(String path) {
        post("/test/hang-next", JSON.createObjectNode().put("path", path).toString());
    }

    /** The next request to {@code path} is answered with {@code status} and has no effect. */
    void failNext(String path, int status) {
        post("/test/fail-next", JSON.createObjectNode().put("path", path).put("status", status).toString());
    }

    /** The next melt's fake Lightning payment fails (error 20004, inputs stay unspent). */
    void failMelt() {
        post("/test/fail-melt", "{}");
    }

    /** The next melt stays PENDING (inputs PENDING) until {@link #settleMelt}. */
    void pendMelt() {
        post("/test/pend-melt", "{}");
    }

    JsonNode settleMelt(String quote, boolean paid) {
        return post("/test/settle-melt/" + quote, "{\"paid\":" + paid + "}");
    }

    /** Tells the fake Lightning backend the preimage it reveals when it pays an invoice with sha256(preimage). */
    void preimage(String preimageHex) {
        post("/test/preimage", JSON.createObjectNode().put("preimage", preimageHex).toString());
    }

    /** Invoices the fake backend paid: [{request, amount_msat, preimage, quote}]. */
    JsonNode paid() {
        return post("/test/paid", "{}").path("paid");
    }

    /** How many requests the mint is holding without an answer (hang-next), to wait for one. */
    int hung() {
        return post("/test/hung", "{}").path("hung").asInt();
    }

    JsonNode get(String path) {
        return send(HttpRequest.newBuilder(URI.create(url + path)).GET());
    }

    JsonNode post(String path, String json) {
        return send(HttpRequest.newBuilder(URI.create(url + path)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    private JsonNode send(HttpRequest.Builder b) {
        try {
            HttpRequest request = b.timeout(Duration.ofSeconds(10)).build();
            HttpResponse<String> r;
            try {
                r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                if (!String.valueOf(e.getMessage()).contains("received no bytes")) {
                    throw e;
                }
                // The pooled connection was closed by Node's 5 s keep-alive timeout as this request went out:
                // the mint never read it (Node closes only idle sockets), so sending it again is safe. The JDK
                // retries only GETs by itself.
                r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            }
            if (r.statusCode() != 200) {
                throw new AssertionError("mint answered " + r.statusCode() + ": " + r.body());
            }
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** SIGKILL, as a crash: whatever the mint wrote to its state file before stays. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** Starts the mint again on the same state file, flags and port (kills it first if it runs). */
    void restart() throws Exception {
        if (process.isAlive()) {
            kill();
        }
        launch(port);
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        RUNNING.remove(this);
    }
}
