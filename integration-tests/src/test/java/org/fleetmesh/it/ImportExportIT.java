package org.fleetmesh.it;

import static org.fleetmesh.it.Keys.now;
import static org.fleetmesh.it.Keys.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.fleetmesh.nostr.Event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** {@code ./meshnode import} and {@code ./meshnode export} on a data dir, run as the operator would. */
class ImportExportIT {

    static Path dataDir;
    static Path jsonl;
    static Keys author = Keys.fresh();
    static Keys other = Keys.fresh();
    static List<Event> notes = new ArrayList<>();
    static List<Event> valid = new ArrayList<>();


    @BeforeAll
    static void writeInput() throws IOException {
        dataDir = MeshnodeProcess.newDataDir("import");
        long t = now() - 1000;
        for (int i = 0; i < 4; i++) {
            notes.add((i % 2 == 0 ? author : other).note(t + i * 10, "imported note " + i, tag("t", "import")));
        }
        Event r1 = author.sign(7, t + 5, "+", tag("e", notes.get(0).id().hex()));
        Event r2 = other.sign(7, t + 6, "-", tag("e", notes.get(1).id().hex()));
        Event metaNew = author.sign(0, t + 100, "{\"name\":\"new\"}");
        Event metaOld = author.sign(0, t + 50, "{\"name\":\"old\"}");
        valid.addAll(notes);
        valid.add(r1);
        valid.add(r2);
        valid.add(metaNew);

        List<String> lines = new ArrayList<>();
        notes.forEach(e -> lines.add(e.json()));
        lines.add(r1.json());
        lines.add(r2.json());
        lines.add(metaNew.json());
        lines.add(notes.get(0).json()); // duplicate
        lines.add(metaOld.json()); // superseded by metaNew: counted with the duplicates
        lines.add("");
        lines.add(Keys.withBrokenSignature(author.note(t, "forged"))); // rejected: bad signature
        lines.add("this is not json"); // rejected
        lines.add(author.note(t, "expired", tag("expiration", Long.toString(now() - 5))).json()); // rejected
        lines.add(author.sign(20001, t, "ephemeral").json()); // rejected: never stored
        lines.add("{\"id\":\"zz\"}"); // rejected
        jsonl = dataDir.resolveSibling(dataDir.getFileName() + ".jsonl");
        Files.write(jsonl, lines, StandardCharsets.UTF_8);
    }

    @AfterAll
    static void cleanUp() throws IOException {
        if (dataDir != null) {
            MeshnodeProcess.stopLeftoverPostmasters(dataDir);
            MeshnodeProcess.deleteDataDir(dataDir);
            Files.deleteIfExists(jsonl);
        }
    }

    private static Launcher.Run meshnode(Path stdin, String... args) throws Exception {
        return Launcher.run(dataDir, stdin, args);
    }

    private static List<JsonNode> jsonLines(String stdout) {
        List<JsonNode> l = new ArrayList<>();
        for (String line : stdout.split("\n")) {
            if (!line.isBlank()) {
                l.add(NostrClient.tree(line));
            }
        }
        return l;
    }

    @Test
    void importCountsThenExportWritesExactlyTheMatchingEvents() throws Exception {
        Launcher.Run first = meshnode(jsonl, "import");
        assertEquals(0, first.exit(), "import failed:\n" + first.stderr());
        long[] s = first.summary();
        assertEquals(7, s[0], "accepted:\n" + first.stderr());
        assertEquals(2, s[1], "duplicate:\n" + first.stderr());
        assertEquals(5, s[2], "rejected:\n" + first.stderr());
        assertTrue(first.stderr().contains("invalid:"), "reasons for the rejected lines:\n" + first.stderr());

        // the same file again: nothing new
        Launcher.Run second = meshnode(jsonl, "import");
        assertEquals(0, second.exit(), second.stderr());
        long[] s2 = second.summary();
        assertEquals(List.of(0L, 9L, 5L), List.of(s2[0], s2[1], s2[2]), "second import:\n" + second.stderr());

        Launcher.Run kind1 = meshnode(null, "export", "--filter", "{\"kinds\":[1]}");
        assertEquals(0, kind1.exit(), kind1.stderr());
        List<JsonNode> exported = jsonLines(kind1.stdout());
        List<Event> expected = new ArrayList<>(notes);
        expected.sort(Comparator.comparingLong(Event::createdAt).reversed().thenComparing(e -> e.id().hex()));
        assertEquals(expected.stream().map(e -> NostrClient.tree(e.json())).toList(), exported,
                "export of kind 1 must be exactly the imported notes, newest first");

        Launcher.Run byAuthor = meshnode(null, "export", "--filter",
                "{\"authors\":[\"" + author.pubkey() + "\"],\"kinds\":[0,7]}");
        assertEquals(0, byAuthor.exit(), byAuthor.stderr());
        assertEquals(List.of(valid.get(6).id().hex(), valid.get(4).id().hex()),
                NostrClient.ids(jsonLines(byAuthor.stdout())), "the newest metadata and the reaction, nothing older");

        Launcher.Run all = meshnode(null, "export");
        assertEquals(0, all.exit(), all.stderr());
        List<String> allIds = NostrClient.ids(jsonLines(all.stdout()));
        assertEquals(valid.stream().map(e -> e.id().hex()).sorted().toList(), allIds.stream().sorted().toList());
    }

