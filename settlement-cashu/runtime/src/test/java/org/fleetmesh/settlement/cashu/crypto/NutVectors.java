package org.fleetmesh.settlement.cashu.crypto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.bouncycastle.math.ec.ECPoint;
import org.fleetmesh.nostr.Hex;

/** Reads the NUT test vectors transcribed under src/test/resources/nuts (see the README there). */
final class NutVectors {
    private NutVectors() {
    }

    static JsonNode load(String name) {
        try (InputStream in = NutVectors.class.getResourceAsStream("/nuts/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource /nuts/" + name);
            }
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] hex(JsonNode n) {
        return Hex.decodeLower(n.asText());
    }

    static ECPoint point(JsonNode n) {
        return Secp256k1.decodeHex(n.asText());
    }

    static java.math.BigInteger scalar(JsonNode n) {
        return Secp256k1.scalarHex(n.asText());
    }

    /** A keys object {"amount": "pubkey hex"}; amounts are unsigned 64-bit. */
    static SortedMap<Long, ECPoint> keys(JsonNode keys) {
        SortedMap<Long, ECPoint> out = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : keys.properties()) {
            out.put(Long.parseUnsignedLong(e.getKey()), point(e.getValue()));
        }
        return out;
    }
}
