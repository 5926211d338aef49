package org.fleetmesh.meshnode;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.spi.storage.EventStore;

/**
 * The subcommands of {@code ./meshnode} besides {@code relay}: a dispatcher over the commands, which open the
 * node's store and keys through {@link LocalNode}, without starting the relay.
 */
public final class Cli {
    private static final int BATCH = 1000;

    private Cli() {
    }

    public static void main(String[] args) {
        PrintStream err = System.err;
        if (args.length == 0) {
            usage(err);
            System.exit(2);
        }
        try {
            int code = switch (args[0]) {
                case "import" -> ImportCommand.run(args);
                case "export" -> exportEvents(args);
                case "delete" -> deleteEvents(args);
                case "receipts" -> ReceiptsCommand.run(args);
                case "sync" -> org.fleetmesh.meshnode.sync.SyncCommand.run(args);
                case "bench" -> bench(args);
                case "did" -> did(args);
                case "keys" -> KeysCommand.run(args);
                case "backup", "restore" -> BackupCommand.run(args);
                case "token" -> TokenCommand.run(args);
                case "bolt11", "bolt12", "cashu" -> adapterCommand(args[0], args);
                case "compute" -> ComputeCommand.run(args);
                case "negentropy-harness" -> {
                    try {
                        org.fleetmesh.negentropy.Harness.main(java.util.Arrays.copyOfRange(args, 1, args.length));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    yield 0;
                }
                case "help" -> {
                    usage(System.out);
                    yield 0;
                }
                default -> {
                    err.println("meshnode: unknown command '" + args[0] + "'");
                    usage(err);
                    yield 2;
                }
            };
            System.exit(code);
        } catch (UsageException e) {
            err.println("meshnode: " + e.getMessage());
            System.exit(2);
        }
    }

    /**
     * {@code did [show]} prints this node's DID document (creating the keys on a fresh data dir,
     * as the first start would); {@code did resolve <did>} resolves any supported DID offline.
     */
    static int did(String[] args) {
        String sub = args.length > 1 ? args[1] : "show";
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper()
                .enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT);
        try {
            switch (sub) {
                case "show" -> {
                    if (args.length > 2) {
                        throw new UsageException("did show takes no arguments");
                    }
                    return didShow(LocalNode.dataDir(), LocalNode::setting, System.out, System.err);
                }
                case "resolve" -> {
                    if (args.length != 3) {
                        throw new UsageException("did resolve takes one DID");
                    }
                    try {
                        System.out.println(mapper.writeValueAsString(
                                org.fleetmesh.identity.DidResolver.offline().resolve(args[2])));
                        return 0;
                    } catch (org.fleetmesh.identity.DidResolutionException e) {
                        System.err.println("meshnode: cannot resolve: " + e.getMessage());
                        return 1;
                    }
                }
                default -> throw new UsageException("did takes show | resolve <did>");
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code did show} on {@code dataDir}: keys it cannot read or create (a damaged or group-readable key file, a data
     * dir that is a file) are one line naming the file and exit 1, as {@code keys export} reports them.
     */
    static int didShow(java.nio.file.Path dataDir, java.util.function.Function<String, java.util.Optional<String>> settings,
            PrintStream out, PrintStream err) throws com.fasterxml.jackson.core.JsonProcessingException {
        org.fleetmesh.identity.NodeSecrets secrets;
        try {
            secrets = LocalNode.secrets(dataDir, settings);
        } catch (IllegalStateException | UncheckedIOException e) {
            err.println("meshnode: did show: " + e.getMessage()
                    + (e.getCause() != null && e.getCause().getMessage() != null ? ": " + e.getCause().getMessage() : ""));
            return 1;
        }
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper()
                .enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT);
        org.fleetmesh.identity.NodeDidDocument doc = org.fleetmesh.identity.NodeDidDocument.of(
                secrets.publicKeys(), org.fleetmesh.identity.NodeEndpoints.forRelay(
                        settings.apply("fleetmesh.relay.url").map(java.net.URI::create),
                        Integer.parseInt(settings.apply("quarkus.http.port").orElse("7777"))));
        com.fasterxml.jackson.databind.node.ObjectNode o = mapper.createObjectNode();
        o.put("did", doc.did());
        o.put("shortForm", doc.shortForm());
        o.set("alsoKnownAs", mapper.valueToTree(doc.identifiers()));
        o.set("didDocument", doc.document());
        out.println(mapper.writeValueAsString(o));
        return 0;
    }

    /**
     * Runs a command of an adapter chosen at build time ({@link AdapterCommand}), or says which adapter this build left
     * out.
     */
    static int adapterCommand(String name, String[] args) {
        AdapterCommand command = AdapterCommand.find(name).orElseThrow(() -> AdapterCommand.missing(name));
        try {
            return command.run(args);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            e.printStackTrace();
            return 1;
        }
    }

    /** Load drivers for docs/BENCHMARKS.md: {@code bench ingest|corpus|query [--options]}. */
    static int bench(String[] args) {
        if (args.length < 2) {
            throw new UsageException("bench takes ingest | corpus | query | crypto | ledger | negentropy | custody | cashu (escrow: bench/escrow.sh)");
        }
        String[] rest = java.util.Arrays.copyOfRange(args, 2, args.length);
        try {
            switch (args[1]) {
                case "ingest" -> org.fleetmesh.meshnode.bench.IngestBench.main(rest);
                case "corpus" -> org.fleetmesh.meshnode.bench.QueryBench.main(prepend("generate", rest));
                case "query" -> org.fleetmesh.meshnode.bench.QueryBench.main(prepend("query", rest));
                case "crypto" -> org.fleetmesh.meshnode.bench.CryptoBench.main(rest);
                case "ledger" -> org.fleetmesh.meshnode.bench.LedgerBench.main(rest);
                case "escrow" -> throw new UsageException(
                        "bench escrow runs against the simulated LND, which the node does not carry: run bench/escrow.sh");
                case "negentropy" -> org.fleetmesh.meshnode.bench.NegentropyBench.main(rest);
                case "custody" -> org.fleetmesh.meshnode.bench.CustodyBench.main(rest);
                case "cashu" -> {
                    return adapterCommand("bench cashu", args);
                }
                default -> throw new UsageException("unknown bench '" + args[1] + "'");
            }
        } catch (UsageException e) {
            throw e;
        } catch (Exception e) {
            e.printStackTrace();
            return 1;
        }
        return 0;
    }

    private static String[] prepend(String first, String[] rest) {
        String[] out = new String[rest.length + 1];
        out[0] = first;
        System.arraycopy(rest, 0, out, 1, rest.length);
        return out;
    }

    static void usage(PrintStream out) {
        out.println("""
                usage: meshnode [relay]                      run the node (default)
                       meshnode import < events.jsonl        store events, one JSON object a line
                       meshnode import --reorder < events.jsonl   the same, then the events rewritten in time
                                                             order (after a bulk import; the node stopped)
                       meshnode export [--filter JSON]       write stored events as JSONL, newest first
                       meshnode delete --filter JSON         remove matching stored events (no tombstone)
                       meshnode receipts export --peer <did> [--side received|sent]   a custody receipt chain as JSONL
                       meshnode receipts verify <file>       check an export: signatures, prev links, consistency (exit 1: first bad line)
                       meshnode receipts prove <event-id> [--peer <did>] [--side sent|received]   custody proofs as JSON
                       meshnode sync <ws-url> [--filter JSON] [--dir down|up|both]   NIP-77 sync with a relay
                       meshnode did [show|resolve <did>]     this node's DID document / resolve a DID offline
                       meshnode keys export [--data-dir D] <file>   back up the node's keys to a new 0600 file (prints the DID)
                       meshnode keys import <file> [--data-dir D] [--force]   restore them into <data-dir>/keys
                       meshnode keys rotate [--data-dir D]   new node keys and a signed hand-over from the old DID (node stopped; prints the new DID)
                       meshnode backup <dir> [--data-dir D]   keys and every table in one consistent snapshot (live or stopped)
                       meshnode restore <dir> [--data-dir D] [--force]   check the backup, then load it onto a fresh data dir
                                                             (--force: replace a non-empty one's keys and tables)
                       meshnode image                        (the launcher) a container image tarball, meshnode-app/target/meshnode-image.tar,
                                                             built without a Docker daemon (docs/OPERATING.md "Containers")
                       meshnode aot                          (the launcher) train the class archive the relay starts from
                                                             (AOT cache on JDK 25, CDS on 17; the relay trains one itself
                                                             when missing or stale; MESHNODE_AOT=off: none)
                       meshnode build [--force]              (the launcher) build the node when missing or stale (--force: always)
                       meshnode token issue --right admin:write [--subject S] [--ttl 30d]   a capability token (admin API;
                                                             --right compute:run --fuel-limit N for the agent API)
                       meshnode token revoke <token | id> [--note T]   refuse a token (and its attenuations) from now on, on the
                                                             running node too (<data-dir>/revoked-tokens)
                       meshnode bolt11 decode <invoice>      a BOLT-11 invoice as JSON (exit 1 if invalid)
                       meshnode bolt12 decode <string>       a BOLT-12 offer/invoice_request/invoice as JSON (exit 1 if invalid)
                       meshnode compute run <module.wasm> [--input FILE] [--arg A ...] [--fuel N] [--memory-pages N]
                             [--runtime chicory|chicory-interpreter|wasmtime] [--time S] [--seed HEX] [--timeout D]
                                                             run a WASI job locally: its result as JSON (exit 1: why it failed)
                       meshnode cashu info <mint-url> | balance | mint <amount> | send <amount> | receive <token>
                             | melt <bolt11> | token decode <token> | restore | pending   the node's Cashu wallet (JSON)
                       meshnode negentropy-harness           the negentropy reference test-harness stdio protocol
                       meshnode bench ingest|corpus|query|crypto|ledger|negentropy|custody|cashu  load drivers (see docs/BENCHMARKS.md)
                configuration: the relay's, in its order: system properties, the environment (FLEETMESH_DATA_DIR,
                             default ./data; QUARKUS_DATASOURCE_JDBC_URL, _USERNAME, _PASSWORD; FLEETMESH_KEYS_*),
                             config/application.properties in the working directory, the built-in application.properties""");
    }

    private static Filter filterArgument(String[] args, String command, boolean required) {
        Filter filter = null;
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--filter") && i + 1 < args.length) {
                try {
                    filter = new MessageParser(new MessageParser.Limits(16, Integer.MAX_VALUE, 2500, 100_000))
                            .parseFilter(args[++i]);
                } catch (ProtocolException e) {
                    throw new UsageException("bad --filter: " + e.getMessage());
                }
            } else {
                throw new UsageException(command + " takes " + (required ? "--filter JSON" : "[--filter JSON]"));
            }
        }
        if (filter == null && required) {
            throw new UsageException(command + " needs --filter JSON (use '{}' to mean every event)");
        }
        return filter == null ? Filter.ALL : filter;
    }

    /** Removes stored events matching a filter (no NIP-09 tombstone: they may be published again). */
    static int deleteEvents(String[] args) {
        Filter filter = filterArgument(args, "delete", true);
        long now = System.currentTimeMillis() / 1000;
        long deleted = 0;
        try (EventStore store = LocalNode.openStore()) {
            if (!filter.matchesNothingStored()) {
                List<org.fleetmesh.nostr.EventId> ids = new ArrayList<>();
                store.enumerate(filter, now, (createdAt, id) -> ids.add(id));
                for (int i = 0; i < ids.size(); i += BATCH) {
                    deleted += store.delete(ids.subList(i, Math.min(ids.size(), i + BATCH)));
                }
            }
        }
        System.err.println("deleted " + deleted + " events");
        return 0;
    }

    static int exportEvents(String[] args) {
        Filter filter = filterArgument(args, "export", false);
        long now = System.currentTimeMillis() / 1000;
        long[] written = { 0 };
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        try (EventStore store = LocalNode.openStore()) {
            if (!filter.matchesNothingStored()) {
                store.query(filter, now, (id, json) -> {
                    try {
                        out.write(json);
                        out.write('\n');
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    written[0]++;
                    return true;
                });
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.err.println("exported " + written[0] + " events");
        return 0;
    }
}
