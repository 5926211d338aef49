package org.fleetmesh.nostr;

import java.util.Arrays;
import java.util.List;

/** Unsigned events with chosen field values: the spi types do not check ids or signatures. */
final class TestEvents {
    static final PubKey ALICE = pubkey(0xa1);
    static final PubKey BOB = pubkey(0xb0);

    private TestEvents() {
    }

    static byte[] filled(int length, int value) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) value);
        return b;
    }

    static EventId id(int fill) {
        return new EventId(filled(32, fill));
    }

    static PubKey pubkey(int fill) {
        return new PubKey(filled(32, fill));
    }

    static Signature sig() {
        return new Signature(filled(64, 0x55));
    }

    static Event event(EventId id, PubKey author, long createdAt, int kind, List<List<String>> tags, String content) {
        return new Event(id, author, createdAt, kind, tags, content, sig());
    }

    static Event event(long createdAt, int kind, List<List<String>> tags) {
        return event(id(0x11), ALICE, createdAt, kind, tags, "");
    }

    static Event withContent(String content) {
        return event(id(0x11), ALICE, 1700000000L, 1, List.of(), content);
    }
}
