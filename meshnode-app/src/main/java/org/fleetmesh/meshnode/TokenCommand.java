package org.fleetmesh.meshnode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.capability.Capability;
import org.fleetmesh.identity.capability.CapabilityIssuer;
import org.fleetmesh.identity.capability.RevocationFile;
import org.fleetmesh.identity.capability.RevocationId;
import org.fleetmesh.identity.capability.Right;
import org.fleetmesh.identity.capability.Rights;

/**
 * {@code token issue --right <right> [--right ...] [--fuel-limit N] [--subject <who>] [--ttl <duration>]}: prints a
 * capability token rooted in this node's transport key (docs/spec/capabilities.md), e.g. an admin token for
 * {@code /mesh/peers}; {@code compute:run} (the agent API) needs {@code --fuel-limit}, the most fuel per job.
 * {@code token revoke <token | id>} refuses a token from then on ({@link #revoke}).
 */
final class TokenCommand {
    static final Duration DEFAULT_TTL = Duration.ofDays(30);

    private TokenCommand() {
    }

    static int run(String[] args) {
        if (args.length >= 2 && args[1].equals("revoke")) {
            return revoke(args);
        }
        if (args.length < 2 || !args[1].equals("issue")) {
            throw new UsageException("token takes issue --right <right> [--right ...] [--fuel-limit N] [--subject <who>]"
                    + " [--ttl 30d], or revoke <token | revocation id> [--note <text>]");
        }
        List<Right> rights = new ArrayList<>();
        String subject = "operator";
        Duration ttl = DEFAULT_TTL;
        boolean compute = false;
        long fuelLimit = 0;
        for (int i = 2; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                throw new UsageException("token issue: " + a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--right" -> {
                    Optional<Right> r = Right.parse(v);
                    if (r.isEmpty()) {
                        throw new UsageException("token issue: unknown right " + v
                                + " (compute:run, admin:read, admin:write, relay:publish, relay:read, peer:sync)");
                    }
                    if (r.get() == Right.COMPUTE_RUN) {
                        compute = true;
                    } else {
                        rights.add(r.get());
                    }
                }
                case "--fuel-limit" -> {
                    try {
                        fuelLimit = Long.parseLong(v);
                    } catch (NumberFormatException e) {
                        fuelLimit = 0;
                    }
                    if (fuelLimit <= 0) {
                        throw new UsageException("token issue: --fuel-limit is a positive integer, not " + v);
                    }
                }
                case "--subject" -> subject = v;
                case "--ttl" -> ttl = duration(v);
                default -> throw new UsageException("token issue: unknown option " + a);
            }
        }
        if (rights.isEmpty() && !compute) {
            throw new UsageException("token issue needs at least one --right");
        }
        if (compute != (fuelLimit > 0)) {
            throw new UsageException(compute ? "token issue: --right compute:run needs --fuel-limit N"
                    : "token issue: --fuel-limit goes with --right compute:run");
        }
        NodeSecrets secrets = LocalNode.secrets();
        NodeDidDocument doc = NodeDidDocument.of(secrets.publicKeys(), NodeEndpoints.forRelay(Optional.empty(), 7777));
        Rights granted = rights.isEmpty() ? Rights.computeRun(fuelLimit)
                : Rights.of(rights.get(0), rights.subList(1, rights.size()).toArray(new Right[0]));
        if (compute && !rights.isEmpty()) {
            granted = granted.andComputeRun(fuelLimit);
        }
        System.out.println(CapabilityIssuer.forNode(secrets, doc).issue(subject, granted, Instant.now().plus(ttl)));
        return 0;
    }

    /**
     * {@code token revoke <token | revocation id> [--note <text>]}: appends the id to {@code <data-dir>/revoked-tokens}
     * (0600), which a running node reads within a second. A token revokes its token id (its authority block's: the
     * token and every attenuation of it); a 128-hex id revokes that block and the attenuations made from it.
     */
    static int revoke(String[] args) {
        if (args.length != 3 && !(args.length == 5 && args[3].equals("--note"))) {
            throw new UsageException("token revoke <token | revocation id> [--note <text>]");
        }
        String what = args[2].strip();
        RevocationId id;
        if (what.matches("[0-9a-f]{128}")) {
            id = RevocationId.fromHex(what);
        } else {
            try {
                id = Capability.tokenId(what);
            } catch (RuntimeException e) {
                throw new UsageException("token revoke: not a token or a 128-hex revocation id: " + e.getMessage());
            }
        }
        String note = args.length == 5 ? args[4] : "";
        Path file = LocalNode.dataDir().resolve(RevocationFile.NAME);
        try {
            if (Files.exists(file) && RevocationFile.parse(Files.readString(file)).revoked().contains(id)) {
                System.out.println(id.hex() + " (already revoked)");
                return 0;
            }
            Files.createDirectories(file.getParent());
            if (!Files.exists(file)) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(file, RevocationFile.line(id, "revoked " + Instant.now() + (note.isEmpty() ? ""
                    : ": " + note)), StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("token revoke: " + file + ": " + e.getMessage(), e);
        }
        System.out.println(id.hex());
        return 0;
    }

    /** {@code 90s}, {@code 15m}, {@code 12h}, {@code 30d}, or ISO-8601 ({@code PT1H}). */
    static Duration duration(String v) {
        try {
            if (v.startsWith("P") || v.startsWith("p")) {
                return Duration.parse(v);
            }
            long n = Long.parseLong(v.substring(0, v.length() - 1));
            return switch (v.charAt(v.length() - 1)) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                case 'd' -> Duration.ofDays(n);
                default -> throw new NumberFormatException();
            };
        } catch (RuntimeException e) {
            throw new UsageException("token issue: --ttl is like 90s, 15m, 12h, 30d or PT1H, not " + v);
        }
    }
}
