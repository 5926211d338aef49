package org.fleetmesh.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** {@link DidResolver#isDid}: DID Core syntax by a loop, the language of the regex it replaces, on any length. */
class DidSyntaxTest {
    /** The regex GrantTerms used: right on short strings, a StackOverflowError on long ones. */
    private static final Pattern REFERENCE = Pattern.compile("did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2}|:)*"
            + "(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})");

    @Test
    void acceptsAndRefusesWhatTheDidCoreSyntaxDoes() {
        assertTrue(DidResolver.isDid("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", 2048));
        assertTrue(DidResolver.isDid("did:web:example.com%3A8443:user:alice", 2048));
        assertFalse(DidResolver.isDid("did:web:example.com:", 2048));
        assertFalse(DidResolver.isDid("did:Web:x", 2048));
        assertFalse(DidResolver.isDid("did::x", 2048));
        assertFalse(DidResolver.isDid("did:x:", 2048));
        assertFalse(DidResolver.isDid("did:x:a%4", 2048));
        assertFalse(DidResolver.isDid("did:x:a%g0", 2048));
        assertFalse(DidResolver.isDid("did:x:\u0663", 2048), "a non-ASCII digit");
        assertFalse(DidResolver.isDid("did:x:a%\u0663\u0663", 2048), "non-ASCII hex digits");
        assertFalse(DidResolver.isDid("did:\u0663:a", 2048), "a non-ASCII digit in the method");
        assertFalse(DidResolver.isDid(null, 2048));
        assertFalse(DidResolver.isDid("did:x:" + "a".repeat(100), 105));
        assertTrue(DidResolver.isDid("did:x:" + "a".repeat(99), 105));
    }

    @Test
    void agreesWithTheRegexOnRandomShortStrings() {
        Random random = new Random(4);
        String alphabet = "did:abcAZ09._-%:/#?\u0663 ";
        for (int n = 0; n < 50_000; n++) {
            StringBuilder sb = new StringBuilder(random.nextBoolean() ? "did:" : "");
            int len = random.nextInt(12);
            for (int i = 0; i < len; i++) {
                sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String s = sb.toString();
            assertEquals(REFERENCE.matcher(s).matches(), DidResolver.isDid(s, 2048), s);
        }
    }

    /** Fails on the regex: a 2048-character did:peer:4 overflows a small stack. */
    @Test
    void aLongFormOfTheLargestSizeIsCheckedOnASmallStack() throws InterruptedException {
        String did = "did:peer:4zQm" + "a".repeat(2048 - 13);
        AtomicReference<Object> result = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                result.set(DidResolver.isDid(did, 2048));
            } catch (StackOverflowError e) {
                result.set(e);
            }
        }, "small stack", 128 * 1024);
        t.start();
        t.join();
        assertEquals(Boolean.TRUE, result.get());
    }
}
