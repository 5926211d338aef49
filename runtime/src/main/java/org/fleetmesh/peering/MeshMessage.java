package org.fleetmesh.peering;

import java.io.IOException;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import org.fleetmesh.nostr.Snippet;

/**
 * A handshake message of the {@code /mesh} link: a JSON array in a text frame, its first element the type
 * (docs/spec/mesh-link.md, "Messages"). Parsing is strict about what it needs (types, arity, lower-case hex,
 * integer ranges, no duplicate keys) and ignores object members it does not know, so that a later version may add
 * some.
 */
public sealed interface MeshMessage permits MeshHello, MeshAuth, MeshOk, MeshErr {
    String HELLO = "MESH-HELLO";
    String AUTH = "MESH-AUTH";
    String OK = "MESH-OK";
    String ERR = "MESH-ERR";

    /** The type, the array's first element. */
    String type();

    /** The message as sent: compact JSON, members in the order the spec lists them. */
    String encode();

    /**
     * Parses one handshake message.
     *
     * @throws MeshRefusedException {@code malformed} for anything that is not a well-formed handshake message,
     *         {@code unsupported} for a type that is not one
     */
    static MeshMessage parse(String text, int maxLength) throws MeshRefusedException {
        if (text.length() > maxLength) {
            throw MeshJson.malformed("a handshake message is at most " + maxLength + " characters, this one is " + text.length());
        }
        JsonNode root;
        try {
            root = MeshJson.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw MeshJson.malformed("not JSON (" + Snippet.of(e.getOriginalMessage()) + ")");
        }
        if (root == null || !root.isArray()) {
            throw MeshJson.malformed("a message is a JSON array");
        }
        if (root.isEmpty() || !root.get(0).isTextual()) {
            throw MeshJson.malformed("a message starts with its type, a string");
        }
        String type = root.get(0).textValue();
        return switch (type) {
            case HELLO -> MeshHello.read(MeshJson.object(root, type));
            case AUTH -> MeshAuth.read(MeshJson.object(root, type));
            case OK -> MeshOk.read(MeshJson.object(root, type));
            case ERR -> {
                if (root.size() != 2 || !root.get(1).isTextual()) {
                    throw MeshJson.malformed("MESH-ERR is [\"MESH-ERR\", <reason string>]");
                }
                yield new MeshErr(root.get(1).textValue());
            }
            default -> throw Refusal.of(Refusal.Kind.UNSUPPORTED, "message type " + MeshJson.quote(Snippet.of(type))
                    + " is not a handshake message (MESH-HELLO, MESH-AUTH, MESH-OK, MESH-ERR)").exception();
        };
    }

    /** The type of a message, for answering one that arrives after the handshake; empty when there is none. */
    public static Optional<String> typeOf(String text) {
        try (JsonParser p = MeshJson.FACTORY.createParser(text)) {
            if (p.nextToken() == JsonToken.START_ARRAY
                    && p.nextToken() == JsonToken.VALUE_STRING) {
                return Optional.of(p.getText());
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
