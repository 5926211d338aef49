package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.identity.DidPeer2;
import org.fleetmesh.identity.didcomm.ContentEncryption;
import org.fleetmesh.identity.didcomm.DidDocumentKeys;
import org.fleetmesh.identity.didcomm.Didcomm;
import org.fleetmesh.identity.didcomm.Ed25519Secret;
import org.fleetmesh.identity.didcomm.PlaintextMessage;
import org.fleetmesh.identity.didcomm.Protection;
import org.fleetmesh.identity.didcomm.Secret;
import org.fleetmesh.identity.didcomm.UnpackedMessage;
import org.fleetmesh.identity.didcomm.X25519Secret;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * DIDComm v2 against an implementation nobody here wrote: didcomm-node from npm (SICPA's didcomm-rust compiled to
 * WASM), given the node's DID document from {@code /.well-known/did.json} and a did:peer:2 of its own (Ed25519,
 * X25519, secp256k1). It sends Trust Pings to the node's {@code POST /didcomm} in every envelope it writes and opens
 * the answers; and the project's Didcomm and didcomm-node open what the other packed, both ways, in every nesting
 * the spec has (docs/spec/identity.md "DIDComm Messaging v2", "The DIDComm endpoint").
 */
class DidcommNodeIT {
    private static final String SCRIPT = "didcomm-interop.mjs";
    private static final String PING_RESPONSE = "https://didcomm.org/trust-ping/2.0/ping-response";
    private static final SecureRandom RANDOM = new SecureRandom();

    static Path jsDir;
    static MeshnodeProcess node;

