package org.fleetmesh.meshnode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.fleetmesh.delivery.log.ChainFile;
import org.fleetmesh.delivery.log.CustodyProof;
import org.fleetmesh.delivery.log.Merkle;
import org.fleetmesh.delivery.log.Receipt;
import org.fleetmesh.delivery.log.ReceiptException;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.peering.PeerIdentity;
import org.fleetmesh.spi.delivery.CustodyLedger;
import org.fleetmesh.spi.delivery.CustodyLedger.Side;
import org.fleetmesh.spi.storage.EventStore;

/**
 * {@code meshnode receipts export|verify|prove} (docs/spec/custody.md): the custody ledger of the node's database,
 * read as {@code export} reads its events (through {@link LocalNode}, beside a running relay or not).
 */
public final class ReceiptsCommand {
    private static final int PAGE = 1000;
    private static final int LEAF_PAGE = 10_000;

    private ReceiptsCommand() {
    }

    static int run(String[] args) {
        String sub = args.length > 1 ? args[1] : "";
        switch (sub) {
            case "export" -> {
                String peer = null;
                Side side = Side.RECEIVED;
                for (int i = 2; i < args.length; i++) {
                    if (args[i].equals("--peer") && i + 1 < args.length) {
                        peer = args[++i];
                    } else if (args[i].equals("--side") && i + 1 < args.length) {
                        side = side(args[++i]);
                    } else {
                        throw new UsageException("receipts export takes --peer <did> [--side received|sent]");
                    }
                }
                if (peer == null) {
                    throw new UsageException("receipts export needs --peer <did>");
                }
                String p = peer;
                Side s = side;
                return withLedger(ledger -> export(ledger, p, s, System.out, System.err));
            }
            case "verify" -> {
                if (args.length != 3) {
                    throw new UsageException("receipts verify takes one file (a receipts export)");
                }
                return verify(Path.of(args[2]), System.out, System.err);
            }
            case "prove" -> {
                String id = null;
                Optional<String> peer = Optional.empty();
                Optional<Side> side = Optional.empty();
                for (int i = 2; i < args.length; i++) {
                    if (args[i].equals("--peer") && i + 1 < args.length) {
                        peer = Optional.of(args[++i]);
                    } else if (args[i].equals("--side") && i + 1 < args.length) {
                        side = Optional.of(side(args[++i]));
                    } else if (id == null && !args[i].startsWith("--")) {
                        id = args[i];
                    } else {
                        throw new UsageException("receipts prove takes <event-id> [--peer <did>] [--side sent|received]");
                    }
                }
                if (id == null || !Hex.isLowerHex(id, 64)) {
                    throw new UsageException("receipts prove needs an event id (64 lower-case hex)");
                }
                EventId eventId = EventId.ofHex(id);
                Optional<String> p = peer;
                Optional<Side> s = side;
                return withLedger(ledger -> prove(ledger, eventId, p, s, System.out, System.err));
            }
            default -> throw new UsageException("receipts takes export --peer <did> [--side received|sent]"
                    + " | verify <file> | prove <event-id> [--peer <did>] [--side sent|received]");
        }
    }

    private interface LedgerCommand {
        int run(CustodyLedger ledger);
    }

    private static int withLedger(LedgerCommand command) {
        try (EventStore store = LocalNode.openStore()) {
            return command.run(LocalNode.custodyLedger(store));
        }
    }

    static Side side(String s) {
        return switch (s) {
            case "received" -> Side.RECEIVED;
            case "sent" -> Side.SENT;
            default -> throw new UsageException("--side is received or sent, not '" + s + "'");
        };
    }

    static String word(Side s) {
        return s == Side.RECEIVED ? "received" : "sent";
    }

    /** One chain as JSONL, in chain order; exit 1 when the node has no such chain. */
    static int export(CustodyLedger ledger, String peer, Side side, PrintStream out, PrintStream err) {
        String p = PeerIdentity.shortForm(peer);
        long written = 0;
        List<CustodyLedger.Receipt> page;
        do {
            page = ledger.receipts(side, p, written, PAGE);
            for (CustodyLedger.Receipt r : page) {
                out.println(ChainFile.line(r.json(), r.consistency()));
                written++;
            }
        } while (page.size() == PAGE);
        out.flush();
        if (written == 0) {
            err.println("meshnode: no " + word(side) + " receipts for " + p + " (peers with a " + word(side)
                    + " chain: " + ledger.peers(side) + ")");
            return 1;
        }
        err.println("exported " + written + " receipts");
        return 0;
    }

