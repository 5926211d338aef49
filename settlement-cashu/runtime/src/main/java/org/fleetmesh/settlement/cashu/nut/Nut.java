package org.fleetmesh.settlement.cashu.nut;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;

/**
 * The JSON dialect of the NUTs and the field checks every wire type shares.
 *
 * <p>{@link #json()} is strict: no coercion between JSON types (a string is not a number, a float is not an
 * integer), integers must fit their Java type, duplicate keys and trailing content are errors, and nesting and
 * string sizes are bounded. Unknown object fields are ignored because the NUTs grow by adding fields. Null
 * fields are left out when writing, as the NUTs write optional fields.
 */
public final class Nut {
    /** Longest secret we accept: NUT-10 secrets with many keys stay far below this. */
    public static final int MAX_SECRET_CHARS = 16 * 1024;
    /** Longest witness we accept (a few signatures and a preimage). */
    public static final int MAX_WITNESS_CHARS = 64 * 1024;

    private static final ObjectMapper JSON = build();

    private Nut() {
    }

    /** The shared, configured mapper; thread-safe; do not reconfigure it. */
    public static ObjectMapper json() {
        return JSON;
    }

    private static ObjectMapper build() {
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(64)
                        .maxNumberLength(40)
                        .maxStringLength(4 * 1024 * 1024)
                        .build())
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
        JsonMapper mapper = JsonMapper.builder(factory)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL,
                        JsonInclude.Include.NON_NULL))
                .build();
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        for (LogicalType t : new LogicalType[] { LogicalType.Integer, LogicalType.Float, LogicalType.Boolean }) {
            mapper.coercionConfigFor(t)
                    .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
        }
        mapper.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
        return mapper;
    }

    /**
     * A keyset id as NUT-02 writes it: hex of 8 bytes (version 00, or a short id) or 33 bytes (version 01).
     * Returned in lower case.
     */
    public static String keysetId(String id, String field) {
        if (id == null) {
            throw new IllegalArgumentException(field + " is missing");
        }
        if (id.length() != 16 && id.length() != 66) {
            throw new IllegalArgumentException(field + " must be hex of 8 or 33 bytes");
        }
        return hex(id, id.length() / 2, field);
    }

    /** A curve point as the NUTs write it: 33-byte SEC1 compressed, hex; returned in lower case. */
    public static String point(String hex, String field) {
        String p = hex(hex, 33, field);
        if (!p.startsWith("02") && !p.startsWith("03")) {
            throw new IllegalArgumentException(field + " must be a compressed public key (02 or 03 prefix)");
        }
        return p;
    }

    /** Hex of exactly {@code bytes} bytes in either case; returned in lower case. */
    public static String hex(String hex, int bytes, String field) {
        if (hex == null) {
            throw new IllegalArgumentException(field + " is missing");
        }
        if (hex.length() != bytes * 2) {
            throw new IllegalArgumentException(field + " must be hex of " + bytes + " bytes");
        }
        for (int i = 0; i < hex.length(); i++) {
            char c = hex.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                throw new IllegalArgumentException(field + " must be hex of " + bytes + " bytes");
            }
        }
        return hex.toLowerCase(Locale.ROOT);
    }

    static String secret(String secret) {
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException("proof secret is missing");
        }
        if (secret.length() > MAX_SECRET_CHARS) {
            throw new IllegalArgumentException("proof secret is longer than " + MAX_SECRET_CHARS + " characters");
        }
        return secret;
    }

    /** A short reason for a JSON read failure: the record constructor's complaint, else Jackson's first line. */
    public static String reason(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof IllegalArgumentException && c.getMessage() != null) {
                return c.getMessage();
            }
        }
        if (e instanceof com.fasterxml.jackson.core.io.JsonEOFException) {
            return "truncated";
        }
        if (e instanceof com.fasterxml.jackson.core.JsonProcessingException j && j.getOriginalMessage() != null) {
            return "bad JSON (" + j.getOriginalMessage().lines().findFirst().orElse("") + ")";
        }
        return "bad JSON";
    }
}
