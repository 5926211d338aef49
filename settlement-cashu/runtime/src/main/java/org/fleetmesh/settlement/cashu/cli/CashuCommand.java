package org.fleetmesh.settlement.cashu.cli;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

import org.fleetmesh.settlement.cashu.mint.HttpMintClient;
import org.fleetmesh.settlement.cashu.mint.MintApi;
import org.fleetmesh.settlement.cashu.mint.MintException;
import org.fleetmesh.settlement.cashu.mint.MintInfo;
import org.fleetmesh.settlement.cashu.mint.MintQuote;
import org.fleetmesh.settlement.cashu.nut.Keyset;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.token.Token;
import org.fleetmesh.settlement.cashu.token.TokenException;
import org.fleetmesh.settlement.cashu.token.Tokens;
import org.fleetmesh.settlement.cashu.wallet.Melting;
import org.fleetmesh.settlement.cashu.wallet.Mints;
import org.fleetmesh.settlement.cashu.wallet.Seed;
import org.fleetmesh.settlement.cashu.wallet.Wallet;
import org.fleetmesh.settlement.cashu.wallet.WalletException;
import org.fleetmesh.spi.settlement.cashu.CashuStore;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code ./meshnode cashu ...}: the node's Cashu wallet from the command line, on the same database and seed as the
 * relay's rail (docs/OPERATING.md, "Cashu"). Every wallet command first resolves what a crash left pending (NUT-07,
 * NUT-09). Output is JSON on stdout (a token or a bolt11 as a bare line where that is the point); errors are one line
 * on stderr with exit 1; usage errors exit 2.
 */
public final class CashuCommand {
    static final String USAGE = """
            cashu takes: info <mint-url> | balance | mint <amount> [--timeout 10m] | send <amount> [--memo M] [--v3]
                         | receive <token> | melt <bolt11> | token decode <token> | restore | pending | key
                         | lock <amount> --hash H --to PUBKEY --locktime T [--refund PUBKEY] (a NUT-14 HTLC token)
                         | claim <token> --preimage K (an HTLC token locked to this node's key) | refund
                   wallet commands use fleetmesh.cashu.mint-url (or --mint URL) and fleetmesh.cashu.unit (or --unit)""";

    private final Function<String, Optional<String>> setting;
    private final Supplier<CashuStore> store;
    private final PrintStream out;
    private final PrintStream err;

    /**
     * @param setting the node's configuration, as the relay reads it
     * @param store   opens the node's wallet store (the database), only when a command needs it
     */
    public CashuCommand(Function<String, Optional<String>> setting, Supplier<CashuStore> store, PrintStream out,
            PrintStream err) {
        this.setting = setting;
        this.store = store;
        this.out = out;
        this.err = err;
    }

    /** {@code args[0]} is "cashu". */
    public int run(String[] args) {
        if (args.length < 2) {
            return usage("");
        }
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        try {
            return switch (o.command()) {
                case "info" -> info(o);
                case "token" -> token(o);
                case "balance", "mint", "send", "receive", "melt", "restore", "pending", "key", "lock", "claim",
                        "refund" -> walletCommand(o);
                default -> usage("unknown cashu command " + o.command());
            };
        } catch (WalletException | MintException e) {
            err.println("meshnode: cashu: " + e.getMessage());
            return 1;
        } catch (IllegalArgumentException | IllegalStateException | java.io.UncheckedIOException e) {
            err.println("meshnode: cashu: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("meshnode: cashu: interrupted");
            return 1;
        }
    }

    private int usage(String why) {
        if (!why.isEmpty()) {
            err.println("meshnode: " + why);
        }
        err.println(USAGE);
        return 2;
    }

    /** The parsed command line: the command, its positional arguments, and the flags. */
    record Options(String command, List<String> positional, Map<String, String> flags) {
        static Options parse(String[] args) {
            List<String> pos = new java.util.ArrayList<>();
            Map<String, String> flags = new java.util.HashMap<>();
            for (int i = 2; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--v3")) {
                    flags.put(a, "true");
                } else if (a.startsWith("--")) {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("cashu " + args[1] + ": " + a + " needs a value");
                    }
                    flags.put(a, args[++i]);
                } else {
                    pos.add(a);
                }
            }
            return new Options(args[1], pos, flags);
        }