    @BeforeAll
    static void install() throws Exception {
        jsDir = NodeJs.withDidcommNode(SCRIPT);
        node = MeshnodeProcess.start("didcomm-node");
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    static JsonNode result(NodeJs.Run r) {
        assertEquals(0, r.exit(), "the didcomm-node script failed:\n" + r.stdout() + r.stderr());
        String line = r.stdout().lines().filter(l -> l.startsWith("RESULT ")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no RESULT line:\n" + r.stdout() + r.stderr()));
        return NostrClient.tree(line.substring("RESULT ".length()));
    }

    @Test
    void didcommNodePingsTheEndpointInEveryEnvelopeAndOpensTheAnswers() throws Exception {
        JsonNode res = result(NodeJs.run(jsDir, 120, "node", SCRIPT, "send", node.httpUri().toString()));
        String me = res.path("did").asText();
        String long_ = res.path("long").asText();
        String short_ = res.path("short").asText();
        JsonNode results = res.path("results");

        JsonNode anon = results.path("anoncrypt");
        assertEquals(202, anon.path("status").asInt(), anon.toString());

        for (String name : List.of("authcrypt", "authcrypt short form", "authcrypt(sign EdDSA)", "anoncrypt(authcrypt)",
                "anoncrypt(authcrypt(sign))")) {
            JsonNode r = results.path(name);
            assertEquals(200, r.path("status").asInt(), name + ": " + r);
            assertEquals("application/didcomm-encrypted+json", r.path("contentType").asText(), name);
            JsonNode answer = r.path("answer");
            assertEquals(PING_RESPONSE, answer.path("type").asText(), name + ": " + r);
            assertEquals(r.path("id").asText(), answer.path("thid").asText(), name + ": thid is the ping's id");
            String to = name.equals("authcrypt short form") ? short_ : long_;
            assertEquals(to, answer.path("from").asText(), name + ": from the DID the ping was sent to");
            assertEquals(List.of(me), List.of(answer.path("to").path(0).asText()), name);
            assertEquals("application/didcomm-plain+json", answer.path("typ").asText(), name);
            JsonNode meta = r.path("meta");
            assertTrue(meta.path("encrypted").asBoolean() && meta.path("authenticated").asBoolean(), name + ": " + meta);
            assertEquals(to + "#key-2", meta.path("fromKid").asText(), name);
            assertEquals(me + "#key-2", meta.path("toKids").path(0).asText(), name);
            JsonNode header = r.path("protected");
            assertEquals("application/didcomm-encrypted+json", header.path("typ").asText(), name);
            assertEquals("ECDH-1PU+A256KW", header.path("alg").asText(), name);
            assertEquals("A256CBC-HS512", header.path("enc").asText(), name);
            assertEquals(to + "#key-2", header.path("skid").asText(), name);
            assertEquals(java.util.Base64.getUrlEncoder().withoutPadding()
                    .encodeToString((to + "#key-2").getBytes(StandardCharsets.UTF_8)), header.path("apu").asText(), name);
        }

        JsonNode signedAnon = results.path("anoncrypt(sign ES256K)");
        assertEquals(202, signedAnon.path("status").asInt(), "ES256K signature verified: " + signedAnon);

        JsonNode other = results.path("other type");
        assertEquals(200, other.path("status").asInt(), other.toString());
        assertEquals("https://didcomm.org/report-problem/2.0/problem-report", other.path("answer").path("type").asText());
        assertEquals(other.path("id").asText(), other.path("answer").path("pthid").asText());
        assertEquals("e.p.msg.unsupported", other.path("answer").path("body").path("code").asText());

        JsonNode expired = results.path("expired");
        assertEquals(400, expired.path("status").asInt(), expired.toString());
        assertTrue(NostrClient.tree(expired.path("body").asText()).path("error").asText().startsWith("invalid: "),
                expired.toString());
    }

    @Test
    void theProjectAndDidcommNodeOpenWhatTheOtherPacked() throws Exception {
        Path dir = Files.createTempDirectory(MeshnodeProcess.targetDir(), "didcomm-interop-");
        Path party = dir.resolve("party.json");
        Path in = dir.resolve("in.json");
        Path out = dir.resolve("out.json");
        String js = result(NodeJs.run(jsDir, 60, "node", SCRIPT, "party", party.toString())).path("did").asText();

        Ed25519Secret ed = Ed25519Secret.generate(RANDOM);
        X25519Secret x = X25519Secret.generate(RANDOM);
        String me = DidPeer2.create(List.of(new DidPeer2.PurposedKey(DidPeer2.Purpose.AUTHENTICATION, ed.publicKey()),
                new DidPeer2.PurposedKey(DidPeer2.Purpose.KEY_AGREEMENT, x.publicKey())), List.of());
        Didcomm didcomm = Didcomm.using(DidDocumentKeys.offline());
        long now = System.currentTimeMillis() / 1000;
        java.util.function.Function<String, PlaintextMessage> msg = id -> PlaintextMessage.builder(id,
                "https://didcomm.org/basicmessage/2.0/message").from(me).to(js).createdTime(now).thid("t-" + id)
                .body(JsonNodeFactory.instance.objectNode().put("content", "from the project")).build();
        ObjectNode input = JsonNodeFactory.instance.objectNode();
        input.put("did", me);
        input.set("doc", DidPeer2.resolve(me));
        ObjectNode m = input.putObject("messages");
        m.put("signed", didcomm.packSigned(msg.apply("signed"), me + "#key-1", ed));
        m.put("anoncrypt A256CBC-HS512", didcomm.packAnoncrypt(msg.apply("anon-cbc"), js));
        m.put("anoncrypt A256GCM", didcomm.packAnoncrypt(msg.apply("anon-gcm"), ContentEncryption.A256GCM, List.of(js)));
        m.put("anoncrypt XC20P", didcomm.packAnoncrypt(msg.apply("anon-xc20p"), ContentEncryption.XC20P, List.of(js)));
        m.put("authcrypt", didcomm.packAuthcrypt(msg.apply("auth"), me + "#key-2", x, js));
        m.put("anoncrypt(sign)", didcomm.wrapAnoncrypt(didcomm.packSigned(msg.apply("anon-sign"), me + "#key-1", ed),
                ContentEncryption.A256CBC_HS512, List.of(js)));
        m.put("anoncrypt(authcrypt)", didcomm.wrapAnoncrypt(didcomm.packAuthcrypt(msg.apply("anon-auth"), me + "#key-2",
                x, js), ContentEncryption.XC20P, List.of(js)));
        Files.writeString(in, input.toString());

        JsonNode res = result(NodeJs.run(jsDir, 120, "node", SCRIPT, "open", party.toString(), in.toString(),
                out.toString()));
        JsonNode opened = res.path("opened");
        m.fieldNames().forEachRemaining(name -> {
            JsonNode o = opened.path(name);
            assertFalse(o.has("error"), name + ": didcomm-node refused what the project packed: " + o);
            assertEquals("t-" + o.path("message").path("id").asText(), o.path("message").path("thid").asText(), name);
            assertEquals(me, o.path("message").path("from").asText(), name);
        });
        assertTrue(opened.path("signed").path("meta").path("nonRepudiation").asBoolean());
        assertEquals(me + "#key-1", opened.path("signed").path("meta").path("signFrom").asText());
        assertEquals(me + "#key-2", opened.path("authcrypt").path("meta").path("fromKid").asText());
        assertTrue(opened.path("anoncrypt(authcrypt)").path("meta").path("anonymousSender").asBoolean());
        assertEquals(me + "#key-2", opened.path("anoncrypt(authcrypt)").path("meta").path("fromKid").asText());

        Map<String, Secret> secrets = Map.of(me + "#key-1", ed, me + "#key-2", x);
        JsonNode packed = NostrClient.tree(Files.readString(out));
        Map<String, List<Protection>> expected = new java.util.LinkedHashMap<>();
        expected.put("signed EdDSA", List.of(Protection.SIGNED));
        expected.put("signed ES256K", List.of(Protection.SIGNED));
        expected.put("anoncrypt Xc20pEcdhEsA256kw", List.of(Protection.ANONCRYPT));
        expected.put("anoncrypt A256gcmEcdhEsA256kw", List.of(Protection.ANONCRYPT));
        expected.put("anoncrypt A256cbcHs512EcdhEsA256kw", List.of(Protection.ANONCRYPT));
        expected.put("authcrypt", List.of(Protection.AUTHCRYPT));
        expected.put("anoncrypt(sign)", List.of(Protection.ANONCRYPT, Protection.SIGNED));
        expected.put("authcrypt(sign)", List.of(Protection.AUTHCRYPT, Protection.SIGNED));
        expected.put("anoncrypt(authcrypt)", List.of(Protection.ANONCRYPT, Protection.AUTHCRYPT));
        expected.put("anoncrypt(authcrypt(sign))", List.of(Protection.ANONCRYPT, Protection.AUTHCRYPT, Protection.SIGNED));
        for (Map.Entry<String, List<Protection>> e : expected.entrySet()) {
            String text = packed.path(e.getKey()).asText();
            assertFalse(text.startsWith("ERROR"), e.getKey() + ": " + text);
            UnpackedMessage u = didcomm.unpack(text, kid -> Optional.ofNullable(secrets.get(kid)));
            assertEquals(e.getValue(), u.envelopes(), e.getKey());
            assertEquals(Optional.of(js), u.message().from(), e.getKey());
            assertEquals(List.of(me), u.message().to(), e.getKey());
            assertEquals("from didcomm-node", u.message().body().path("content").asText(), e.getKey());
            if (e.getValue().contains(Protection.AUTHCRYPT)) {
                assertEquals(Optional.of(js + "#key-2"), u.senderKid(), e.getKey());
            }
        }
        assertEquals(Optional.of(js + "#key-3"), didcomm.unpack(packed.path("signed ES256K").asText(),
                kid -> Optional.empty()).signerKid(), "ES256K over the secp256k1 #key-3");
        assertEquals(Optional.of(js + "#key-3"), didcomm.unpack(packed.path("authcrypt(sign)").asText(),
                kid -> Optional.ofNullable(secrets.get(kid))).signerKid());
    }
}
