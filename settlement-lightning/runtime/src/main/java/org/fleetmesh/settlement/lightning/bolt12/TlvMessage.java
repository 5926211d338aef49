package org.fleetmesh.settlement.lightning.bolt12;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * What the three {@link Bolt12Message}s share: the prefix, the records as decoded, the unknown odd
 * records, and the frame of their JSON ({@code type} first, {@code unknown_fields} last).
 */
abstract sealed class TlvMessage permits Offer, InvoiceRequest, Bolt12Invoice {
    private final String hrp;
    private final String jsonType;
    private final List<Tlv> records;
    private final List<Tlv> unknownFields;

    TlvMessage(String hrp, String jsonType, List<Tlv> records, List<Tlv> unknownFields) {
        this.hrp = hrp;
        this.jsonType = jsonType;
        this.records = List.copyOf(records);
        this.unknownFields = List.copyOf(unknownFields);
    }

    /** See {@link Bolt12Message#hrp()}. */
    public String hrp() {
        return hrp;
    }

    /**
     * See {@link Bolt12Message#records()}. For an {@code lno} offer every record; for an offer copied into
     * a request or invoice, its offer-range records.
     */
    public List<Tlv> records() {
        return records;
    }

    /** See {@link Bolt12Message#unknownFields()}. */
    public List<Tlv> unknownFields() {
        return unknownFields;
    }

    /** See {@link Bolt12Message#toJson()}. */
    public ObjectNode toJson() {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("type", jsonType);
        putJsonBody(json);
        Json.putUnknown(json, unknownFields);
        return json;
    }

    /** The message's own fields, between {@code type} and {@code unknown_fields}. */
    abstract void putJsonBody(ObjectNode json);

    @Override
    public String toString() {
        return getClass().getSimpleName() + records;
    }
}
