package org.fleetmesh.spi.nativelib;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The copies of JNI libraries that their own loaders unpack into the temporary directory, removed once they are loaded
 * (docs/OPERATING.md "Fast start", "Nothing left in the temporary directory"). wasmtime-java unpacks its 18 MB library
 * into {@code java.io.tmpdir} at every process's first run and never deletes it; libsecp256k1's loader (2 MB) deletes
 * its copy only at a normal exit, so a node stopped with {@code kill -9} leaves it. Once the dynamic linker has mapped
 * a library its file can be unlinked: the mapping keeps the inode until the process ends. This finds the files the calling process has mapped, by
 * {@code /proc/self/maps}, so that no other process's copy is ever touched; where there is no {@code /proc} it
 * deletes nothing.
 */
public final class UnpackedLibraries {
    private static final Path MAPS = Path.of("/proc/self/maps");

    private UnpackedLibraries() {
    }

    /**
     * Deletes every file this process has mapped that sits directly in {@code dir} and whose name starts with
     * {@code prefix} and ends with {@code suffix}, with the sibling files named like it plus each of
     * {@code companions} (a loader's lock file). Returns the paths deleted; never throws for a file it cannot delete.
     */
    public static List<Path> unlinkMapped(Path dir, String prefix, String suffix, String... companions) {
        String maps;
        try {
            maps = Files.readString(MAPS);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        List<Path> deleted = new ArrayList<>();
        for (Path p : select(mappedFiles(maps), dir, prefix, suffix)) {
            delete(p, deleted);
            for (String c : companions) {
                delete(p.resolveSibling(p.getFileName() + c), deleted);
            }
        }
        return deleted;
    }

    private static void delete(Path p, List<Path> deleted) {
        try {
            if (Files.deleteIfExists(p)) {
                deleted.add(p);
            }
        } catch (IOException | RuntimeException e) {
            // another process or the operator removed it, or the directory is read-only: nothing to do
        }
    }

    /**
     * The files named in the text of a {@code /proc/PID/maps}, each once, in order of first mapping. A line is
     * {@code address perms offset dev inode [path]}; the path may contain spaces, and a file already unlinked ends in
     * {@code " (deleted)"} and is left out (it is gone).
     */
    static Set<Path> mappedFiles(String maps) {
        Set<Path> files = new LinkedHashSet<>();
        for (String line : maps.split("\n")) {
            int at = 0;
            for (int field = 0; field < 5 && at >= 0; field++) {
                at = line.indexOf(' ', at);
                while (at >= 0 && at < line.length() && line.charAt(at) == ' ') {
                    at++;
                }
            }
            if (at < 0 || at >= line.length() || line.charAt(at) != '/' || line.endsWith(" (deleted)")) {
                continue;
            }
            files.add(Path.of(line.substring(at)));
        }
        return files;
    }

    /** The directory as the kernel names it in the maps (symbolic links resolved), else as given. */
    private static Path real(Path dir) {
        try {
            return dir.toRealPath();
        } catch (IOException | RuntimeException e) {
            return dir.toAbsolutePath().normalize();
        }
    }

    /** Those of {@code files} directly in {@code dir} named {@code prefix...suffix}. */
    static List<Path> select(Set<Path> files, Path dir, String prefix, String suffix) {
        Path d = real(dir);
        List<Path> out = new ArrayList<>();
        for (Path f : files) {
            Path parent = f.getParent();
            String name = f.getFileName().toString();
            if (parent != null && real(parent).equals(d) && name.startsWith(prefix) && name.endsWith(suffix)
                    && name.length() > prefix.length() + suffix.length()) {
                out.add(f);
            }
        }
        return out;
    }
}
