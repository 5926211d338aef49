package org.fleetmesh.meshnode;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeEndpoints;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.SecretKey;
import org.fleetmesh.spi.secrets.SecretFile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code keys export [--data-dir D] <file>} and {@code keys import <file> [--data-dir D] [--force]}: a backup of the
 * node's keys (docs/OPERATING.md, "Keys backup and restore"), so that a node whose data dir is lost comes back with
 * the same DID and rebuilds its shards from its peers. The backup holds the three node keys (from the
 * {@code fleetmesh.keys.*} settings or {@code <data-dir>/keys/<role>.key}) and every other {@code *.key} of
 * {@code <data-dir>/keys} (e.g. {@code l402-root.key}); it is written 0600 and never over an existing file. Only the
 * DID and key names are printed: no message of this class carries key material.
 */
final class KeysCommand {
    static final String TYPE = "fleetmesh.keys";
    static final int VERSION = 1;
    /** The roles of NodeSecrets, as file names (without {@code .key}) and backup members. */
    static final List<String> NODE_ROLES = List.of("nostr", "agreement", "transport");
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
    private static final int MAX_KEYS = 64;
    private static final long MAX_FILE_BYTES = 64 * 1024;
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE);
    private static final ObjectMapper JSON = new ObjectMapper();

    private KeysCommand() {
    }

    static int run(String[] args) {
        return run(args, LocalNode.dataDir(), LocalNode::setting, System.out, System.err);
    }

    /**
     * @param dataDir  the configured data dir, used unless {@code --data-dir} is given
     * @param settings the relay's configuration ({@code fleetmesh.keys.*})
     */
    static int run(String[] args, Path dataDir, Function<String, Optional<String>> settings, PrintStream out,
            PrintStream err) {
        String sub = args.length > 1 ? args[1] : "";
        Path dir = dataDir;
        Path file = null;
        boolean force = false;
        for (int i = 2; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--data-dir") && i + 1 < args.length) {
                dir = Path.of(args[++i]);
            } else if (a.equals("--force") && sub.equals("import")) {
                force = true;
            } else if (!a.startsWith("--") && file == null) {
                if (a.isEmpty()) {
                    throw new UsageException("keys " + sub + ": the file name is empty");
                }
                file = Path.of(a);
            } else {
                throw new UsageException(usage(sub));
            }
        }
        if (sub.equals("rotate")) {
            if (file != null) {
                throw new UsageException(usage(sub));
            }
            try {
                return rotate(dir, settings, System.currentTimeMillis() / 1000, out, err);
            } catch (KeysException e) {
                err.println("meshnode: keys rotate: " + e.getMessage());
                return 1;
            }
        }
        if (file == null || !(sub.equals("export") || sub.equals("import"))) {
            throw new UsageException(usage(sub));
        }
        try {
            return sub.equals("export") ? export(dir, settings, file, out, err) : restore(file, dir, force, settings, out, err);
        } catch (KeysException e) {
            err.println("meshnode: keys " + sub + ": " + e.getMessage());
            return 1;
        }
    }

    private static String usage(String sub) {
        return switch (sub) {
            case "export" -> "keys export takes [--data-dir D] <file>";
            case "import" -> "keys import takes <file> [--data-dir D] [--force]";
            case "rotate" -> "keys rotate takes [--data-dir D]";
            default -> "keys takes export [--data-dir D] <file> | import <file> [--data-dir D] [--force] | rotate [--data-dir D]";
        };
    }

    /** Something about the keys or the files that stops the command: a message without key material, exit 1. */
    static final class KeysException extends RuntimeException {
        KeysException(String message) {
            super(message);
        }
    }

    /**
     * {@code keys rotate}: new node keys, and a hand-over from the old DID to the new one signed with the old transport
     * key ({@code keys/handover.jwt}, a DIDComm {@code from_prior} JWT; docs/spec/mesh-link.md, "Key hand-over"). The
     * old keys move to {@code keys/retired/<seconds>/} (kept: old receipts and claims stay verifiable). Takes effect
     * at the node's next start: stop it first. Prints the new DID.
     */
    static int rotate(Path dataDir, Function<String, Optional<String>> settings, long now, PrintStream out,
            PrintStream err) {
        for (String role : NODE_ROLES) {
            for (String setting : List.of("fleetmesh.keys." + role, "fleetmesh.keys." + role + "-file")) {
                if (settings.apply(setting).isPresent()) {
                    throw new KeysException(setting + " is set: the node's keys come from the configuration, so rotate "
                            + "them there (and sign no hand-over), or unset it");
                }
            }
        }
        refuseWhileRunning(dataDir);
        Path keysDir = dataDir.resolve("keys");
        Map<String, byte[]> old = new LinkedHashMap<>();
        try {
            for (String role : NODE_ROLES) {
                old.put(role, nodeKey(role, keysDir, settings));
            }
            NodeSecrets oldSecrets = NodeSecrets.of(new SecretKey(old.get("nostr")), new SecretKey(old.get("agreement")),
                    new SecretKey(old.get("transport")));
            String oldDid = didOf(oldSecrets);
            Path retired = keysDir.resolve("retired").resolve(Long.toString(now));
            if (Files.exists(retired, LinkOption.NOFOLLOW_LINKS)) {
                throw new KeysException(retired + " exists already: one rotation per second");
            }
            createPrivateDirectory(keysDir.resolve("retired"));
            createPrivateDirectory(retired);
            Path handover = keysDir.resolve(org.fleetmesh.identity.quarkus.NodeIdentity.HANDOVER_FILE);
            try {
                for (String role : NODE_ROLES) {
                    Files.move(keysDir.resolve(role + ".key"), retired.resolve(role + ".key"),
                            StandardCopyOption.ATOMIC_MOVE);
                }
                if (Files.exists(handover, LinkOption.NOFOLLOW_LINKS)) {
                    Files.move(handover, retired.resolve(org.fleetmesh.identity.quarkus.NodeIdentity.HANDOVER_FILE),
                            StandardCopyOption.ATOMIC_MOVE);
                }
                fsync(retired);
            } catch (IOException e) {
                throw new KeysException("could not move the old keys to " + retired + ": " + LocalNode.why(e));
            }
            NodeSecrets fresh = NodeSecrets.loadOrCreate(dataDir, NodeSecrets.Supplied.NONE, NodeSecrets.Supplied.NONE,
                    NodeSecrets.Supplied.NONE);
            String newDid = didOf(fresh);
            org.fleetmesh.identity.KeyHandover h = org.fleetmesh.identity.KeyHandover.sign(oldDid, oldDid + "#key-1",
                    oldSecrets.transport(), newDid, now);
            try {
                Path tmp = keysDir.resolve(org.fleetmesh.identity.quarkus.NodeIdentity.HANDOVER_FILE + ".tmp");
                Files.writeString(tmp, h.jwt() + "\n", StandardCharsets.US_ASCII);
                try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
                Files.move(tmp, handover, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                fsync(keysDir);
            } catch (IOException e) {
                throw new KeysException("could not write " + handover + ": " + LocalNode.why(e));
            }
            out.println(newDid);
            err.println("meshnode: rotated the node keys: " + org.fleetmesh.identity.KeyHandover.shortForm(oldDid) + " -> "
                    + org.fleetmesh.identity.KeyHandover.shortForm(newDid));
            err.println("meshnode: the old keys are in " + retired + "; the hand-over is " + handover);
            err.println("meshnode: restart the node: it presents the hand-over on every link, and peers that declared the"
                    + " old DID move their declaration to the new one. Tokens signed by the old transport key no longer"
                    + " verify. Back up the new keys (keys export).");
            return 0;
        } finally {
            old.values().forEach(k -> Arrays.fill(k, (byte) 0));
        }
    }

    /**
     * Moves every key file of {@code keysDir} (each {@code *.key} and the hand-over) into {@code retired} (created
     * 0700, under {@code keys/retired/} as {@code rotate} keeps the keys it replaces), so that a {@code restore --force}
     * giving the data dir another node's keys loses none. Returns the names moved; with none, nothing is created.
     */
    static List<String> retire(Path keysDir, Path retired) {
        List<Path> files = new ArrayList<>();
        if (Files.isDirectory(keysDir, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> d = Files.newDirectoryStream(keysDir, "*.key")) {
                for (Path p : d) {
                    if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                        files.add(p);
                    }
                }
            } catch (IOException e) {
                throw new KeysException("cannot list " + keysDir + ": " + LocalNode.why(e));
            }
            Path handover = keysDir.resolve(org.fleetmesh.identity.quarkus.NodeIdentity.HANDOVER_FILE);
            if (Files.exists(handover, LinkOption.NOFOLLOW_LINKS)) {
                files.add(handover);
            }
        }
        List<String> moved = new ArrayList<>();
        if (files.isEmpty()) {
            return moved;
        }
        files.sort(null);
        if (Files.exists(retired, LinkOption.NOFOLLOW_LINKS)) {
            throw new KeysException(retired + " exists already");
        }
        createPrivateDirectory(retired.getParent());
        createPrivateDirectory(retired);
        try {
            for (Path f : files) {
                Files.move(f, retired.resolve(f.getFileName()), StandardCopyOption.ATOMIC_MOVE);
                moved.add(f.getFileName().toString());
            }
            fsync(retired);
            fsync(keysDir);
        } catch (IOException e) {
            throw new KeysException("could not move the keys to " + retired + " (moved: " + String.join(", ", moved)
                    + "): " + e.getMessage());
        }
        return moved;
    }

    /** The node's hand-over file, when it verifies and hands over to {@code did} (what a backup keeps). */
    private static Optional<String> handoverFile(Path keysDir, String did) {
        try {
            return org.fleetmesh.identity.quarkus.NodeIdentity.readHandover(keysDir, did, System.currentTimeMillis() / 1000)
                    .map(org.fleetmesh.identity.KeyHandover::jwt);
        } catch (RuntimeException e) {
            return Optional.empty(); // not this node's: the node ignores it too
        }
    }

    /** A backup's {@code handover} member, checked: it must hand over to the backup's DID. */
    private static Optional<String> handoverMember(Path file, String did) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            try {
                JsonNode h = JSON.readTree(bytes).get("handover");
                if (h == null || h.isNull()) {
                    return Optional.empty();
                }
                if (!h.isTextual()) {
                    throw new KeysException(file + ": \"handover\" must be a JWT string");
                }
                return Optional.of(checkedHandover(h.textValue(), did));
            } finally {
                Arrays.fill(bytes, (byte) 0);
            }
        } catch (IOException e) {
            throw new KeysException("could not read " + file + " again: " + e.getMessage());
        }
    }

    private static String checkedHandover(String jwt, String did) {
        try {
            return org.fleetmesh.identity.KeyHandover.verifyTo(did, jwt, System.currentTimeMillis() / 1000, 300).jwt();
        } catch (RuntimeException e) {
            throw new KeysException("the hand-over does not verify: " + e.getMessage());
        }
    }

    private static String didOf(NodeSecrets secrets) {
        return NodeDidDocument.of(secrets.publicKeys(), NodeEndpoints.forRelay(Optional.empty(), 7777)).did();
    }

    static int export(Path dataDir, Function<String, Optional<String>> settings, Path file, PrintStream out,
            PrintStream err) {
        Path keysDir = dataDir.resolve("keys");
        Map<String, byte[]> keys = new LinkedHashMap<>();
        try {
            for (String role : NODE_ROLES) {
                keys.put(role, nodeKey(role, keysDir, settings));
            }
            for (Path other : otherKeyFiles(keysDir)) {
                String name = nameOf(other);
                keys.put(name, readKey(() -> SecretFile.read(other, name + " key")));
            }
            String did = did(keys);
            ObjectNode doc = JSON.createObjectNode();
            doc.put("type", TYPE);
            doc.put("version", VERSION);
            doc.put("did", did);
            ObjectNode members = doc.putObject("keys");
            keys.forEach((name, k) -> members.put(name, HexFormat.of().formatHex(k)));
            handoverFile(keysDir, did).ifPresent(h -> doc.put("handover", h));
            byte[] bytes = (JSON.writeValueAsString(doc) + "\n").getBytes(StandardCharsets.US_ASCII);
            try {
                writeNew(file, bytes);
            } finally {
                Arrays.fill(bytes, (byte) 0);
            }
            out.println(did);
            err.println("meshnode: wrote " + keys.size() + " keys (" + String.join(", ", keys.keySet()) + ") to " + file
                    + " (mode 0600); keep it offline: it is the node's identity");
            return 0;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        } finally {
            keys.values().forEach(k -> Arrays.fill(k, (byte) 0));
        }
    }

    static int restore(Path file, Path dataDir, boolean force, Function<String, Optional<String>> settings,
            PrintStream out, PrintStream err) {
        Map<String, byte[]> keys = read(file);
        try {
            Path keysDir = dataDir.resolve("keys");
            List<String> existing = new ArrayList<>();
            for (String name : keys.keySet()) {
                if (Files.exists(keysDir.resolve(name + ".key"), LinkOption.NOFOLLOW_LINKS)) {
                    existing.add(name + ".key");
                }
            }
            if (!existing.isEmpty() && !force) {
                throw new KeysException(keysDir + " already holds " + String.join(", ", existing)
                        + ": refusing to replace a node's keys (--force replaces them; the node then has the backup's DID)");
            }
            String did = did(keys);
            if (!existing.isEmpty()) {
                // a running node keeps the keys it read at start and would go on under the old DID: as rotate, refused
                refuseWhileRunning(dataDir);
                // --force: the keys replaced are moved aside, not lost, as rotate and restore --force keep them
                Path retired = keysDir.resolve("retired").resolve(System.currentTimeMillis() / 1000 + "-replaced-by-import");
                List<String> moved = retire(keysDir, retired);
                if (!moved.isEmpty()) {
                    err.println("meshnode: moved the data dir's own keys (" + String.join(", ", moved) + ") to " + retired);
                }
            }
            createPrivateDirectory(keysDir);
            for (Map.Entry<String, byte[]> k : keys.entrySet()) {
                writeKeyFile(keysDir, k.getKey() + ".key", k.getValue(), force);
            }
            Optional<String> handover = handoverMember(file, did);
            if (handover.isPresent()) {
                try {
                    Files.writeString(keysDir.resolve(org.fleetmesh.identity.quarkus.NodeIdentity.HANDOVER_FILE),
                            handover.get() + "\n", StandardCharsets.US_ASCII);
                } catch (IOException e) {
                    throw new KeysException("could not write the hand-over: " + e.getMessage());
                }
            }
            fsync(keysDir);
            out.println(did);
            err.println("meshnode: restored " + keys.size() + " keys (" + String.join(", ", keys.keySet()) + ") into "
                    + keysDir + " (mode 0600)");
            for (String role : NODE_ROLES) {
                for (String setting : List.of("fleetmesh.keys." + role, "fleetmesh.keys." + role + "-file")) {
                    if (settings.apply(setting).isPresent()) {
                        err.println("meshnode: note: " + setting + " is set; the node uses it, not keys/" + role + ".key");
                    }
                }
            }
            return 0;
        } finally {
            keys.values().forEach(k -> Arrays.fill(k, (byte) 0));
        }
    }

    /** Reads and checks a backup: its form, its version, every key, and that its DID is the one its keys make. */
    static Map<String, byte[]> read(Path file) {
        JsonNode doc;
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            Set<PosixFilePermission> extra = EnumSet.copyOf(perms);
            extra.removeAll(OWNER_ONLY);
            if (!extra.isEmpty()) {
                throw new KeysException("refusing to read " + file + ": its mode is " + PosixFilePermissions.toString(perms)
                        + "; a keys backup must be readable by its owner only (chmod 600)");
            }
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new KeysException(file + " is not a keys backup: larger than " + MAX_FILE_BYTES + " bytes");
            }
            byte[] bytes = Files.readAllBytes(file);
            try {
                doc = JSON.readTree(bytes);
            } catch (JsonProcessingException e) {
                // the parser's message quotes the input, which is key material
                throw new KeysException(file + " is not a keys backup: not JSON (line " + e.getLocation().getLineNr()
                        + ", column " + e.getLocation().getColumnNr() + ")");
            } finally {
                Arrays.fill(bytes, (byte) 0);
            }
        } catch (NoSuchFileException e) {
            throw new KeysException("no such file: " + file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        if (doc == null || !doc.isObject() || !TYPE.equals(doc.path("type").asText(null))) {
            throw new KeysException(file + " is not a keys backup: \"type\" must be \"" + TYPE + "\"");
        }
        JsonNode version = doc.get("version");
        if (version == null || !version.isIntegralNumber() || version.asLong() != VERSION) {
            throw new KeysException(file + " is a keys backup of version " + (version == null ? "(none)" : version.toString())
                    + "; this node reads version " + VERSION);
        }
        JsonNode members = doc.get("keys");
        if (members == null || !members.isObject()) {
            throw new KeysException(file + ": \"keys\" must be an object of name to 64 hex characters");
        }
        if (members.size() > MAX_KEYS) {
            throw new KeysException(file + ": more than " + MAX_KEYS + " keys");
        }
        Map<String, byte[]> keys = new LinkedHashMap<>();
        boolean ok = false;
        try {
            for (Iterator<Map.Entry<String, JsonNode>> it = members.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> m = it.next();
                if (!NAME.matcher(m.getKey()).matches()) {
                    throw new KeysException(file + ": a key name must be 1-64 of [a-z0-9-] (starting with a letter or digit)");
                }
                if (!m.getValue().isTextual()) {
                    throw new KeysException(file + ": key \"" + m.getKey() + "\" must be a string of 64 hex characters");
                }
                String name = m.getKey();
                keys.put(name, readKey(() -> SecretFile.parse(m.getValue().asText(), name + " key in the backup")));
            }
            for (String role : NODE_ROLES) {
                if (!keys.containsKey(role)) {
                    throw new KeysException(file + ": the backup has no \"" + role + "\" key");
                }
            }
            String did = did(keys);
            if (!did.equals(doc.path("did").asText(null))) {
                throw new KeysException(file + ": its keys make " + did + ", not the \"did\" it names ("
                        + doc.path("did").asText("none") + "): the file is damaged or edited");
            }
            ok = true;
            return keys;
        } finally {
            if (!ok) {
                keys.values().forEach(k -> Arrays.fill(k, (byte) 0));
            }
        }
    }

    private static byte[] nodeKey(String role, Path keysDir, Function<String, Optional<String>> settings) {
        Optional<String> hex = settings.apply("fleetmesh.keys." + role);
        Optional<Path> file = settings.apply("fleetmesh.keys." + role + "-file").map(Path::of);
        Path defaultFile = keysDir.resolve(role + ".key");
        return readKey(() -> SecretFile.load(hex, file, defaultFile, () -> {
            throw new KeysException("no " + role + " key: " + defaultFile + " does not exist and fleetmesh.keys." + role
                    + " is not set (a node creates its keys on first start, or with ./meshnode did show)");
        }, role + " key"));
    }

    /** SecretFile's refusals (mode, form) as this command's; their messages never hold the key. */
    private static byte[] readKey(java.util.function.Supplier<byte[]> read) {
        try {
            return read.get();
        } catch (IllegalStateException e) {
            throw new KeysException(e.getMessage());
        }
    }

    private static List<Path> otherKeyFiles(Path keysDir) {
        List<Path> found = new ArrayList<>();
        if (!Files.isDirectory(keysDir)) {
            return found;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(keysDir, "*.key")) {
            for (Path p : files) {
                String name = nameOf(p);
                if (!NODE_ROLES.contains(name) && NAME.matcher(name).matches() && Files.isRegularFile(p)) {
                    found.add(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + keysDir, e);
        }
        found.sort(null);
        return found;
    }

    private static String nameOf(Path keyFile) {
        String f = keyFile.getFileName().toString();
        return f.substring(0, f.length() - ".key".length());
    }

    static String did(Map<String, byte[]> keys) {
        try {
            NodeSecrets secrets = NodeSecrets.of(new SecretKey(keys.get("nostr")), new SecretKey(keys.get("agreement")),
                    new SecretKey(keys.get("transport")));
            return NodeDidDocument.of(secrets.publicKeys(), NodeEndpoints.forRelay(Optional.empty(), 7777)).did();
        } catch (IllegalArgumentException e) {
            throw new KeysException("the keys do not make a node identity (the nostr key is not a valid secp256k1 secret)");
        }
    }

    /** Writes a new 0600 file; an existing one (or a link there) is never replaced. */
    private static void writeNew(Path file, byte[] bytes) {
        try (FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(OWNER_ONLY))) {
            ch.write(java.nio.ByteBuffer.wrap(bytes));
            ch.force(true);
        } catch (FileAlreadyExistsException e) {
            throw new KeysException(file + " exists: refusing to overwrite it (pick a new name)");
        } catch (NoSuchFileException e) {
            throw new KeysException("cannot create " + file + ": no such directory");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        fsync(file.toAbsolutePath().getParent());
    }

    private static void createPrivateDirectory(Path dir) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }

    /** As SecretFile writes a key: a private temporary file, forced to disk, then moved (or linked) into place. */
    private static void writeKeyFile(Path dir, String name, byte[] key, boolean replace) {
        Path target = dir.resolve(name);
        Path tmp = null;
        byte[] text = (HexFormat.of().formatHex(key) + "\n").getBytes(StandardCharsets.US_ASCII);
        try {
            tmp = Files.createTempFile(dir, name, ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.write(java.nio.ByteBuffer.wrap(text));
                ch.force(true);
            }
            if (replace) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } else {
                Files.move(tmp, target); // refuses to overwrite a key created meanwhile
            }
            tmp = null;
        } catch (FileAlreadyExistsException e) {
            throw new KeysException(target + " appeared while restoring: refusing to replace it");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        } finally {
            Arrays.fill(text, (byte) 0);
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // a leftover temporary file is 0600 and holds what the backup holds
                }
            }
        }
    }

    private static void fsync(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // some file systems cannot sync a directory; the files themselves are synced
        }
    }

    /** Keys are replaced only with the node stopped: a running one keeps the keys it read at start. */
    private static void refuseWhileRunning(Path dataDir) {
        java.util.Optional<String> running = LocalNode.runningOn(dataDir);
        if (running.isPresent()) {
            throw new KeysException(running.get() + ": stop the node first (it reads its keys at start)");
        }
    }
}
