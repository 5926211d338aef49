package org.fleetmesh.settlement.lightning.bolt12;

import java.util.List;
import java.util.Locale;
import java.util.function.LongPredicate;
import org.fleetmesh.settlement.lightning.bolt11.Bech32;
import org.fleetmesh.settlement.lightning.bolt12.Bolt12Exception.Reason;

/**
 * Decoder and validator of BOLT #12 strings (lightning/bolts 12-offer-encoding.md): offers
 * ({@code lno}), invoice requests ({@code lnr}) and invoices ({@code lni}). Decode only: nothing here
 * creates, signs, requests or pays.
 *
 * <p>The string is bech32 without a checksum; {@code +} followed by optional whitespace may join pieces
 * between two bech32 characters; it is all lower or all upper case. The data is a TLV stream (BigSize
 * types and lengths, minimally encoded, types strictly increasing); unknown even types are refused, unknown
 * odd types kept. Each message is then held to the reader's "MUST NOT respond" / "MUST reject" rules that
 * can be judged from the string alone, including the BIP-340 signature over the Merkle root for invoice
 * requests and invoices. Rules that need the reader's context stay with the caller: the chains it accepts
 * ({@link Offer#chains()}), the time ({@link Offer#isExpired}, {@link Bolt12Invoice#isExpired}), the offer or
 * invoice request it sent, and the path a message arrived on.
 *
 * <p><b>LND.</b> LND 0.18 and 0.19 cannot pay or create BOLT #12 offers natively: they have no offer,
 * invoice-request or BOLT #12 invoice RPC, and do not fetch invoices over onion messages. Paying or issuing
 * offers with LND needs LNDK, a separate daemon beside LND. The fleetmesh Lightning rail therefore only
 * decodes BOLT #12 strings (for display and validation) and settles over BOLT #11.
 */
public final class Bolt12 {
    /**
     * The most data a BOLT #12 message carries: invoice requests and invoices travel in onion messages, whose
     * packet length is a u16. Bounding it bounds what one string can cost (a feature bitmap decodes to a list
     * of its set bits).
     */
    public static final int MAX_DATA_BYTES = 65_535;
    /** The most characters read: room for {@link #MAX_DATA_BYTES} in bech32 and {@code +} continuations. */
    public static final int MAX_CHARS = 128 * 1024;

    private Bolt12() {
    }

    /** Decodes an offer, an invoice request or an invoice, by its prefix. */
    public static Bolt12Message decode(String text) throws Bolt12Exception {
        Raw raw = raw(text);
        return switch (raw.hrp) {
            case "lno" -> offer(raw.records);
            case "lnr" -> invoiceRequest(raw.records);
            case "lni" -> invoice(raw.records);
            default -> throw new IllegalStateException(raw.hrp);
        };
    }

    /** Decodes an {@code lno} offer; any other prefix is refused as {@link Reason#UNKNOWN_PREFIX}. */
    public static Offer decodeOffer(String text) throws Bolt12Exception {
        return offer(rawOf(text, "lno").records);
    }

    public static InvoiceRequest decodeInvoiceRequest(String text) throws Bolt12Exception {
        return invoiceRequest(rawOf(text, "lnr").records);
    }

    public static Bolt12Invoice decodeInvoice(String text) throws Bolt12Exception {
        return invoice(rawOf(text, "lni").records);
    }

    private record Raw(String hrp, List<Tlv> records) {
    }

    private static Raw rawOf(String text, String hrp) throws Bolt12Exception {
        Raw raw = raw(text);
        if (!raw.hrp.equals(hrp)) {
            throw new Bolt12Exception(Reason.UNKNOWN_PREFIX, "expected " + hrp + ", got " + raw.hrp);
        }
        return raw;
    }

