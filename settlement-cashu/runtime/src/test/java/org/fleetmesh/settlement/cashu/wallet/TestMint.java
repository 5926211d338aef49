package org.fleetmesh.settlement.cashu.wallet;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import org.bouncycastle.math.ec.ECPoint;
import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.cashu.conditions.SpendingConditions;
import org.fleetmesh.settlement.cashu.conditions.Verdict;
import org.fleetmesh.settlement.cashu.crypto.Bdhke;
import org.fleetmesh.settlement.cashu.crypto.Dleq;
import org.fleetmesh.settlement.cashu.crypto.KeysetIds;
import org.fleetmesh.settlement.cashu.crypto.Secp256k1;
import org.fleetmesh.settlement.cashu.mint.ErrorCodes;
import org.fleetmesh.settlement.cashu.mint.MeltQuote;
import org.fleetmesh.settlement.cashu.mint.MintApi;
import org.fleetmesh.settlement.cashu.mint.MintException;
import org.fleetmesh.settlement.cashu.mint.MintInfo;
import org.fleetmesh.settlement.cashu.mint.MintQuote;
import org.fleetmesh.settlement.cashu.mint.ProofState;
import org.fleetmesh.settlement.cashu.mint.Restored;
import org.fleetmesh.settlement.cashu.nut.BlindSignature;
import org.fleetmesh.settlement.cashu.nut.BlindSignatureDleq;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;
import org.fleetmesh.settlement.cashu.nut.Keyset;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;

/**
 * TEST DOUBLE: an in-memory Cashu mint for unit tests, built on our {@code crypto} package. It is not a mint: no
 * Lightning (invoices are strings it makes up, "paid" when a test says so), no persistence, no limits beyond the
 * checks a wallet must meet (NUT-03 signatures, spent/pending, balance with NUT-02 fees, outputs signed once,
 * NUT-10/11/14 conditions; NUT-04/05/07/08/09/12). Faults are injected per call with {@link #failNext}.
 */
public final class TestMint implements MintApi {

    /** The calls faults can be injected into. */
    public enum Call { KEYS, KEYSETS, SWAP, MINT_QUOTE, MINT_QUOTE_STATE, MINT, MELT_QUOTE, MELT_QUOTE_STATE, MELT,
        CHECK_STATE, RESTORE }

    /** What an injected fault does to the next call of its kind. */
    public enum Fault {
        /** The mint answers with an error: definite, no effect. */
        DEFINITE_ERROR,
        /** The request never arrives: not definite, no effect. */
        LOST_BEFORE,
        /** The mint does the work, the answer is lost: not definite. */
        LOST_AFTER,
        /** A melt stays PENDING (inputs pending) until {@link #finishPendingMelt}. */
        PENDING_MELT
    }

    /** One keyset of the double, with its private keys. */
    private record Ks(String id, long feePpk, boolean active, Map<Long, BigInteger> priv,
            SortedMap<Long, ECPoint> pub) {
    }

    private record Signed(BlindedMessage output, BlindSignature signature) {
    }

    private static final class MQ {
        String id;
        long amount;
        MintQuote.State state = MintQuote.State.UNPAID;
    }

    private static final class LQ {
        String id;
        String bolt11;
        long amount;
        long feeReserve;
        MeltQuote.State state = MeltQuote.State.UNPAID;
        String preimage;
        List<BlindSignature> change = List.of();
        List<Proof> pendingInputs = List.of();
        List<BlindedMessage> pendingBlanks = List.of();
    }

    private static final int MAX_ORDER = 24;

    private final String unit = "sat";
    private final Clock clock;
    private final Map<String, Ks> keysets = new LinkedHashMap<>();
    /** By Y: the witness a spent proof carried ("" when none). */
    private final Map<String, String> spent = new HashMap<>();
    private final Set<String> pending = new HashSet<>();
    /** By B_. */
    private final Map<String, Signed> signed = new HashMap<>();
    private final Map<String, MQ> mintQuotes = new HashMap<>();
    private final Map<String, LQ> meltQuotes = new HashMap<>();
    private final Map<Call, ArrayDeque<Fault>> faults = new EnumMap<>(Call.class);
    private final Map<Call, Integer> calls = new EnumMap<>(Call.class);
    private boolean forgeDleq;
    private boolean omitDleq;
    private long meltFeeReserve = 4;
    private long lightningFee = 1;

