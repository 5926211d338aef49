package org.fleetmesh.relay.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class ClientAddressTest {
    final ClientAddress proxied = new ClientAddress(Set.of("127.0.0.1", "10.0.0.2"), "X-Forwarded-For");

    @Test
    void withoutTrustedProxiesTheTcpPeerIsTheClient() {
        assertEquals("203.0.113.5", ClientAddress.DIRECT.of("203.0.113.5:40000", List.of("198.51.100.1")));
    }

    @Test
    void theHeaderIsBelievedOnlyFromATrustedProxy() {
        assertEquals("198.51.100.1", proxied.of("127.0.0.1:40000", List.of("198.51.100.1")));
        assertEquals("203.0.113.5", proxied.of("203.0.113.5:40000", List.of("198.51.100.1")), "not a proxy: header ignored");
        assertEquals("127.0.0.1", proxied.of("127.0.0.1:40000", List.of()), "no header: the proxy itself");
    }

    @Test
    void theRightmostAddressNoTrustedProxyVouchesForWins() {
        // the client wrote "1.1.1.1" itself; the outer proxy 10.0.0.2 appended the address it saw
        assertEquals("198.51.100.7", proxied.of("127.0.0.1:1", List.of("1.1.1.1, 198.51.100.7, 10.0.0.2")));
        assertEquals("198.51.100.7", proxied.of("127.0.0.1:1", List.of("1.1.1.1", "198.51.100.7")));
        assertEquals("127.0.0.1", proxied.of("127.0.0.1:1", List.of("1.1.1.1, not-an-ip")), "garbage: the proxy's own");
        assertEquals("127.0.0.1", proxied.of("127.0.0.1:1", List.of("example.org")), "never a DNS name");
    }

    @Test
    void ipv6IsKeyedByItsSlash64() {
        assertEquals("2001:db8:1:2::/64", ClientAddress.DIRECT.of("[2001:db8:1:2:aaaa::1]:443", List.of()));
        assertEquals("2001:db8:1:2::/64", ClientAddress.DIRECT.of("2001:db8:1:2:0:0:0:9:443", List.of()));
        assertEquals("2001:db8:1:2::/64", proxied.of("127.0.0.1:1", List.of("2001:db8:1:2::77")));
    }

    @Test
    void aConnectionIsKeyedByItsPeerAndLoopbackAndTrustedProxiesByNone() {
        ClientAddress proxied = new ClientAddress(Set.of("10.0.0.9"), "X-Forwarded-For");
        assertEquals("198.51.100.7", proxied.connectionKey("198.51.100.7:5000"));
        assertEquals("2001:db8:1:2::/64", proxied.connectionKey("[2001:db8:1:2:aaaa::1]:443"));
        assertEquals(null, proxied.connectionKey("10.0.0.9:5000"), "a trusted proxy carries many clients");
        assertEquals(null, proxied.connectionKey("127.0.0.1:5000"));
        assertEquals(null, proxied.connectionKey("0:0:0:0:0:0:0:1:5000"));
        assertEquals("unknown", proxied.connectionKey(null));
    }

    @Test
    void trustedProxiesMustBeAddresses() {
        assertThrows(IllegalArgumentException.class, () -> new ClientAddress(Set.of("proxy.example"), "X-Forwarded-For"));
    }
}
