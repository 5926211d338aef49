package org.fleetmesh.settlement.lightning.bolt11;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** The {@code 9} field: the numbers of the feature bits that are set, ascending. */
public record Features(List<Integer> bits) {
    public static final int VAR_ONION_OPTIN = 8;
    public static final int PAYMENT_SECRET = 14;
    public static final int BASIC_MPP = 16;
    public static final int OPTION_ROUTE_BLINDING = 24;
    public static final int OPTION_ATTRIBUTION_DATA = 36;
    public static final int OPTION_PAYMENT_METADATA = 48;
    public static final Features NONE = new Features(List.of());

    /** Even bits of the BOLT #9 features an invoice may carry; any other even bit means "we cannot pay this". */
    private static final Set<Integer> KNOWN = Set.of(VAR_ONION_OPTIN, PAYMENT_SECRET, BASIC_MPP,
            OPTION_ROUTE_BLINDING, OPTION_ATTRIBUTION_DATA, OPTION_PAYMENT_METADATA);

    public Features {
        TreeSet<Integer> sorted = new TreeSet<>(bits);
        if (!sorted.isEmpty() && sorted.first() < 0) {
            throw new IllegalArgumentException("feature bits are numbered from 0");
        }
        bits = List.copyOf(sorted);
    }

    public static Features of(Integer... bits) {
        return new Features(List.of(bits));
    }

    public boolean isSet(int bit) {
        return bits.contains(bit);
    }

    /** Set as either the compulsory (even) or optional (odd) bit of a pair. */
    public boolean supports(int evenBit) {
        return isSet(evenBit) || isSet(evenBit | 1);
    }

    /** The first set even bit this reader does not know, or -1. */
    int firstUnknownEvenBit() {
        for (int bit : bits) {
            if ((bit & 1) == 0 && !KNOWN.contains(bit)) {
                return bit;
            }
        }
        return -1;
    }

    /** 5-bit groups, big-endian, no leading zero groups; empty when no bit is set. */
    byte[] toGroups() {
        if (bits.isEmpty()) {
            return new byte[0];
        }
        int count = bits.get(bits.size() - 1) / 5 + 1;
        byte[] groups = new byte[count];
        for (int bit : bits) {
            groups[count - 1 - bit / 5] |= (byte) (1 << (bit % 5));
        }
        return groups;
    }

    static Features fromGroups(byte[] data, int from, int count) {
        TreeSet<Integer> bits = new TreeSet<>();
        for (int i = 0; i < count; i++) {
            int group = data[from + count - 1 - i];
            for (int b = 0; b < 5; b++) {
                if (((group >>> b) & 1) != 0) {
                    bits.add(i * 5 + b);
                }
            }
        }
        return new Features(List.copyOf(bits));
    }
}
