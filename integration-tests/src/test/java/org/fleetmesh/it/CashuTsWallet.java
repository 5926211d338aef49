package org.fleetmesh.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * An independent Cashu wallet for tests: src/test/js/cashu-ts-wallet.mjs over @cashu/cashu-ts
 * (pinned in {@link CashuMintSim}), one Node process per command, proofs kept in a JSON store file.
 * A command the mint (or cashu-ts) refuses throws {@link Failed} with the mint's error code.
 */
final class CashuTsWallet {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TIMEOUT_SECONDS = 60;

    /** A refused command: {@code code} is the mint's NUT error code, or -1 when there was none. */
    static final class Failed extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int code;
        final String detail;

        Failed(int code, String detail) {
            super("cashu-ts wallet failed (code " + code + "): " + detail);
            this.code = code;
            this.detail = detail;
        }
    }

    private final Path dir;
    private final Path store;
    private final String unit;

    CashuTsWallet(Path store) throws Exception {
        this(store, "sat");
    }

    CashuTsWallet(Path store, String unit) throws Exception {
        this.dir = CashuMintSim.install();
        this.store = store.toAbsolutePath();
        this.unit = unit;
    }

    /** Mints {@code amount} over a bolt11 quote: {"amount","quote","balance"}. */
    JsonNode mint(String mintUrl, long amount) throws Exception {
        return run("mint", mintUrl, Long.toString(amount));
    }

    /** Takes {@code amount} out as a token: {"token","amount","balance"}. */
    JsonNode send(String mintUrl, long amount) throws Exception {
        return run("send", mintUrl, Long.toString(amount));
    }

    /** As {@link #send(String, long)}, adding the receiver's input fees to the token when asked. */
    JsonNode send(String mintUrl, long amount, boolean includeFees) throws Exception {
        return includeFees ? run("send", mintUrl, Long.toString(amount), "--include-fees") : send(mintUrl, amount);
    }

    /** Swaps a token's proofs into this wallet: {"amount","balance"}. */
    JsonNode receive(String mintUrl, String token) throws Exception {
        return run("receive", mintUrl, token);
    }

    JsonNode balance() throws Exception {
        return run("balance");
    }

    /** Sends {@code amount} as a NUT-14 HTLC token (cashu-ts's hashlock option): {"token","amount","secrets","balance"}. */
    JsonNode lockHtlc(String mintUrl, long amount, String hashHex, String receiverPubkey, long locktime,
            String refundPubkey) throws Exception {
        return run("lock-htlc", mintUrl, Long.toString(amount), hashHex, receiverPubkey, Long.toString(locktime), refundPubkey);
    }

    /** Receives an HTLC token with the preimage and the receiver's signature: {"amount","balance"}. */
    JsonNode claimHtlc(String mintUrl, String token, String preimageHex, String privkeyHex) throws Exception {
        return run("claim-htlc", mintUrl, token, preimageHex, privkeyHex);
    }

    /** NUT-07 states of a token's proofs: {"states":[{"Y","state","witness"}]}. */
    JsonNode check(String mintUrl, String token) throws Exception {
        return run("check", mintUrl, token);
    }

    /** Pays a BOLT-11 invoice through the mint (NUT-05, NUT-08 change): {"state","preimage","paid","change","balance"}. */
    JsonNode melt(String mintUrl, String bolt11) throws Exception {
        return run("melt", mintUrl, bolt11);
    }

    private JsonNode run(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("node", CashuMintSim.WALLET_SCRIPT, "--store", store.toString(), "--unit", unit));
        cmd.addAll(List.of(args));
        NodeJs.Run r = NodeJs.run(dir, TIMEOUT_SECONDS, cmd.toArray(String[]::new));
        String out = r.stdout().strip();
        String last = out.isEmpty() ? "" : out.substring(out.lastIndexOf('\n') + 1);
        JsonNode json;
        try {
            json = JSON.readTree(last);
        } catch (Exception notJson) {
            json = null;
        }
        if (json == null || !json.isObject()) {
            throw new AssertionError("cashu-ts wallet " + args[0] + " printed no JSON (exit " + r.exit() + "):\n"
                    + r.stdout() + r.stderr());
        }
        if (json.has("error")) {
            throw new Failed(json.path("code").isInt() ? json.path("code").asInt() : -1, json.path("error").asText());
        }
        if (r.exit() != 0) {
            throw new AssertionError("cashu-ts wallet " + args[0] + " exited " + r.exit() + ":\n" + r.stdout() + r.stderr());
        }
        return json;
    }
}
