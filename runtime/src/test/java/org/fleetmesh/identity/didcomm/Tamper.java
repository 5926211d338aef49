package org.fleetmesh.identity.didcomm;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Alterations an attacker on the wire could make to a JWE or JWS in JSON serialization. */
final class Tamper {
    private Tamper() {
    }

    /** One base64url character in the middle of {@code text} changed: the decoded bytes differ in one place. */
    static String flip(String text) {
        int i = text.length() / 2;
        char c = text.charAt(i);
        return text.substring(0, i) + (c == 'A' ? 'B' : 'A') + text.substring(i + 1);
    }

    /** {@code message} with {@code change} applied to its JSON. */
    static String json(String message, Consumer<ObjectNode> change) {
        ObjectNode o = Appendix.json(message);
        change.accept(o);
        return o.toString();
    }

    /** A top-level base64url member flipped. */
    static String member(String message, String name) {
        return json(message, o -> o.put(name, flip(o.get(name).asText())));
    }

    /** The protected header decoded, changed, and encoded again: still valid JSON, other bytes. */
    static String protectedHeader(String jwe, Consumer<ObjectNode> change) {
        return json(jwe, o -> {
            String decoded = new String(java.util.Base64.getUrlDecoder().decode(o.get("protected").asText()),
                    StandardCharsets.UTF_8);
            ObjectNode header = Appendix.json(decoded);
            change.accept(header);
            o.put("protected", Base64Url.encode(header.toString().getBytes(StandardCharsets.UTF_8)));
        });
    }

    /** The i-th recipient changed. */
    static String recipient(String jwe, int i, Consumer<ObjectNode> change) {
        return json(jwe, o -> change.accept((ObjectNode) o.get("recipients").get(i)));
    }
}
