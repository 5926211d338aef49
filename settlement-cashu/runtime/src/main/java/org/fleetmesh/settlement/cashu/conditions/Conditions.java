package org.fleetmesh.settlement.cashu.conditions;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import org.fleetmesh.settlement.cashu.nut.Nut;

/**
 * The NUT-11 tags of a P2PK or HTLC secret: {@code sigflag}, {@code pubkeys}, {@code n_sigs}, {@code locktime},
 * {@code refund}, {@code n_sigs_refund}.
 *
 * <p>{@code nSigs} and {@code nSigsRefund} are 0 when their tag is absent (then one signature is needed);
 * {@code locktime} is empty when absent or not a valid unix time, which NUT-11 calls a permanent lock.
 */
public record Conditions(SigFlag sigFlag, List<String> pubkeys, int nSigs, OptionalLong locktime,
        List<String> refund, int nSigsRefund) {
    private static final List<String> KNOWN = List.of("sigflag", "pubkeys", "n_sigs", "locktime", "refund",
            "n_sigs_refund");

    public Conditions {
        sigFlag = sigFlag == null ? SigFlag.SIG_INPUTS : sigFlag;
        pubkeys = pubkeys == null ? List.of() : List.copyOf(pubkeys);
        refund = refund == null ? List.of() : List.copyOf(refund);
        locktime = locktime == null ? OptionalLong.empty() : locktime;
        if (nSigs < 0 || nSigsRefund < 0) {
            throw new IllegalArgumentException("n_sigs must not be negative");
        }
    }

    /** No tags: SIG_INPUTS, one key, no locktime. */
    public static Conditions none() {
        return new Conditions(SigFlag.SIG_INPUTS, List.of(), 0, OptionalLong.empty(), List.of(), 0);
    }

    /** Signatures needed on the locktime pathway. */
    public int requiredSigs() {
        return nSigs == 0 ? 1 : nSigs;
    }

    /** Signatures needed on the refund pathway. */
    public int requiredRefundSigs() {
        return nSigsRefund == 0 ? 1 : nSigsRefund;
    }

    /** Expired when a locktime is set and the clock is past it (NUT-11 "greater than locktime"). */
    public boolean expired(long nowEpochSeconds) {
        return locktime.isPresent() && nowEpochSeconds > locktime.getAsLong();
    }

    /**
     * Reads the tags of a secret: each known tag at most once, a known sigflag, n_sigs values positive integers,
     * keys 33-byte compressed hex. Unknown tags are ignored.
     */
    public static Conditions parse(WellKnownSecret secret) throws ConditionException {
        Set<String> seen = new HashSet<>();
        SigFlag flag = SigFlag.SIG_INPUTS;
        List<String> pubkeys = List.of();
        List<String> refund = List.of();
        int nSigs = 0;
        int nSigsRefund = 0;
        OptionalLong locktime = OptionalLong.empty();
        for (List<String> tag : secret.tags()) {
            String key = tag.get(0);
            if (!KNOWN.contains(key)) {
                continue;
            }
            if (!seen.add(key)) {
                throw new ConditionException("tag " + key + " appears more than once");
            }
            List<String> values = tag.subList(1, tag.size());
            switch (key) {
                case "sigflag" -> {
                    String v = values.isEmpty() ? "" : values.get(0);
                    if (values.size() != 1 || !(v.equals("SIG_INPUTS") || v.equals("SIG_ALL"))) {
                        throw new ConditionException("sigflag must be SIG_INPUTS or SIG_ALL");
                    }
                    flag = SigFlag.valueOf(v);
                }
                case "pubkeys" -> pubkeys = keys(values, "pubkeys");
                case "refund" -> refund = keys(values, "refund");
                case "n_sigs" -> nSigs = positive(values, "n_sigs");
                case "n_sigs_refund" -> nSigsRefund = positive(values, "n_sigs_refund");
                case "locktime" -> locktime = unixTime(values);
                default -> throw new IllegalStateException(key);
            }
        }
        return new Conditions(flag, pubkeys, nSigs, locktime, refund, nSigsRefund);
    }

    /** The tags that express these conditions, sigflag last; defaults are left out except the flag. */
    public List<List<String>> tags() {
        List<List<String>> tags = new ArrayList<>();
        if (!pubkeys.isEmpty()) {
            tags.add(with("pubkeys", pubkeys));
        }
        if (nSigs > 0) {
            tags.add(List.of("n_sigs", Integer.toString(nSigs)));
        }
        if (locktime.isPresent()) {
            tags.add(List.of("locktime", Long.toString(locktime.getAsLong())));
        }
        if (!refund.isEmpty()) {
            tags.add(with("refund", refund));
        }
        if (nSigsRefund > 0) {
            tags.add(List.of("n_sigs_refund", Integer.toString(nSigsRefund)));
        }
        tags.add(List.of("sigflag", sigFlag.name()));
        return tags;
    }

    private static List<String> with(String key, List<String> values) {
        List<String> t = new ArrayList<>();
        t.add(key);
        t.addAll(values);
        return t;
    }

    static List<String> keys(List<String> values, String tag) throws ConditionException {
        List<String> out = new ArrayList<>(values.size());
        for (String v : values) {
            try {
                out.add(Nut.point(v, tag + " key"));
            } catch (IllegalArgumentException e) {
                throw new ConditionException(e.getMessage());
            }
        }
        return out;
    }

    private static int positive(List<String> values, String tag) throws ConditionException {
        if (values.size() != 1 || !values.get(0).matches("[0-9]{1,9}") || Integer.parseInt(values.get(0)) <= 0) {
            throw new ConditionException(tag + " must be a positive integer");
        }
        return Integer.parseInt(values.get(0));
    }

    private static OptionalLong unixTime(List<String> values) {
        if (values.size() != 1 || !values.get(0).matches("[0-9]{1,18}")) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseLong(values.get(0)));
    }
}