    /** Checks an export; exit 1 naming the first bad line. */
    static int verify(Path file, PrintStream out, PrintStream err) {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            ChainFile.Result r = ChainFile.verify(in);
            if (r.ok()) {
                out.println("ok: " + r.why());
                return 0;
            }
            err.println("meshnode: " + file + " line " + r.badLine() + ": " + r.why());
            return 1;
        } catch (NoSuchFileException e) {
            err.println("meshnode: no such file: " + file);
            return 1;
        } catch (IOException | UncheckedIOException e) {
            err.println("meshnode: cannot read " + file + ": " + e.getMessage());
            return 1;
        }
    }

    /**
     * The custody proof of {@code id} from the head receipt of each chain whose tree holds it, one JSON line each,
     * the sent side (the peers' receipts for what this node sent) first; exit 1 with the reason when there is none.
     */
    static int prove(CustodyLedger ledger, EventId id, Optional<String> peer, Optional<Side> side, PrintStream out,
            PrintStream err) {
        List<Side> sides = side.map(List::of).orElse(List.of(Side.SENT, Side.RECEIVED));
        int proofs = 0;
        int broken = 0;
        for (Side s : sides) {
            List<String> peers = peer.map(p -> List.of(PeerIdentity.shortForm(p))).orElseGet(() -> ledger.peers(s));
            for (String p : peers) {
                Long index = ledger.indexOf(s, p, List.of(id)).get(id);
                if (index == null) {
                    continue;
                }
                String chain = "the " + word(s) + " chain of " + p;
                CustodyLedger.Receipt head = ledger.head(s, p).orElseThrow(
                        () -> new IllegalStateException(chain + " has a leaf but no receipt"));
                try {
                    CustodyProof proof = proof(ledger, s, p, id, index, head);
                    String why = proof.verify();
                    if (why != null) {
                        // never hand out a proof that does not hold: the ledger itself is damaged
                        err.println("meshnode: " + chain + ": the proof from its head receipt does not verify: " + why);
                        broken++;
                        continue;
                    }
                    out.println(proof.json());
                    proofs++;
                } catch (IllegalArgumentException | ReceiptException e) {
                    err.println("meshnode: " + chain + ": its head receipt cannot be read: " + e.getMessage());
                    broken++;
                }
            }
        }
        out.flush();
        if (proofs == 0 && broken == 0) {
            err.println("meshnode: " + id.hex() + " is a leaf of no " + sides.stream().map(ReceiptsCommand::word)
                    .toList() + " custody tree" + peer.map(p -> " of " + PeerIdentity.shortForm(p)).orElse(""));
        }
        return proofs > 0 && broken == 0 ? 0 : 1;
    }

    private static CustodyProof proof(CustodyLedger ledger, Side side, String peer, EventId id, long index,
            CustodyLedger.Receipt head) throws ReceiptException {
        Receipt receipt = Receipt.fromJson(head.json());
        List<byte[]> leafHashes = new ArrayList<>((int) Math.min(head.treeSize(), Integer.MAX_VALUE));
        for (long from = 0; from < head.treeSize(); from += LEAF_PAGE) {
            for (CustodyLedger.Leaf leaf : ledger.leaves(side, peer, from, Math.min(head.treeSize(), from + LEAF_PAGE))) {
                leafHashes.add(Merkle.leafHash(leaf.eventId()));
            }
        }
        if (leafHashes.size() != head.treeSize()) {
            throw new IllegalStateException("the " + word(side) + " tree of " + peer + " holds " + leafHashes.size()
                    + " leaves, its head receipt names " + head.treeSize());
        }
        return CustodyProof.prove(id, index, receipt, Merkle.ofLeaves(leafHashes));
    }
}
