package org.fleetmesh.nostr.nip66;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RelayUrlTest {

    @ParameterizedTest
    @CsvSource({
            "wss://some.relay/, wss://some.relay/",
            "wss://some.relay, wss://some.relay/",
            "WSS://Some.Relay, wss://some.relay/",
            "wss://some.relay:443, wss://some.relay/",
            "ws://some.relay:80/, ws://some.relay/",
            "ws://some.relay:443/, ws://some.relay:443/",
            "wss://some.relay:80, wss://some.relay:80/",
            "ws://127.0.0.1:7777, ws://127.0.0.1:7777/",
            "wss://some.relay/Path/, wss://some.relay/Path/",
            "wss://some.relay/a/./b/../c, wss://some.relay/a/c",
            "wss://some.relay/%7euser/%2f, wss://some.relay/~user/%2F",
            "wss://some.relay/x#fragment, wss://some.relay/x",
            "  wss://some.relay  , wss://some.relay/",
            "wss://[::1]:8080, wss://[::1]:8080/" })
    void normalizesPerRfc3986Section6(String url, String normalized) {
        assertEquals(normalized, RelayUrl.normalize(url));
    }

    @ParameterizedTest
    @ValueSource(strings = { "https://some.relay/", "some.relay", "wss:///path", "wss://user@some.relay/", "not a url",
            "" })
    void refusesWhatIsNotARelayUrl(String url) {
        assertThrows(IllegalArgumentException.class, () -> RelayUrl.normalize(url));
    }

    @ParameterizedTest
    @CsvSource({
            "ws://127.0.0.1:7777/mesh, ws://127.0.0.1:7777/",
            "wss://Node.Example:443/mesh, wss://node.example/",
            "wss://node.example/relay/mesh, wss://node.example/relay/",
            "wss://node.example/elsewhere, wss://node.example/" })
    void aNodesRelayIsItsMeshUrlWithoutTheMeshSegment(String mesh, String relay) {
        assertEquals(relay, RelayUrl.ofMesh(URI.create(mesh)));
    }
}
