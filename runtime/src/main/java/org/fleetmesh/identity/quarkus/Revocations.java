package org.fleetmesh.identity.quarkus;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.fleetmesh.identity.capability.RevocationFile;
import org.fleetmesh.identity.capability.RevocationList;
import org.jboss.logging.Logger;

/**
 * The tokens this node refuses as {@code revoked}: {@code <data-dir>/revoked-tokens} ({@link RevocationFile}), which
 * {@code ./meshnode token revoke} appends to while the node runs. Read again when its modification time or size
 * changed, looked at no more than once a second. Thread-safe.
 */
@ApplicationScoped
public class Revocations {
    private static final Logger LOG = Logger.getLogger(Revocations.class);
    private static final long LOOK_EVERY_NANOS = 1_000_000_000L;

    @ConfigProperty(name = "fleetmesh.data-dir", defaultValue = "./data")
    Path dataDir;

    private RevocationList current = RevocationList.empty();
    private FileTime readModified;
    private long readSize = -1;
    private long lookedAt;
    private boolean looked;

    /** The revocations in force now. */
    public synchronized RevocationList current() {
        long now = System.nanoTime();
        if (looked && now - lookedAt < LOOK_EVERY_NANOS) {
            return current;
        }
        looked = true;
        lookedAt = now;
        Path file = dataDir.resolve(RevocationFile.NAME);
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            long size = Files.size(file);
            if (modified.equals(readModified) && size == readSize) {
                return current;
            }
            RevocationFile.Read r = RevocationFile.parse(Files.readString(file, StandardCharsets.UTF_8));
            r.skipped().forEach(s -> LOG.warnf("%s %s; skipped", file, s));
            if (r.revoked().size() != current.size()) {
                LOG.infof("%d token or block id(s) revoked (%s)", r.revoked().size(), file);
            }
            current = r.revoked();
            readModified = modified;
            readSize = size;
        } catch (NoSuchFileException e) {
            current = RevocationList.empty();
            readModified = null;
            readSize = -1;
        } catch (IOException | RuntimeException e) {
            // keep what was in force: a file being rewritten must not lift the revocations
            LOG.warnf("%s does not read (%s); the revocations read before stay in force", file, e.toString());
        }
        return current;
    }
}