    private static Raw raw(String text) throws Bolt12Exception {
        if (text.length() > MAX_CHARS) {
            throw new Bolt12Exception(Reason.TOO_LONG, text.length() + " characters, at most " + MAX_CHARS + " are read");
        }
        String joined = joinContinuations(text);
        boolean lower = false;
        boolean upper = false;
        for (int i = 0; i < joined.length(); i++) {
            char c = joined.charAt(i);
            lower |= c >= 'a' && c <= 'z';
            upper |= c >= 'A' && c <= 'Z';
        }
        if (lower && upper) {
            throw new Bolt12Exception(Reason.MIXED_CASE, "a bolt12 string is all lower or all upper case");
        }
        String s = joined.toLowerCase(Locale.ROOT);
        int separator = s.lastIndexOf('1');
        if (separator < 0) {
            throw new Bolt12Exception(Reason.MALFORMED_STRING, "no '1' after the human-readable prefix");
        }
        String hrp = s.substring(0, separator);
        if (!hrp.equals("lno") && !hrp.equals("lnr") && !hrp.equals("lni")) {
            throw new Bolt12Exception(Reason.UNKNOWN_PREFIX, "'" + hrp + "' is not lno, lnr or lni");
        }
        if ((long) (s.length() - separator - 1) * 5 / 8 > MAX_DATA_BYTES) {
            throw new Bolt12Exception(Reason.TOO_LONG, "more than " + MAX_DATA_BYTES + " bytes of data");
        }
        byte[] groups = new byte[s.length() - separator - 1];
        for (int i = 0; i < groups.length; i++) {
            char c = s.charAt(separator + 1 + i);
            int v = Bech32.valueOf(c);
            if (v < 0) {
                throw new Bolt12Exception(Reason.MALFORMED_STRING, "'" + c + "' is not a bech32 character");
            }
            groups[i] = (byte) v;
        }
        byte[] data = Bech32.toBytesStrict(groups);
        if (data == null) {
            throw new Bolt12Exception(Reason.INVALID_PADDING, "more than 4 padding bits, or a padding bit set");
        }
        if (data.length == 0) {
            throw new Bolt12Exception(Reason.EMPTY, "the " + hrp + " string carries no TLV record");
        }
        return new Raw(hrp, Tlv.parseStream(data));
    }

    /**
     * Removes each {@code +} and the whitespace after it, provided a bech32 character (a letter or digit)
     * precedes the {@code +} and follows the whitespace; any other {@code +} or whitespace is refused.
     */
    static String joinContinuations(String text) throws Bolt12Exception {
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '+') {
                boolean before = i > 0 && isAlphanumeric(text.charAt(i - 1));
                int next = i + 1;
                while (next < text.length() && Character.isWhitespace(text.charAt(next))) {
                    next++;
                }
                boolean after = next < text.length() && isAlphanumeric(text.charAt(next));
                if (!before || !after) {
                    throw new Bolt12Exception(Reason.INVALID_CONTINUATION,
                            "'+' at " + i + " is not between two bech32 characters");
                }
                i = next;
            } else if (c < 33 || c > 126) {
                throw new Bolt12Exception(Reason.MALFORMED_STRING, "character " + (int) c + " at " + i
                        + (Character.isWhitespace(c) ? " (whitespace is allowed only after '+')" : ""));
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static boolean isAlphanumeric(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    /** Refuses types outside {@code allowed} and unknown even types; returns the unknown odd records. */
    private static List<Tlv> checkTypes(List<Tlv> records, LongPredicate allowed, LongPredicate known, String what)
            throws Bolt12Exception {
        for (Tlv tlv : records) {
            if (!allowed.test(tlv.type())) {
                throw new Bolt12Exception(Reason.TYPE_OUT_OF_RANGE, what + " may not carry type "
                        + Long.toUnsignedString(tlv.type()));
            }
            if (!known.test(tlv.type()) && (tlv.type() & 1) == 0) {
                throw new Bolt12Exception(Reason.UNKNOWN_EVEN_TYPE, "unknown even type "
                        + Long.toUnsignedString(tlv.type()) + " in " + what);
            }
        }
        return records.stream().filter(t -> !known.test(t.type())).toList();
    }

    private static Offer offer(List<Tlv> records) throws Bolt12Exception {
        checkTypes(records, Offer::inOfferRange, Offer::isKnown, "an offer");
        Offer offer = Offer.read(records);
        offer.checkReaderRules();
        return offer;
    }

    private static InvoiceRequest invoiceRequest(List<Tlv> records) throws Bolt12Exception {
        List<Tlv> unknown = checkTypes(records, t -> InvoiceRequest.inRequestRange(t) || Merkle.isSignatureType(t),
                InvoiceRequest::isKnown, "an invoice request");
        InvoiceRequest request = InvoiceRequest.read(records, records, unknown);
        request.checkReaderRules();
        return request;
    }

    private static Bolt12Invoice invoice(List<Tlv> records) throws Bolt12Exception {
        List<Tlv> unknown = checkTypes(records, t -> true, Bolt12Invoice::isKnown, "an invoice");
        Bolt12Invoice invoice = Bolt12Invoice.read(records, unknown);
        invoice.checkReaderRules();
        return invoice;
    }
}
