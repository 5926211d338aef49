package org.fleetmesh.meshnode;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.Runtimes;
import org.fleetmesh.compute.Sandbox;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code compute run <module.wasm> [--input FILE] [--arg A ...] [--fuel N] [--memory-pages N] [--runtime ID]
 * [--time S] [--seed HEX] [--timeout D]}: runs one job locally (docs/spec/compute-sandbox.md, "CLI") and prints
 * {@link JobResult#toJson()} on one line (exit 0, whatever the guest's exit code), or
 * {@code meshnode: compute: <reason>} on stderr (exit 1).
 */
final class ComputeCommand {
    static final long DEFAULT_FUEL = 1_000_000_000L;
    static final int DEFAULT_PAGES = 256;
    static final String ZERO_SEED = "0".repeat(64);

    private ComputeCommand() {
    }

    static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length < 3 || !args[1].equals("run")) {
            throw new UsageException("compute takes: run <module.wasm> [--input FILE] [--arg A ...] [--fuel N]"
                    + " [--memory-pages N] [--runtime " + String.join("|", Runtimes.ids()) + "] [--time S]"
                    + " [--seed HEX] [--timeout D]");
        }
        Path modulePath = Path.of(args[2]);
        Path inputPath = null;
        List<String> jobArgs = new ArrayList<>();
        long fuel = DEFAULT_FUEL;
        int pages = DEFAULT_PAGES;
        String runtime = "chicory";
        long time = 0;
        String seed = ZERO_SEED;
        Sandbox.Limits d = Sandbox.Limits.defaults();
        Duration timeout = d.timeout();
        for (int i = 3; i < args.length; i++) {
            String o = args[i];
            if (i + 1 >= args.length) {
                throw new UsageException("compute run: " + o + " needs a value");
            }
            String v = args[++i];
            try {
                switch (o) {
                    case "--input" -> inputPath = Path.of(v);
                    case "--arg" -> jobArgs.add(v);
                    case "--fuel" -> fuel = Long.parseLong(v);
                    case "--memory-pages" -> pages = Integer.parseInt(v);
                    case "--runtime" -> runtime = v;
                    case "--time" -> time = Long.parseLong(v);
                    case "--seed" -> seed = seed(v);
                    case "--timeout" -> timeout = duration(v);
                    default -> throw new UsageException("compute run: unknown option " + o);
                }
            } catch (NumberFormatException e) {
                throw new UsageException("compute run: " + o + " takes an integer, not '" + v + "'");
            }
        }
        byte[] module;
        byte[] input;
        try {
            module = Files.readAllBytes(modulePath);
            input = inputPath == null ? new byte[0] : Files.readAllBytes(inputPath);
        } catch (IOException e) {
            err.println("meshnode: compute: cannot read " + e.getMessage());
            return 1;
        }
        JobSpec spec;
        try {
            spec = new JobSpec(JobSpec.sha256(module), JobSpec.sha256(input), jobArgs, fuel, pages, time, seed);
        } catch (IllegalArgumentException e) {
            throw new UsageException("compute run: " + e.getMessage());
        }
        String id = runtime;
        var engine = Runtimes.find(id).orElseThrow(() -> new UsageException(
                "compute run: no runtime '" + id + "' (have: " + String.join(", ", Runtimes.ids()) + ")"));
        long maxFuel = Math.max(d.maxFuel(), fuel);
        int maxPages = Math.max(d.maxMemoryPages(), pages);
        Sandbox sandbox = new Sandbox(engine, new Sandbox.Limits(maxFuel, maxPages, timeout, d.outputLimit(),
                d.maxModuleBytes(), d.floats()));
        try {
            JobResult r = sandbox.run(module, input, spec);
            out.println(new ObjectMapper().writeValueAsString(r.toJson()));
            return 0;
        } catch (JobFailure e) {
            err.println("meshnode: compute: " + e.getMessage());
            return 1;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String seed(String v) {
        String s = v.toLowerCase(java.util.Locale.ROOT);
        try {
            HexFormat.of().parseHex(s);
        } catch (IllegalArgumentException e) {
            throw new UsageException("compute run: --seed takes 64 hex characters");
        }
        if (s.length() != 64) {
            throw new UsageException("compute run: --seed takes 64 hex characters");
        }
        return s;
    }

    /** {@code 30s}, {@code 500ms}, {@code 2m} or an ISO-8601 duration. */
    static Duration duration(String v) {
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            if (v.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            return Duration.parse(v);
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new UsageException("compute run: --timeout takes e.g. 30s, 500ms, 2m");
        }
    }
}
