package org.fleetmesh.meshnode;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.spi.storage.EventStoreProvider;
import org.fleetmesh.storage.postgres.PostgresStorage;
import org.fleetmesh.storage.postgres.delivery.PgCustodyLedger;

import io.smallrye.config.PropertiesConfigSourceLoader;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * What the offline subcommands share with the relay: its configuration, and from it the node's store and keys,
 * opened without starting the relay. The configuration is read from the sources Quarkus reads, in its order
 * (system properties, then the environment, then {@code config/application.properties} in the working
 * directory, then the application.properties built into the app), with the same profile, so that
 * {@code ./meshnode did show} or {@code import} act on the store and keys {@code ./meshnode relay} uses.
 */
public final class LocalNode {
    /** Quarkus's ordinals for application.properties: in the working directory's config/ (260) over the jar's (250). */
    private static final int IN_JAR = 250;
    private static final int IN_WORKING_DIR = 260;

    private static volatile SmallRyeConfig config;

    private LocalNode() {
    }

    /** The relay's configuration as the CLI sees it. */
    public static SmallRyeConfig config() {
        SmallRyeConfig c = config;
        if (c == null) {
            synchronized (LocalNode.class) {
                if (config == null) {
                    config = build(Path.of(System.getProperty("user.dir", ".")));
                }
                c = config;
            }
        }
        return c;
    }

    static SmallRyeConfig build(Path workingDir) {
        ClassLoader cl = LocalNode.class.getClassLoader();
        // the profile the packaged relay runs with, unless the operator picks another, as Quarkus does
        String profile = Optional.ofNullable(System.getProperty("quarkus.profile"))
                .or(() -> Optional.ofNullable(System.getenv("QUARKUS_PROFILE"))).filter(s -> !s.isBlank()).orElse("prod");
        SmallRyeConfigBuilder b = new SmallRyeConfigBuilder().addDefaultSources().addDefaultInterceptors()
                .withProfile(profile)
                .withSources(PropertiesConfigSourceLoader.inClassPath("application.properties", IN_JAR, cl));
        Path inWorkingDir = workingDir.resolve("config").resolve("application.properties");
        List<org.eclipse.microprofile.config.spi.ConfigSource> local = PropertiesConfigSourceLoader
                .inFileSystem(inWorkingDir.toUri().toString(), IN_WORKING_DIR, cl);
        return b.withSources(local).build();
    }

    /** A setting, blank counting as unset. */
    public static Optional<String> setting(String property) {
        return config().getOptionalValue(property, String.class).filter(v -> !v.isBlank());
    }

    /** The storage backend this build carries, configured as the relay is. */
    public static EventStore openStore() {
        EventStoreProvider provider = ServiceLoader.load(EventStoreProvider.class).findFirst()
                .orElseThrow(() -> new IllegalStateException("no storage backend in this build"));
        return closedOnExit(provider.open(dataDir(), setting("quarkus.datasource.jdbc.url"),
                setting("quarkus.datasource.username"), setting("quarkus.datasource.password")));
    }

    /**
     * Closes {@code resource} when the JVM exits, also on Ctrl-C or SIGTERM while a command still holds it: a store
     * whose embedded PostgreSQL this command started then stops it, instead of leaving a postmaster running on the
     * data dir with no process using it. Closing it first (try-with-resources) is as before; the hook's close then
     * does nothing.
     */
    public static <T extends AutoCloseable> T closedOnExit(T resource) {
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    resource.close();
                } catch (Exception | Error e) {
                    // the JVM is going down: nothing to report to
                }
            }, "meshnode-close-on-exit"));
        } catch (IllegalStateException shuttingDown) {
            // already exiting: the caller's own close stands
        }
        return resource;
    }

    /**
     * An I/O failure in words: the JDK's file-system exceptions carry only the path as their message ("cannot read
     * X: X"), so these say what happened instead.
     */
    public static String why(java.io.IOException e) {
        if (e instanceof java.nio.file.NotDirectoryException) {
            return "not a directory";
        }
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileAlreadyExistsException) {
            return "it exists already";
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /**
     * What runs on {@code dataDir} that a command replacing its keys or data must not run under: a relay (it holds
     * {@code node.lock}, whatever its database) or, without one, the embedded PostgreSQL (another command using it);
     * empty when nothing does.
     */
    public static java.util.Optional<String> runningOn(Path dataDir) {
        java.util.OptionalLong relay = org.fleetmesh.identity.NodeLock.holder(dataDir);
        if (relay.isPresent()) {
            return java.util.Optional.of("a meshnode relay is running on " + dataDir
                    + (relay.getAsLong() > 0 ? " (pid " + relay.getAsLong() + ")" : ""));
        }
        java.util.OptionalLong pg = runningPostmaster(dataDir);
        return pg.isPresent()
                ? java.util.Optional.of("the embedded PostgreSQL of " + dataDir + " is running (pid " + pg.getAsLong() + ")")
                : java.util.Optional.empty();
    }

    /**
     * The pid of the embedded PostgreSQL running on {@code dataDir} ({@code pg/postmaster.pid} naming a live
     * process): a node, or a command, is using the data dir. Empty without one or with an unreadable pid file.
     */
    public static java.util.OptionalLong runningPostmaster(Path dataDir) {
        Path pid = dataDir.resolve("pg").resolve("postmaster.pid");
        if (!java.nio.file.Files.isRegularFile(pid)) {
            return java.util.OptionalLong.empty();
        }
        try {
            String first = java.nio.file.Files.readAllLines(pid, java.nio.charset.StandardCharsets.US_ASCII).stream()
                    .findFirst().orElse("").trim();
            long p = Long.parseLong(first);
            return ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false) ? java.util.OptionalLong.of(p)
                    : java.util.OptionalLong.empty();
        } catch (java.io.IOException | NumberFormatException e) {
            return java.util.OptionalLong.empty();
        }
    }

    /** The custody ledger in the store's database (docs/spec/storage.md), as the relay's PostgreSQL adapter keeps it. */
    public static CustodyLedger custodyLedger(EventStore store) {
        if (store instanceof PostgresStorage pg) {
            return new PgCustodyLedger(pg.dataSource());
        }
        throw new IllegalStateException("this storage backend keeps no custody ledger: " + store.getClass().getName());
    }

    public static Path dataDir() {
        return Path.of(setting("fleetmesh.data-dir").orElse("./data"));
    }

    /** The node's keys, created on a fresh data dir as the first start would. */
    public static NodeSecrets secrets() {
        return secrets(dataDir(), LocalNode::setting);
    }

    /** The keys of {@code dataDir}, or of the {@code fleetmesh.keys.*} settings; created when there are none. */
    static NodeSecrets secrets(Path dataDir, java.util.function.Function<String, Optional<String>> settings) {
        return NodeSecrets.loadOrCreate(dataDir, supplied("nostr", settings), supplied("agreement", settings),
                supplied("transport", settings));
    }

    private static NodeSecrets.Supplied supplied(String role, java.util.function.Function<String, Optional<String>> settings) {
        return new NodeSecrets.Supplied(settings.apply("fleetmesh.keys." + role),
                settings.apply("fleetmesh.keys." + role + "-file").map(Path::of));
    }
}