    /** A mint with one active sat keyset without fees. */
    public TestMint(Clock clock) {
        this(clock, 0);
    }

    /** A mint with one active sat keyset charging {@code inputFeePpk} per input. */
    public TestMint(Clock clock, long inputFeePpk) {
        this.clock = clock;
        addKeyset("main", inputFeePpk, true);
    }

    /** Adds a keyset (deterministic keys from {@code name}); returns its v2 id. */
    public synchronized String addKeyset(String name, long inputFeePpk, boolean active) {
        Map<Long, BigInteger> priv = new HashMap<>();
        SortedMap<Long, ECPoint> pub = new TreeMap<>();
        for (int i = 0; i <= MAX_ORDER; i++) {
            long amount = 1L << i;
            BigInteger k = new BigInteger(1, sha256(("testmint/" + name + "/" + amount).getBytes(StandardCharsets.UTF_8)))
                    .mod(Secp256k1.N);
            priv.put(amount, k);
            pub.put(amount, Secp256k1.mulG(k));
        }
        String id = KeysetIds.v2(pub, unit, inputFeePpk, OptionalLong.empty());
        keysets.put(id, new Ks(id, inputFeePpk, active, priv, pub));
        return id;
    }

    /** Marks a keyset inactive (rotated out): it still verifies inputs, it signs nothing new. */
    public synchronized void deactivate(String id) {
        Ks k = keysets.get(id);
        keysets.put(id, new Ks(k.id(), k.feePpk(), false, k.priv(), k.pub()));
    }

    public synchronized String activeKeysetId() {
        return keysets.values().stream().filter(Ks::active).findFirst().orElseThrow().id();
    }

    // ---- test controls ----

    /** The next call of {@code call} meets {@code fault} (queued: several faults apply to successive calls). */
    public synchronized void failNext(Call call, Fault fault) {
        faults.computeIfAbsent(call, c -> new ArrayDeque<>()).add(fault);
    }

    /** Blind signatures carry DLEQ proofs that do not verify. */
    public synchronized void forgeDleq(boolean on) {
        forgeDleq = on;
    }

    /** Blind signatures carry no DLEQ proof. */
    public synchronized void omitDleq(boolean on) {
        omitDleq = on;
    }

    /** The fee reserve of the next melt quotes, and what Lightning actually charges. */
    public synchronized void meltFees(long feeReserve, long actualFee) {
        this.meltFeeReserve = feeReserve;
        this.lightningFee = actualFee;
    }

    /** "Pays" the invoice of a mint quote. */
    public synchronized void pay(String quote) {
        MQ q = mintQuotes.get(quote);
        if (q.state == MintQuote.State.UNPAID) {
            q.state = MintQuote.State.PAID;
        }
    }

    /** A made-up bolt11 for {@code amount} that {@link #meltQuote} understands. */
    public static String invoice(long amount) {
        return "lntest" + amount + "x" + Hex.encode(Secp256k1.bytes32(Secp256k1.randomScalar())).substring(0, 16);
    }

    /** Ends a melt left PENDING by {@link Fault#PENDING_MELT}: paid (with change) or failed (inputs free again). */
    public synchronized void finishPendingMelt(String quote, boolean paid) {
        LQ q = meltQuotes.get(quote);
        if (q.state != MeltQuote.State.PENDING) {
            throw new IllegalStateException("quote is " + q.state);
        }
        for (Proof p : q.pendingInputs) {
            pending.remove(p.y());
        }
        if (paid) {
            payMelt(q, q.pendingInputs, q.pendingBlanks);
        } else {
            q.state = MeltQuote.State.UNPAID;
        }
    }

