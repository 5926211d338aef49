package org.fleetmesh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.fleetmesh.identity.DidPeer2;
import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.didcomm.DidDocumentKeys;
import org.fleetmesh.identity.didcomm.Didcomm;
import org.fleetmesh.identity.didcomm.Ed25519Secret;
import org.fleetmesh.identity.didcomm.PlaintextMessage;
import org.fleetmesh.identity.didcomm.UnpackedMessage;
import org.fleetmesh.identity.didcomm.X25519Secret;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * The DIDComm endpoint the node's DID document advertises ({@code #didcomm}) is served: a Trust Ping 2.0 authcrypted
 * to the node, with {@code return_route: all}, is answered on the same request with an authcrypted ping-response;
 * what is not a POST of an encrypted message of at most 64 KiB is refused with the reason.
 */
class DidcommEndpointIT {
    static final SecureRandom RANDOM = new SecureRandom();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static MeshnodeProcess node;

    @BeforeAll
    static void start() {
        node = MeshnodeProcess.start("didcomm-endpoint", Map.of());
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    static HttpResponse<String> post(URI uri, String contentType, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theAdvertisedEndpointAnswersATrustPingAndRefusesWhatItMust() throws Exception {
        JsonNode doc = NostrClient.tree(HTTP.send(HttpRequest.newBuilder(node.httpUri().resolve("/.well-known/did.json"))
                .GET().build(), HttpResponse.BodyHandlers.ofString()).body());
        String nodeDid = doc.path("id").asText();
        HttpResponse<String> head = HTTP.send(HttpRequest.newBuilder(node.httpUri().resolve("/.well-known/did.json"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, head.statusCode(), "HEAD answers as GET would (RFC 9110)");
        assertEquals("application/did+json", head.headers().firstValue("Content-Type").orElse(""));
        assertEquals("", head.body());
        String endpoint = null;
        for (JsonNode s : doc.path("service")) {
            if (s.path("type").asText().equals("DIDCommMessaging")) {
                endpoint = s.path("serviceEndpoint").path("uri").asText();
            }
        }
        assertTrue(endpoint != null && endpoint.endsWith("/didcomm"), doc.toString());
        URI didcomm = node.httpUri().resolve(URI.create(endpoint).getPath());

        Ed25519Secret signing = Ed25519Secret.generate(RANDOM);
        X25519Secret agreement = X25519Secret.generate(RANDOM);
        String me = DidPeer2.create(List.of(new DidPeer2.PurposedKey(DidPeer2.Purpose.AUTHENTICATION, signing.publicKey()),
                new DidPeer2.PurposedKey(DidPeer2.Purpose.KEY_AGREEMENT, agreement.publicKey())), List.of());
        Didcomm client = Didcomm.using(DidDocumentKeys.using(DidResolver.offline().knowing(nodeDid)));
        PlaintextMessage ping = PlaintextMessage.builder("ping-it", "https://didcomm.org/trust-ping/2.0/ping").from(me)
                .to(nodeDid).createdTime(System.currentTimeMillis() / 1000)
                .header("return_route", TextNode.valueOf("all")).build();
        String envelope = client.packAuthcrypt(ping, me + "#key-2", agreement, nodeDid);
        HttpResponse<String> r = post(didcomm, "application/didcomm-encrypted+json", envelope);
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("application/didcomm-encrypted+json", r.headers().firstValue("Content-Type").orElse(""));
        UnpackedMessage answer = client.unpack(r.body(),
                kid -> kid.equals(me + "#key-2") ? Optional.of(agreement) : Optional.empty());
        assertTrue(answer.authcrypted());
        assertEquals("https://didcomm.org/trust-ping/2.0/ping-response", answer.message().type());
        assertEquals("ping-it", answer.message().thid().orElseThrow());
        assertEquals(nodeDid, answer.message().from().orElseThrow());

        // the same ping without a return route: accepted, nothing dialled back
        PlaintextMessage quiet = ping.toBuilder().build();
        String noRoute = client.packAuthcrypt(PlaintextMessage.builder("ping-2", "https://didcomm.org/trust-ping/2.0/ping")
                .from(me).to(nodeDid).createdTime(System.currentTimeMillis() / 1000).build(), me + "#key-2", agreement,
                nodeDid);
        assertEquals(202, post(didcomm, "application/didcomm-encrypted+json", noRoute).statusCode());
        assertEquals("ping-it", quiet.id());

        r = post(didcomm, "application/didcomm-encrypted+json", "{\"protected\":\"x\"}");
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(NostrClient.tree(r.body()).path("error").asText().startsWith("invalid: "), r.body());
        r = post(didcomm, "application/json", envelope);
        assertEquals(415, r.statusCode(), r.body());
        r = post(didcomm, "application/didcomm-encrypted+json", "x".repeat(64 * 1024 + 1));
        assertEquals(413, r.statusCode());
        r = HTTP.send(HttpRequest.newBuilder(didcomm).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, r.statusCode());
        assertEquals("POST", r.headers().firstValue("Allow").orElse(""));

        // senders that send headers and no body hold a place among the bodies arriving (4 from one address), never
        // the slots that open messages: another address is answered meanwhile (4 such sockets closed it for all)
        java.util.List<java.net.Socket> stalled = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 5; i++) {
                java.net.Socket s = new java.net.Socket("127.0.0.1", node.port());
                s.setSoTimeout(10_000);
                s.getOutputStream().write(("POST /didcomm HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                        + "application/didcomm-encrypted+json\r\nContent-Length: 1000\r\n\r\n")
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                stalled.add(s);
            }
            // the connections are served by several event loops, so which of the five is the fifth to arrive is not
            // the order they were opened in: exactly one is answered at once, with a 503
            java.util.List<Integer> answered = new java.util.ArrayList<>();
            long until = System.nanoTime() + 5_000_000_000L;
            while (answered.isEmpty() && System.nanoTime() < until) {
                Thread.sleep(20);
                for (int i = 0; i < stalled.size(); i++) {
                    if (stalled.get(i).getInputStream().available() > 0) {
                        answered.add(i);
                    }
                }
            }
            Thread.sleep(500);
            answered.clear();
            for (int i = 0; i < stalled.size(); i++) {
                if (stalled.get(i).getInputStream().available() > 0) {
                    answered.add(i);
                }
            }
            assertEquals(1, answered.size(), "one of five from one address is refused at once, the others wait: " + answered);
            String fifth = new String(stalled.get(answered.get(0)).getInputStream().readNBytes(12),
                    java.nio.charset.StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 503", fifth, "the fifth from one address");
            try (java.net.Socket other = new java.net.Socket()) {
                other.bind(new java.net.InetSocketAddress("127.0.0.2", 0));
                other.connect(new java.net.InetSocketAddress("127.0.0.1", node.port()));
                other.setSoTimeout(10_000);
                byte[] b = envelope.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                other.getOutputStream().write(("POST /didcomm HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                        + "application/didcomm-encrypted+json\r\nContent-Length: " + b.length + "\r\n\r\n")
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                other.getOutputStream().write(b);
                String status = new String(other.getInputStream().readNBytes(12), java.nio.charset.StandardCharsets.US_ASCII);
                assertEquals("HTTP/1.1 200", status, "another address is answered while they stall");
            }
        } finally {
            for (java.net.Socket s : stalled) {
                s.close();
            }
        }
    }
}
