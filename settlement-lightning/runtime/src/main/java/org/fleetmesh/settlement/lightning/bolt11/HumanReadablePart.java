package org.fleetmesh.settlement.lightning.bolt11;

import java.util.OptionalLong;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11Exception.Reason;

/** {@code ln} + currency prefix + optional amount, the amount kept in millisatoshis. */
public record HumanReadablePart(Network network, OptionalLong amountMsat) {
    private static final long MSAT_PER_BTC = 100_000_000_000L;

    public HumanReadablePart {
        if (network == null || amountMsat == null) {
            throw new IllegalArgumentException("network and amount are required");
        }
        if (amountMsat.isPresent() && amountMsat.getAsLong() <= 0) {
            throw new IllegalArgumentException("an amount must be positive");
        }
    }

    public static HumanReadablePart parse(String hrp) throws Bolt11Exception {
        if (!hrp.startsWith("ln")) {
            throw new Bolt11Exception(Reason.UNKNOWN_PREFIX, "'" + hrp + "' does not start with ln");
        }
        String rest = hrp.substring(2);
        Network network = Network.ofPrefixOf(rest)
                .orElseThrow(() -> new Bolt11Exception(Reason.UNKNOWN_PREFIX, "unknown currency in '" + hrp + "'"));
        String amount = rest.substring(network.prefix().length());
        if (amount.isEmpty()) {
            return new HumanReadablePart(network, OptionalLong.empty());
        }
        return new HumanReadablePart(network, OptionalLong.of(parseAmount(amount)));
    }

    private static long parseAmount(String amount) throws Bolt11Exception {
        char last = amount.charAt(amount.length() - 1);
        String digits = Character.isDigit(last) ? amount : amount.substring(0, amount.length() - 1);
        if (digits.isEmpty() || digits.charAt(0) == '0') {
            throw new Bolt11Exception(Reason.INVALID_AMOUNT, "'" + amount + "' is not a positive number without leading 0s");
        }
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                throw new Bolt11Exception(Reason.INVALID_AMOUNT, "'" + amount + "' is not digits and a multiplier");
            }
        }
        try {
            long value = Long.parseLong(digits); // past Long.MAX_VALUE is refused: no payable amount gets near it
            return switch (Character.isDigit(last) ? ' ' : last) {
                case ' ' -> Math.multiplyExact(value, MSAT_PER_BTC);
                case 'm' -> Math.multiplyExact(value, 100_000_000L);
                case 'u' -> Math.multiplyExact(value, 100_000L);
                case 'n' -> Math.multiplyExact(value, 100L);
                case 'p' -> {
                    if (value % 10 != 0) {
                        throw new Bolt11Exception(Reason.SUB_MILLISATOSHI_AMOUNT,
                                amount + " is not a whole number of millisatoshis");
                    }
                    yield value / 10;
                }
                default -> throw new Bolt11Exception(Reason.INVALID_AMOUNT, "'" + last + "' is not a multiplier");
            };
        } catch (ArithmeticException | NumberFormatException e) {
            throw new Bolt11Exception(Reason.INVALID_AMOUNT, "'" + amount + "' overflows millisatoshis");
        }
    }

    /** The prefix with the amount in its shortest form: the largest multiplier that keeps it whole. */
    public String format() {
        StringBuilder out = new StringBuilder("ln").append(network.prefix());
        if (amountMsat.isEmpty()) {
            return out.toString();
        }
        long msat = amountMsat.getAsLong();
        if (msat % MSAT_PER_BTC == 0) {
            return out.append(msat / MSAT_PER_BTC).toString();
        }
        if (msat % 100_000_000L == 0) {
            return out.append(msat / 100_000_000L).append('m').toString();
        }
        if (msat % 100_000L == 0) {
            return out.append(msat / 100_000L).append('u').toString();
        }
        if (msat % 100L == 0) {
            return out.append(msat / 100L).append('n').toString();
        }
        return out.append(msat).append("0p").toString(); // 1 msat = 10 pico-BTC
    }
}