    /**
     * Ctrl-C or SIGTERM while {@code import} holds the store: the embedded PostgreSQL the command started stops with it,
     * instead of a postmaster left running on the data dir with no process using it.
     */
    @Test
    void anInterruptedImportLeavesNoPostmasterBehind() throws Exception {
        Path dir = MeshnodeProcess.newDataDir("import-interrupted");
        Path fifo = dir.resolveSibling(dir.getFileName() + ".fifo");
        Process p = null;
        try {
            assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
            Path root = MeshnodeProcess.projectRoot();
            // the shell opens the pipe in the child (a redirect from here would block this thread until a writer came)
            ProcessBuilder pb = new ProcessBuilder("bash", "-c", "exec \"$0\" import < \"$1\"",
                    root.resolve("meshnode").toString(), fifo.toString()).directory(root.toFile())
                    .redirectOutput(MeshnodeProcess.outputFile("meshnode-import-int", ".out").toFile())
                    .redirectError(MeshnodeProcess.outputFile("meshnode-import-int", ".err").toFile());
            pb.environment().keySet().removeIf(k -> k.startsWith("FLEETMESH_") || k.startsWith("QUARKUS_"));
            pb.environment().put("FLEETMESH_DATA_DIR", dir.toString());
            p = pb.start();
            try (java.io.OutputStream w = Files.newOutputStream(fifo)) { // the import waits on this pipe, store open
                w.write((Keys.fresh().note(now(), "one").json() + "\n").getBytes(StandardCharsets.UTF_8));
                w.flush();
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
                while (postmaster(dir).isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                assertTrue(postmaster(dir).isPresent(), "the import started its embedded PostgreSQL");
                Thread.sleep(1000);
                // SIGTERM: Ctrl-C's SIGINT runs the same shutdown hooks, but a shell starting a job in the background
                // (a CI runner may) has it ignored, and the JVM keeps it so
                assertEquals(0, new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor());
                assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "the import ends on SIGTERM");
            }
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(15);
            while (postmaster(dir).isPresent() && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertTrue(postmaster(dir).isEmpty(), "no postmaster left on " + dir + ": " + postmaster(dir));
        } finally {
            if (p != null) {
                p.destroyForcibly();
            }
            Files.deleteIfExists(fifo);
            MeshnodeProcess.stopLeftoverPostmasters(dir);
            MeshnodeProcess.deleteDataDir(dir);
        }
    }

    /** The live postmaster on {@code dir}'s embedded cluster, if any ({@code pg/postmaster.pid} naming a live process). */
    private static java.util.Optional<ProcessHandle> postmaster(Path dir) throws IOException {
        Path pid = dir.resolve("pg").resolve("postmaster.pid");
        if (!Files.isRegularFile(pid)) {
            return java.util.Optional.empty();
        }
        List<String> lines = Files.readAllLines(pid, StandardCharsets.US_ASCII);
        if (lines.isEmpty() || lines.get(0).isBlank()) {
            return java.util.Optional.empty();
        }
        return ProcessHandle.of(Long.parseLong(lines.get(0).trim())).filter(ProcessHandle::isAlive);
    }

    /** docs/OPERATING.md: import applies the relay's admission rules (NIP-70 authorship aside). */
    @Test
    void importRefusesWhatTheRelayRefuses() throws Exception {
        Path dir = MeshnodeProcess.newDataDir("import-refusals");
        Path file = dir.resolveSibling(dir.getFileName() + ".jsonl");
        try {
            Keys k = Keys.fresh();
            long now = now();
            List<String> lines = List.of(
                    // NIP-70: the operator stands in for the author, so export + import keeps protected events
                    k.note(now, "protected", tag("-")).json(),
                    k.note(now + 3600, "an hour ahead").json(), // beyond created_at_upper_limit (900 s)
                    k.sign(22242, now, "", tag("relay", "ws://x"), tag("challenge", "c")).json(),
                    k.sign(20001, now, "ephemeral").json(),
                    k.note(now - 10, "expired", tag("expiration", Long.toString(now - 1))).json(),
                    k.note(now, "fine").json());
            Files.write(file, lines, StandardCharsets.UTF_8);
            Launcher.Run r = Launcher.run(dir, file, "import");
            assertEquals(0, r.exit(), r.stderr());
            long[] s = r.summary();
            assertEquals(List.of(2L, 0L, 4L), List.of(s[0], s[1], s[2]),
                    "import must refuse what the relay refuses:\n" + r.stderr());
        } finally {
            MeshnodeProcess.stopLeftoverPostmasters(dir);
            MeshnodeProcess.deleteDataDir(dir);
            Files.deleteIfExists(file);
        }
    }

    /** docs/OPERATING.md: import and export also run beside a running relay on its data dir. */
    @Test
    void importAndExportBesideARunningNode() throws Exception {
        try (MeshnodeProcess node = MeshnodeProcess.start("import-beside")) {
            Keys k = Keys.fresh();
            Event live = k.note(now() - 30, "published over the WebSocket");
            List<Event> imported = List.of(k.note(now() - 20, "imported 1"), k.note(now() - 10, "imported 2"));
            Path file = node.dataDir().resolveSibling(node.dataDir().getFileName() + ".jsonl");
            Files.write(file, imported.stream().map(Event::json).toList(), StandardCharsets.UTF_8);
            try (NostrClient c = NostrClient.connect(node)) {
                c.publishAndWait(live).assertAccepted();
                Launcher.Run r = Launcher.run(node.dataDir(), file, "import");
                assertEquals(0, r.exit(), r.stderr());
                long[] s = r.summary();
                assertEquals(List.of(2L, 0L, 0L), List.of(s[0], s[1], s[2]), r.stderr());
                assertEquals(List.of(imported.get(1).id().hex(), imported.get(0).id().hex(), live.id().hex()),
                        NostrClient.ids(c.query("after-import", FilterSpec.of().authors(k))),
                        "the running node serves what was imported beside it");

                Launcher.Run e = Launcher.run(node.dataDir(), null, "export", "--filter", "{\"authors\":[\"" + k.pubkey() + "\"]}");
                assertEquals(0, e.exit(), e.stderr());
                assertEquals(List.of(imported.get(1).id().hex(), imported.get(0).id().hex(), live.id().hex()),
                        NostrClient.ids(jsonLines(e.stdout())));
                // the node is still fine and still alone on its cluster
                c.publishAndWait(k.note(now(), "after the CLI ran")).assertAccepted();
                assertEquals(1, node.livePostmasters().size(), "the CLI must use the node's cluster, not start another");
            } finally {
                Files.deleteIfExists(file);
            }
        }
    }

    @Test
    void exportWithABadFilterFailsWithUsage() throws Exception {
        Launcher.Run bad = meshnode(null, "export", "--filter", "{\"kinds\":\"1\"}");
        assertTrue(bad.exit() != 0, "a bad filter must fail");
        assertTrue(bad.stderr().contains("invalid:"), bad.stderr());
        assertEquals("", bad.stdout());
    }

    @Test
    void deleteRemovesExactlyTheMatchingEvents() throws Exception {
        Path dir = MeshnodeProcess.newDataDir("delete");
        Path file = dir.resolveSibling(dir.getFileName() + ".jsonl");
        try {
            Keys k = Keys.fresh();
            long now = now();
            Event note = k.note(now - 20, "a note");
            Event reaction = k.sign(7, now - 10, "+");
            Files.write(file, List.of(note.json(), reaction.json()), StandardCharsets.UTF_8);
            assertEquals(0, Launcher.run(dir, file, "import").exit());
            Launcher.Run needsFilter = Launcher.run(dir, null, "delete");
            assertTrue(needsFilter.exit() != 0, "delete without --filter must refuse");
            Launcher.Run d = Launcher.run(dir, null, "delete", "--filter", "{\"kinds\":[7]}");
            assertEquals(0, d.exit(), d.stderr());
            assertTrue(d.stderr().contains("deleted 1 events"), d.stderr());
            Launcher.Run e = Launcher.run(dir, null, "export");
            assertEquals(List.of(note.id().hex()), NostrClient.ids(jsonLines(e.stdout())));
        } finally {
            MeshnodeProcess.stopLeftoverPostmasters(dir);
            MeshnodeProcess.deleteDataDir(dir);
            Files.deleteIfExists(file);
        }
    }
}
