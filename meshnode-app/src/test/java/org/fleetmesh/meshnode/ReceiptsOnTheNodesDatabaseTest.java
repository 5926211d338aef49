package org.fleetmesh.meshnode;

import static org.fleetmesh.meshnode.CustodyChains.id;
import static org.fleetmesh.meshnode.CustodyChains.pubkey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.fleetmesh.delivery.log.CustodyProof;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.spi.delivery.CustodyLedger.Side;
import org.fleetmesh.spi.storage.EventStore;
import org.fleetmesh.storage.postgres.delivery.PgCustodyLedger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The receipts commands as an operator runs them: on the node's data dir (its embedded PostgreSQL), through
 * {@link LocalNode}, with a chain the node wrote through the custody ledger's SPI.
 */
class ReceiptsOnTheNodesDatabaseTest {
    static final String PEER = "did:peer:4zQmTheSender";

    @TempDir
    static Path dataDir;

    record Run(int code, String out, String err) {
    }

    static Run cli(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int code = ReceiptsCommand.run(args);
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    @Test
    void exportVerifyAndProveReadTheChainTheNodeWrote() throws Exception {
        System.setProperty("fleetmesh.data-dir", dataDir.toString());
        byte[] self = Schnorr.newSecretKey();
        try (EventStore store = LocalNode.openStore()) {
            assertTrue(LocalNode.custodyLedger(store) instanceof PgCustodyLedger);
            CustodyChains chain = new CustodyChains(LocalNode.custodyLedger(store), Side.RECEIVED, PEER, self,
                    pubkey(Schnorr.newSecretKey()));
            for (int f = 0; f < 7; f++) {
                chain.frame(id("e" + f + "a"), id("e" + f + "b"), id("e" + f + "c"));
            }
        }
        Run export = cli("receipts", "export", "--peer", PEER, "--side", "received");
        assertEquals(0, export.code(), export.err());
        assertEquals(7, export.out().lines().count());
        Path file = dataDir.resolveSibling(dataDir.getFileName() + "-chain.jsonl");
        try {
            Files.writeString(file, export.out());
            Run verify = cli("receipts", "verify", file.toString());
            assertEquals(0, verify.code(), verify.err());
        } finally {
            Files.deleteIfExists(file);
        }
        Run prove = cli("receipts", "prove", id("e3b").hex());
        assertEquals(0, prove.code(), prove.err());
        List<String> lines = prove.out().lines().toList();
        assertEquals(1, lines.size());
        CustodyProof proof = CustodyProof.parse(lines.get(0));
        assertNull(proof.verify());
        assertEquals(10, proof.index());
        assertEquals(21, proof.treeSize());
        Run none = cli("receipts", "export", "--peer", PEER, "--side", "sent");
        assertEquals(1, none.code());
        assertTrue(none.err().contains("no sent receipts"), none.err());
    }
}