        String arg(int i, String what) {
            if (positional.size() <= i) {
                throw new IllegalArgumentException("cashu " + command + " needs " + what);
            }
            return positional.get(i);
        }
    }

    private MintApi client(String mintUrl) {
        Duration timeout = setting.apply("fleetmesh.cashu.call-timeout").map(CashuCommand::duration)
                .orElse(Duration.ofSeconds(10));
        return new HttpMintClient(URI.create(Mints.normalize(mintUrl)), timeout, Duration.ofMinutes(2),
                () -> HttpClient.newBuilder().connectTimeout(timeout).build());
    }

    static Duration duration(String s) {
        String t = s.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.startsWith("p")) {
            return Duration.parse(t.toUpperCase(java.util.Locale.ROOT));
        }
        long n = Long.parseLong(t.replaceAll("[a-z]+$", ""));
        return switch (t.replaceAll("^[0-9]+", "")) {
            case "ms" -> Duration.ofMillis(n);
            case "s", "" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            case "d" -> Duration.ofDays(n);
            default -> throw new IllegalArgumentException("not a duration: " + s);
        };
    }

    /** {@code info <mint-url>}: NUT-06 info and the keysets (NUT-02), as JSON. */
    private int info(Options o) {
        String url = Mints.normalize(o.arg(0, "<mint-url>"));
        MintApi mint = client(url);
        MintInfo info = mint.info();
        ObjectNode n = Nut.json().createObjectNode();
        n.put("mint", url);
        n.set("info", Nut.json().valueToTree(info));
        ArrayNode ks = n.putArray("keysets");
        for (Keyset k : mint.keysets()) {
            ObjectNode kn = ks.addObject();
            kn.put("id", k.id());
            kn.put("unit", k.unit());
            kn.put("active", k.active());
            kn.put("input_fee_ppk", k.inputFeePpk());
        }
        out.println(n.toPrettyString());
        return 0;
    }

    /** {@code token decode <token>}: the token as JSON, V3 and V4 alike; exit 1 with the reason if it is bad. */
    private int token(Options o) {
        if (!"decode".equals(o.arg(0, "decode <token>"))) {
            return usage("cashu token takes: decode <token>");
        }
        Token t = decode(o.arg(1, "<token>"));
        ObjectNode n = Nut.json().createObjectNode();
        n.put("mint", t.mint());
        n.put("unit", t.unit());
        n.put("amount", t.amount());
        if (t.memo() == null) {
            n.putNull("memo");
        } else {
            n.put("memo", t.memo());
        }
        ArrayNode ps = n.putArray("proofs");
        for (Proof p : t.proofs()) {
            ObjectNode pn = ps.addObject();
            pn.put("id", p.id());
            pn.put("amount", p.amount());
            pn.put("secret", p.secret());
            pn.put("C", p.c());
        }
        out.println(n.toPrettyString());
        return 0;
    }

    private int walletCommand(Options o) throws InterruptedException {
        String mintUrl = Optional.ofNullable(o.flags().get("--mint")).or(() -> setting.apply("fleetmesh.cashu.mint-url"))
                .orElseThrow(() -> new IllegalArgumentException(
                        "no mint: set fleetmesh.cashu.mint-url (FLEETMESH_CASHU_MINT_URL) or pass --mint <url>"));
        String unit = Optional.ofNullable(o.flags().get("--unit")).or(() -> setting.apply("fleetmesh.cashu.unit"))
                .orElse("sat");
        Path dataDir = Path.of(setting.apply("fleetmesh.data-dir").orElse("./data"));
        byte[] seed = Seed.load(setting.apply("fleetmesh.cashu.mnemonic"), setting.apply("fleetmesh.cashu.seed"),
                setting.apply("fleetmesh.cashu.seed-file").map(Path::of), dataDir);
        boolean requireDleq = !setting.apply("fleetmesh.cashu.require-dleq").map("false"::equalsIgnoreCase)
                .orElse(false);
        String mint = Mints.normalize(mintUrl);
        Wallet w = new Wallet(mint, unit, client(mint), store.get(), seed, Clock.systemUTC(),
                new Wallet.Options(requireDleq, 100, 3));
        Wallet.Recovery r = w.recover();
        for (String line : r.lines()) {
            err.println("recovered: " + line);
        }
        ObjectNode n = Nut.json().createObjectNode();
        n.put("mint", mint);
        n.put("unit", unit);
        switch (o.command()) {
            case "balance" -> {
                try {
                    w.swaps().settleSent(); // tokens handed out and since redeemed are no longer "sent"
                } catch (RuntimeException e) {
                    err.println("meshnode: the mint was not asked which sent tokens were redeemed: " + e.getMessage());
                }
                Map<CashuStore.ProofState, Long> b = w.balances();
                n.put("balance", b.get(CashuStore.ProofState.UNSPENT));
                n.put("pending", b.get(CashuStore.ProofState.PENDING));
                n.put("sent", b.get(CashuStore.ProofState.SENT));
                n.put("held", b.get(CashuStore.ProofState.HELD));
            }
            case "mint" -> {
                long amount = amount(o.arg(0, "<amount>"));
                Duration timeout = Optional.ofNullable(o.flags().get("--timeout")).map(CashuCommand::duration)
                        .orElse(Duration.ofMinutes(10));
                MintQuote q = w.minting().quote(amount);
                out.println(q.request());
                out.flush();
                err.println("pay this invoice to mint " + amount + " " + unit + " (quote " + q.quote() + "); waiting up to "
                        + timeout.toMinutes() + " min");
                List<Proof> proofs = w.minting().await(q.quote(), timeout, Duration.ofSeconds(1));
                n.put("minted", proofs.stream().mapToLong(Proof::amount).sum());
                n.put("quote", q.quote());
                n.put("balance", w.balance());
            }
            case "send" -> {
                long amount = amount(o.arg(0, "<amount>"));
                Token t = w.swaps().send(amount, o.flags().get("--memo"));
                out.println(o.flags().containsKey("--v3") ? Tokens.encodeV3(t) : Tokens.encodeV4(t));
                err.println("sent " + amount + " " + unit + "; balance " + w.balance());
                return 0;
            }
            case "receive" -> {
                Token t = decode(o.arg(0, "<token>"));
                n.put("received", w.swaps().receive(t));
                n.put("balance", w.balance());
            }
            case "melt" -> {
                Melting.Result res = w.melting().pay(o.arg(0, "<bolt11>"));
                n.put("state", res.state());
                n.put("amount", res.amount());
                n.put("spent", res.spent());
                n.put("change", res.change());
                if (res.preimage() != null) {
                    n.put("preimage", res.preimage());
                }
                n.put("balance", w.balance());
                out.println(n.toPrettyString());
                return res.paid() ? 0 : 1;
            }
            case "restore" -> {
                var res = w.restore();
                n.put("signed", res.signed());
                n.put("restored", res.unspent());
                n.put("amount", res.amount());
                n.put("balance", w.balance());
            }
            case "key" -> n.put("key", Seed.lockPublicKey(seed));
            case "lock" -> {
                long amount = amount(o.arg(0, "<amount>"));
                String hash = flag(o, "--hash");
                String to = flag(o, "--to");
                long locktime = Long.parseLong(flag(o, "--locktime"));
                String refund = o.flags().getOrDefault("--refund", Seed.lockPublicKey(seed));
                Token t = w.swaps().lockHtlc(amount, hash, to, locktime, refund, o.flags().get("--memo"));
                out.println(o.flags().containsKey("--v3") ? Tokens.encodeV3(t) : Tokens.encodeV4(t));
                return 0;
            }
            case "claim" -> {
                Token t = decode(o.arg(0, "<token>"));
                n.put("claimed", w.swaps().claimHtlc(t, flag(o, "--preimage"), Seed.lockKey(seed)));
                n.put("balance", w.balance());
            }
            case "refund" -> {
                n.put("refunded", w.swaps().refundExpired(Seed.lockKey(seed), Seed.lockPublicKey(seed)));
                n.put("balance", w.balance());
            }
            case "pending" -> {
                ArrayNode lines = n.putArray("recovery");
                r.lines().forEach(lines::add);
                n.put("complete", r.complete());
                ArrayNode quotes = n.putArray("open_mint_quotes");
                w.minting().open().forEach(quotes::add);
            }
            default -> throw new IllegalStateException(o.command());
        }
        out.println(n.toPrettyString());
        return 0;
    }

    /** A token, or the decoder's reason as an IllegalArgumentException (printed, exit 1). */
    private static Token decode(String token) {
        try {
            return Tokens.decode(token);
        } catch (TokenException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static String flag(Options o, String name) {
        String v = o.flags().get(name);
        if (v == null) {
            throw new IllegalArgumentException("cashu " + o.command() + " needs " + name);
        }
        return v;
    }

    private static long amount(String s) {
        try {
            long a = Long.parseLong(s);
            if (a <= 0) {
                throw new NumberFormatException();
            }
            return a;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the amount must be a positive whole number of the mint's unit: " + s);
        }
    }
}
