package org.fleetmesh.settlement.lightning.bolt12;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.List;
import java.util.OptionalLong;
import org.fleetmesh.settlement.lightning.bolt11.Features;

/** JSON helpers shared by the three messages' {@code toJson()}. */
final class Json {
    private Json() {
    }

    /** A tu64 is unsigned: numbers above {@code Long.MAX_VALUE} stay exact. */
    static void putUnsigned(ObjectNode json, String name, long value) {
        if (value >= 0) {
            json.put(name, value);
        } else {
            json.put(name, new BigInteger(Long.toUnsignedString(value)));
        }
    }

    /** Puts an unsigned value only when present. */
    static void putUnsigned(ObjectNode json, String name, OptionalLong value) {
        if (value.isPresent()) {
            putUnsigned(json, name, value.getAsLong());
        }
    }

    /** Puts the feature bits only when at least one is set. */
    static void putFeaturesIfAny(ObjectNode json, String name, Features features) {
        if (!features.bits().isEmpty()) {
            putFeatures(json, name, features);
        }
    }

    static void putFeatures(ObjectNode json, String name, Features features) {
        ArrayNode bits = json.putArray(name);
        features.bits().forEach(bits::add);
    }

    static void putPaths(ObjectNode json, String name, List<BlindedPath> paths) {
        ArrayNode array = json.putArray(name);
        for (BlindedPath path : paths) {
            ObjectNode p = array.addObject();
            if (path.firstNodeId() instanceof BlindedPath.NodeIntroduction n) {
                p.put("first_node_id", n.nodeId().hex());
            } else if (path.firstNodeId() instanceof BlindedPath.ChannelIntroduction c) {
                p.put("first_scid", c.shortChannelId().toString());
                p.put("first_scid_dir", c.direction());
            }
            p.put("first_path_key", path.firstPathKey().hex());
            ArrayNode hops = p.putArray("path");
            for (BlindedPath.Hop hop : path.hops()) {
                hops.addObject()
                        .put("blinded_node_id", hop.blindedNodeId().hex())
                        .put("encrypted_recipient_data", org.fleetmesh.nostr.Hex.encode(hop.encryptedRecipientData()));
            }
        }
    }

    static void putUnknown(ObjectNode json, List<Tlv> unknown) {
        ArrayNode array = json.putArray("unknown_fields");
        for (Tlv tlv : unknown) {
            ObjectNode f = array.addObject();
            putUnsigned(f, "type", tlv.type());
            f.put("value", tlv.valueHex());
        }
    }
}
