package org.fleetmesh.settlement.lightning.bolt12;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/** A decoded BOLT #12 string: an {@link Offer} ({@code lno}), an {@link InvoiceRequest} ({@code lnr}) or a {@link Bolt12Invoice} ({@code lni}). */
public sealed interface Bolt12Message permits Offer, InvoiceRequest, Bolt12Invoice {

    /** The human-readable prefix: {@code lno}, {@code lnr} or {@code lni}. */
    String hrp();

    /** Every TLV record of the message, in stream order, exactly as decoded. */
    List<Tlv> records();

    /** Records of odd types this reader does not know, kept as the spec requires ("it's OK to be odd"). */
    List<Tlv> unknownFields();

    /** The decoded fields as JSON, for {@code meshnode bolt12 decode}. */
    ObjectNode toJson();
}