    public synchronized int calls(Call call) {
        return calls.getOrDefault(call, 0);
    }

    /** Whether the mint has seen this proof spent. */
    public synchronized boolean isSpent(Proof p) {
        return spent.containsKey(p.y());
    }

    // ---- MintApi ----

    @Override
    public MintInfo info() {
        try {
            return Nut.json().readValue("{\"name\":\"TestMint\",\"version\":\"test/0\",\"nuts\":{"
                    + "\"7\":{\"supported\":true},\"8\":{\"supported\":true},\"9\":{\"supported\":true},"
                    + "\"10\":{\"supported\":true},\"11\":{\"supported\":true},\"12\":{\"supported\":true},"
                    + "\"14\":{\"supported\":true}}}", MintInfo.class);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized List<Keyset> keys() {
        Fault f = fault(Call.KEYS);
        before(f, Call.KEYS);
        List<Keyset> out = new ArrayList<>();
        for (Ks k : keysets.values()) {
            if (k.active()) {
                out.add(keyset(k, true));
            }
        }
        return after(f, Call.KEYS, out);
    }

    @Override
    public synchronized Keyset keys(String keysetId) {
        Fault f = fault(Call.KEYS);
        before(f, Call.KEYS);
        Ks k = keysets.get(keysetId);
        if (k == null) {
            throw refuse(ErrorCodes.KEYSET_UNKNOWN, "unknown keyset");
        }
        return after(f, Call.KEYS, keyset(k, true));
    }

    @Override
    public synchronized List<Keyset> keysets() {
        Fault f = fault(Call.KEYSETS);
        before(f, Call.KEYSETS);
        List<Keyset> out = new ArrayList<>();
        for (Ks k : keysets.values()) {
            out.add(keyset(k, false));
        }
        return after(f, Call.KEYSETS, out);
    }

    @Override
    public synchronized List<BlindSignature> swap(List<Proof> inputs, List<BlindedMessage> outputs) {
        Fault f = fault(Call.SWAP);
        before(f, Call.SWAP);
        long in = checkInputs(inputs);
        checkOutputs(outputs);
        long fee = fee(inputs);
        long out = 0;
        for (BlindedMessage o : outputs) {
            out += o.amount();
        }
        if (in - fee != out) {
            throw refuse(ErrorCodes.TRANSACTION_NOT_BALANCED, "inputs " + in + " - fee " + fee + " != outputs " + out);
        }
        Verdict v = SpendingConditions.verify(inputs, outputs, null, clock.instant().getEpochSecond());
        if (!v.ok()) {
            throw refuse(ErrorCodes.PROOF_VERIFICATION_FAILED, v.reason());
        }
        spend(inputs);
        List<BlindSignature> sigs = new ArrayList<>();
        for (BlindedMessage o : outputs) {
            sigs.add(sign(o, o.amount()));
        }
        return after(f, Call.SWAP, sigs);
    }

    @Override
    public synchronized MintQuote mintQuote(long amount, String unit) {
        Fault f = fault(Call.MINT_QUOTE);
        before(f, Call.MINT_QUOTE);
        if (!this.unit.equals(unit)) {
            throw refuse(ErrorCodes.UNIT_NOT_SUPPORTED, "unit " + unit);
        }
        MQ q = new MQ();
        q.id = "mq" + Hex.encode(Secp256k1.bytes32(Secp256k1.randomScalar())).substring(0, 20);
        q.amount = amount;
        mintQuotes.put(q.id, q);
        return after(f, Call.MINT_QUOTE, view(q));
    }

    @Override
    public synchronized MintQuote mintQuoteState(String quote) {
        Fault f = fault(Call.MINT_QUOTE_STATE);
        before(f, Call.MINT_QUOTE_STATE);
        MQ q = mintQuotes.get(quote);
        if (q == null) {
            throw refuse(ErrorCodes.PROOF_VERIFICATION_FAILED, "unknown quote");
        }
        return after(f, Call.MINT_QUOTE_STATE, view(q));
    }

    @Override
    public synchronized List<BlindSignature> mint(String quote, List<BlindedMessage> outputs) {
        Fault f = fault(Call.MINT);
        before(f, Call.MINT);
        MQ q = mintQuotes.get(quote);
        if (q == null) {
            throw refuse(ErrorCodes.PROOF_VERIFICATION_FAILED, "unknown quote");
        }
        if (q.state == MintQuote.State.UNPAID) {
            throw refuse(ErrorCodes.QUOTE_NOT_PAID, "quote not paid");
        }
        if (q.state == MintQuote.State.ISSUED) {
            throw refuse(ErrorCodes.QUOTE_ALREADY_ISSUED, "quote already issued");
        }
        checkOutputs(outputs);
        long out = outputs.stream().mapToLong(BlindedMessage::amount).sum();
        if (out != q.amount) {
            throw refuse(ErrorCodes.TRANSACTION_NOT_BALANCED, "outputs " + out + " != quote " + q.amount);
        }
        q.state = MintQuote.State.ISSUED;
        List<BlindSignature> sigs = new ArrayList<>();
        for (BlindedMessage o : outputs) {
            sigs.add(sign(o, o.amount()));
        }
        return after(f, Call.MINT, sigs);
    }

    @Override
    public synchronized MeltQuote meltQuote(String bolt11, String unit) {
        Fault f = fault(Call.MELT_QUOTE);
        before(f, Call.MELT_QUOTE);
        if (!bolt11.startsWith("lntest") || !this.unit.equals(unit)) {
            throw refuse(ErrorCodes.UNIT_NOT_SUPPORTED, "not a test invoice in sat");
        }
        LQ q = new LQ();
        q.id = "lq" + Hex.encode(Secp256k1.bytes32(Secp256k1.randomScalar())).substring(0, 20);
        q.bolt11 = bolt11;
        q.amount = Long.parseLong(bolt11.substring(6, bolt11.indexOf('x')));
        q.feeReserve = meltFeeReserve;
        meltQuotes.put(q.id, q);
        return after(f, Call.MELT_QUOTE, view(q));
    }

    @Override
    public synchronized MeltQuote meltQuoteState(String quote) {
        Fault f = fault(Call.MELT_QUOTE_STATE);
        before(f, Call.MELT_QUOTE_STATE);
        LQ q = meltQuotes.get(quote);
        if (q == null) {
            throw refuse(ErrorCodes.PROOF_VERIFICATION_FAILED, "unknown quote");
        }
        return after(f, Call.MELT_QUOTE_STATE, view(q));
    }

    @Override
    public synchronized MeltQuote melt(String quote, List<Proof> inputs, List<BlindedMessage> blankOutputs) {
        Fault f = fault(Call.MELT);
        before(f, Call.MELT);
        LQ q = meltQuotes.get(quote);
        if (q == null) {
            throw refuse(ErrorCodes.PROOF_VERIFICATION_FAILED, "unknown quote");
        }
        if (q.state == MeltQuote.State.PAID) {
            throw refuse(ErrorCodes.INVOICE_ALREADY_PAID, "already paid");
        }
        if (q.state == MeltQuote.State.PENDING) {
            throw refuse(ErrorCodes.QUOTE_PENDING, "quote pending");
        }
        long in = checkInputs(inputs);
        checkOutputs(blankOutputs);
        if (in - fee(inputs) < q.amount + q.feeReserve) {
            throw refuse(ErrorCodes.TRANSACTION_NOT_BALANCED, "inputs do not cover amount + fee_reserve + input fee");
        }
        Verdict v = SpendingConditions.verify(inputs, blankOutputs, quote, clock.instant().getEpochSecond());
        if (!v.ok()) {
            throw refuse(ErrorCodes.PROOF_VERIFICATION_FAILED, v.reason());
        }
        if (f == Fault.PENDING_MELT) {
            for (Proof p : inputs) {
                pending.add(p.y());
            }
            q.state = MeltQuote.State.PENDING;
            q.pendingInputs = List.copyOf(inputs);
            q.pendingBlanks = List.copyOf(blankOutputs);
            return view(q);
        }
        payMelt(q, inputs, blankOutputs);
        return after(f, Call.MELT, view(q));
    }

    @Override
    public synchronized List<ProofState> checkState(List<String> ys) {
        Fault f = fault(Call.CHECK_STATE);
        before(f, Call.CHECK_STATE);
        List<ProofState> out = new ArrayList<>();
        for (String y : ys) {
            if (spent.containsKey(y)) {
                String w = spent.get(y);
                out.add(new ProofState(y, ProofState.State.SPENT, w.isEmpty() ? null : w));
            } else if (pending.contains(y)) {
                out.add(new ProofState(y, ProofState.State.PENDING, null));
            } else {
                out.add(new ProofState(y, ProofState.State.UNSPENT, null));
            }
        }
        return after(f, Call.CHECK_STATE, out);
    }

    @Override
    public synchronized Restored restore(List<BlindedMessage> outputs) {
        Fault f = fault(Call.RESTORE);
        before(f, Call.RESTORE);
        List<BlindedMessage> os = new ArrayList<>();
        List<BlindSignature> ss = new ArrayList<>();
        for (BlindedMessage o : outputs) {
            Signed s = signed.get(o.b_());
            if (s != null) {
                os.add(s.output());
                ss.add(s.signature());
            }
        }
        return after(f, Call.RESTORE, new Restored(os, ss));
    }

    // ---- the mint's rules ----

    private long checkInputs(List<Proof> inputs) {
        if (inputs.isEmpty()) {
            throw refuse(ErrorCodes.PROOF_VERIFICATION_FAILED, "no inputs");
        }
        Set<String> ys = new HashSet<>();
        long sum = 0;
        for (Proof p : inputs) {
            Ks k = keysets.get(p.id());
            if (k == null) {
                throw refuse(ErrorCodes.KEYSET_UNKNOWN, "unknown keyset " + p.id());
            }
            BigInteger priv = k.priv().get(p.amount());
            if (priv == null || !Bdhke.verify(p.secret().getBytes(StandardCharsets.UTF_8), Secp256k1.decodeHex(p.c()),
                    priv)) {
                throw refuse(ErrorCodes.PROOF_VERIFICATION_FAILED, "invalid proof");
            }
            String y = p.y();
            if (!ys.add(y)) {
                throw refuse(ErrorCodes.DUPLICATE_INPUTS, "duplicate input");
            }
            if (spent.containsKey(y)) {
                throw refuse(ErrorCodes.PROOFS_ALREADY_SPENT, "proof already spent");
            }
            if (pending.contains(y)) {
                throw refuse(ErrorCodes.PROOFS_PENDING, "proof pending");
            }
            sum += p.amount();
        }
        return sum;
    }

    private void checkOutputs(List<BlindedMessage> outputs) {
        Set<String> bs = new HashSet<>();
        for (BlindedMessage o : outputs) {
            Ks k = keysets.get(o.id());
            if (k == null) {
                throw refuse(ErrorCodes.KEYSET_UNKNOWN, "unknown keyset " + o.id());
            }
            if (!k.active()) {
                throw refuse(ErrorCodes.KEYSET_INACTIVE, "inactive keyset " + o.id());
            }
            if (!bs.add(o.b_())) {
                throw refuse(ErrorCodes.DUPLICATE_OUTPUTS, "duplicate output");
            }
            if (signed.containsKey(o.b_())) {
                throw refuse(ErrorCodes.OUTPUTS_ALREADY_SIGNED, "output already signed");
            }
        }
    }

    private long fee(List<Proof> inputs) {
        List<Long> ppk = new ArrayList<>();
        for (Proof p : inputs) {
            ppk.add(keysets.get(p.id()).feePpk());
        }
        return KeysetIds.inputFee(ppk);
    }

    private void spend(List<Proof> inputs) {
        for (Proof p : inputs) {
            spent.put(p.y(), p.witness() == null ? "" : p.witness());
        }
    }

    private void payMelt(LQ q, List<Proof> inputs, List<BlindedMessage> blanks) {
        spend(inputs);
        long overpaid = checkedSum(inputs) - fee(inputs) - q.amount - Math.min(lightningFee, q.feeReserve);
        List<BlindSignature> change = new ArrayList<>();
        int i = 0;
        for (int bit = 0; bit < 63 && overpaid > 0 && i < blanks.size(); bit++) {
            long a = 1L << bit;
            if ((overpaid & a) != 0) {
                BlindedMessage b = blanks.get(i++);
                change.add(sign(new BlindedMessage(a, b.id(), b.b_()), a));
                overpaid -= a;
            }
        }
        q.state = MeltQuote.State.PAID;
        q.preimage = Hex.encode(Secp256k1.bytes32(Secp256k1.randomScalar()));
        q.change = change;
    }

    private static long checkedSum(List<Proof> ps) {
        long s = 0;
        for (Proof p : ps) {
            s += p.amount();
        }
        return s;
    }

    private BlindSignature sign(BlindedMessage o, long amount) {
        Ks k = keysets.get(o.id());
        BigInteger priv = k.priv().get(amount);
        if (priv == null) {
            throw refuse(ErrorCodes.TRANSACTION_NOT_BALANCED, "no key for amount " + amount);
        }
        ECPoint b = Secp256k1.decodeHex(o.b_());
        ECPoint c = Bdhke.sign(b, priv);
        BlindSignatureDleq dleq = null;
        if (!omitDleq) {
            Dleq.Proof d = forgeDleq ? new Dleq.Proof(Secp256k1.randomScalar(), Secp256k1.randomScalar())
                    : Dleq.create(priv, b);
            dleq = new BlindSignatureDleq(d.eHex(), d.sHex());
        }
        BlindSignature s = new BlindSignature(amount, o.id(), Secp256k1.hex(c), dleq);
        signed.put(o.b_(), new Signed(new BlindedMessage(amount, o.id(), o.b_()), s));
        return s;
    }

    private Keyset keyset(Ks k, boolean withKeys) {
        SortedMap<Long, String> keys = new TreeMap<>();
        if (withKeys) {
            k.pub().forEach((a, p) -> keys.put(a, Secp256k1.hex(p)));
        }
        return new Keyset(k.id(), unit, k.active(), k.feePpk(), OptionalLong.empty(), keys);
    }

    private MintQuote view(MQ q) {
        return new MintQuote(q.id, "lnbc" + q.amount + "test" + q.id, q.amount, unit, q.state, null, null);
    }

    private MeltQuote view(LQ q) {
        return new MeltQuote(q.id, q.bolt11, q.amount, unit, q.feeReserve, q.state, null,
                q.state == MeltQuote.State.PAID ? q.preimage : null, q.change);
    }

    // ---- faults ----

    private Fault fault(Call call) {
        calls.merge(call, 1, Integer::sum);
        ArrayDeque<Fault> q = faults.get(call);
        return q == null ? null : q.poll();
    }

    private static void before(Fault f, Call call) {
        if (f == Fault.DEFINITE_ERROR) {
            throw new MintException(call + ": mint refused (injected)", 400, MintException.NO_CODE, "injected error",
                    true, null);
        }
        if (f == Fault.LOST_BEFORE) {
            throw new MintException(call + ": outcome unknown: injected loss before the mint", MintException.NO_STATUS,
                    MintException.NO_CODE, null, false, null);
        }
    }

    private static <T> T after(Fault f, Call call, T result) {
        if (f == Fault.LOST_AFTER) {
            throw new MintException(call + ": outcome unknown: injected loss of the answer", MintException.NO_STATUS,
                    MintException.NO_CODE, null, false, null);
        }
        return result;
    }

    private static MintException refuse(int code, String detail) {
        return new MintException("mint refused (code " + code + "): " + detail, 400, code, detail, true, null);
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
