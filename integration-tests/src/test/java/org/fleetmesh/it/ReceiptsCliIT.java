package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.delivery.log.ChainFile;
import org.fleetmesh.delivery.log.CompactRange;
import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.delivery.log.Receipt;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code ./meshnode receipts ...} as an operator runs it (docs/OPERATING.md "Custody receipts"). */
class ReceiptsCliIT {
    static Path dataDir;
    static Path chain;
    static List<String> lines = new ArrayList<>();

    @BeforeAll
    static void writeAChain() throws Exception {
        dataDir = MeshnodeProcess.newDataDir("receipts");
        chain = dataDir.resolveSibling(dataDir.getFileName() + "-chain.jsonl");
        byte[] receiver = Schnorr.newSecretKey();
        PubKey sender = new PubKey(Schnorr.publicKey(Schnorr.newSecretKey()));
        CompactRange range = CompactRange.empty();
        EventId prev = null;
        long bytes = 0;
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (int seq = 1; seq <= 5; seq++) {
            List<byte[]> leaves = new ArrayList<>();
            for (int i = 0; i < seq % 3; i++) {
                leaves.add(Merkle.leafHash(new EventId(sha.digest(("event " + seq + "/" + i).getBytes(StandardCharsets.UTF_8)))));
                bytes += 321;
            }
            List<byte[]> consistency = range.size() == 0 ? List.of() : range.consistencyProof(leaves);
            range = range.appendAll(leaves);
            Receipt r = Receipt.sign(receiver, Keys.now(), sender, prev, seq, range.size(), range.root(), bytes, List.of());
            lines.add(ChainFile.line(r.event().json(), consistency));
            prev = r.id();
        }
        Files.write(chain, lines, StandardCharsets.UTF_8);
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (dataDir != null) {
            MeshnodeProcess.stopLeftoverPostmasters(dataDir);
            MeshnodeProcess.deleteDataDir(dataDir);
            Files.deleteIfExists(chain);
        }
    }

    @Test
    void verifyAcceptsAWholeChainAndNamesTheFirstBadLineOfABrokenOne() throws Exception {
        Launcher.Run ok = Launcher.run(dataDir, null, "receipts", "verify", chain.toString());
        assertEquals(0, ok.exit(), ok.stderr());
        assertTrue(ok.stdout().contains("ok: 5 receipts verified"), ok.stdout());

        Path broken = dataDir.resolveSibling(dataDir.getFileName() + "-broken.jsonl");
        try {
            List<String> gap = new ArrayList<>(lines);
            gap.remove(2);
            Files.write(broken, gap, StandardCharsets.UTF_8);
            Launcher.Run bad = Launcher.run(dataDir, null, "receipts", "verify", broken.toString());
            assertEquals(1, bad.exit(), bad.stdout() + bad.stderr());
            assertTrue(bad.stderr().contains("line 3: prev"), bad.stderr());
        } finally {
            Files.deleteIfExists(broken);
        }
    }

    @Test
    void exportAndProveOnANodeWithoutChainsExitOneWithTheReason() throws Exception {
        Launcher.Run export = Launcher.run(dataDir, null, "receipts", "export", "--peer", "did:peer:4zQmNobody");
        assertEquals(1, export.exit(), export.stderr());
        assertEquals("", export.stdout());
        assertTrue(export.stderr().contains("no received receipts for did:peer:4zQmNobody"), export.stderr());

        Launcher.Run prove = Launcher.run(dataDir, null, "receipts", "prove", "ab".repeat(32));
        assertEquals(1, prove.exit(), prove.stderr());
        assertTrue(prove.stderr().contains("is a leaf of no [sent, received] custody tree"), prove.stderr());

        Launcher.Run usage = Launcher.run(dataDir, null, "receipts", "prove", "not-an-id");
        assertEquals(2, usage.exit(), usage.stderr());
    }
}
