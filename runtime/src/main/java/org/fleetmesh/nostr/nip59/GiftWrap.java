package org.fleetmesh.nostr.nip59;

import java.math.BigInteger;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;

import org.bouncycastle.crypto.signers.BIP340Signer;
import org.fleetmesh.nostr.Event;
import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Events;
import org.fleetmesh.nostr.MessageParser;
import org.fleetmesh.nostr.ProtocolException;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.nostr.Schnorr;
import org.fleetmesh.nostr.Signature;
import org.fleetmesh.nostr.nip44.ConversationKey;
import org.fleetmesh.nostr.nip44.Nip44;
import org.fleetmesh.nostr.nip44.Nip44Exception;

/**
 * NIP-59 gift wrap: a {@link Rumor} encrypted into a kind-13 seal signed by its author, the seal
 * encrypted into a kind-1059 gift wrap signed by a one-time key and addressed with a {@code p} tag.
 */
public final class GiftWrap {
    public static final int SEAL_KIND = 13;
    public static final int GIFT_WRAP_KIND = 1059;
    public static final int EPHEMERAL_GIFT_WRAP_KIND = 21059;
    /** Seal and wrap timestamps are drawn from the past two days, so they do not date the rumor. */
    public static final long TIMESTAMP_WINDOW_SECONDS = 2 * 24 * 60 * 60;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final BigInteger CURVE_ORDER = BIP340Signer.getDomain().getN();
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);

    /** What an opened gift wrap holds; {@code author} signed {@code seal} and is the rumor's pubkey. */
    public record Opened(Rumor rumor, PubKey author, Event seal) {
    }

    private GiftWrap() {
    }

    /** Seals and wraps {@code rumor} for {@code recipient} with the system clock and a CSPRNG. */
    public static Event wrap(Rumor rumor, byte[] authorSecret, PubKey recipient) {
        return wrap(rumor, authorSecret, recipient, Clock.systemUTC(), RANDOM);
    }

    /**
     * Seals and wraps {@code rumor} for {@code recipient}; {@code random} supplies the one-time key,
     * the NIP-44 nonces, the signatures' auxiliary randomness and the timestamp offsets.
     *
     * @throws IllegalArgumentException if the rumor's id is wrong, its pubkey is not the author's, or
     *         a key is not a valid secp256k1 key
     */
    public static Event wrap(Rumor rumor, byte[] authorSecret, PubKey recipient, Clock clock, SecureRandom random) {
        if (authorSecret.length != 32 || !isSecretKey(authorSecret)) {
            throw new IllegalArgumentException("author secret key is not a secp256k1 scalar in [1, n-1]");
        }
        PubKey author = new PubKey(Schnorr.publicKey(authorSecret));
        if (!rumor.pubkey().equals(author)) {
            // the recipient would refuse it as impersonation; say so here instead
            throw new IllegalArgumentException("rumor pubkey " + rumor.pubkey() + " is not the author's key " + author);
        }
        if (!rumor.hasValidId()) {
            throw new IllegalArgumentException("rumor id " + rumor.id() + " is not the NIP-01 id of its fields");
        }
        return wrapSeal(seal(rumor, authorSecret, recipient, clock, random), recipient, clock, random);
    }

    /** A kind-13 seal of {@code rumor}, signed with {@code signerSecret}, with no tags. */
    static Event seal(Rumor rumor, byte[] signerSecret, PubKey recipient, Clock clock, SecureRandom random) {
        String content = Nip44.encrypt(rumor.json(), conversationKey(signerSecret, recipient), nonce(random));
        return sign(signerSecret, pastTimestamp(clock, random), SEAL_KIND, List.of(), content, random);
    }

    /** A kind-1059 gift wrap of {@code seal}, signed by a fresh one-time key. */
    static Event wrapSeal(Event seal, PubKey recipient, Clock clock, SecureRandom random) {
        byte[] oneTime = newSecretKey(random);
        try {
            String content = Nip44.encrypt(seal.json(), conversationKey(oneTime, recipient), nonce(random));
            return sign(oneTime, pastTimestamp(clock, random), GIFT_WRAP_KIND, List.of(List.of("p", recipient.hex())),
                    content, random);
        } finally {
            Arrays.fill(oneTime, (byte) 0); // whoever holds it could link this wrap to the seal's author
        }
    }

    /**
     * Opens a gift wrap with its recipient's secret key: checks the wrap's signature, decrypts the seal,
     * checks the seal's kind, signature and empty tags, decrypts the rumor, and checks that the rumor's
     * pubkey is the seal's signer and that its id is right.
     */
    public static Opened open(Event wrap, byte[] recipientSecret) throws GiftWrapException {
        if (wrap.kind() != GIFT_WRAP_KIND && wrap.kind() != EPHEMERAL_GIFT_WRAP_KIND) {
            throw new GiftWrapException("not a gift wrap: kind " + wrap.kind() + ", expected " + GIFT_WRAP_KIND
                    + " or " + EPHEMERAL_GIFT_WRAP_KIND);
        }
        String wrapProblem = Events.verify(wrap);
        if (wrapProblem != null) {
            throw new GiftWrapException("gift wrap is not authentic (" + wrapProblem + ")");
        }
        String sealJson = decrypt(wrap.content(), recipientSecret, wrap.pubkey(), "gift wrap");

        Event seal;
        try {
            seal = PARSER.parseEvent(sealJson);
        } catch (ProtocolException e) {
            throw new GiftWrapException("seal is not a valid event (" + e.getMessage() + ")");
        }
        if (seal.kind() != SEAL_KIND) {
            throw new GiftWrapException("seal has kind " + seal.kind() + ", expected " + SEAL_KIND);
        }
        String sealProblem = Events.verify(seal);
        if (sealProblem != null) {
            throw new GiftWrapException("seal is not authentic (" + sealProblem + ")");
        }
        if (!seal.tags().isEmpty()) {
            throw new GiftWrapException("seal has tags; NIP-59 requires a seal's tags to be empty");
        }
        Rumor rumor = Rumor.fromJson(decrypt(seal.content(), recipientSecret, seal.pubkey(), "seal"));
        if (!rumor.pubkey().equals(seal.pubkey())) {
            throw new GiftWrapException("rumor claims author " + rumor.pubkey() + " but the seal is signed by "
                    + seal.pubkey());
        }
        if (!rumor.hasValidId()) {
            throw new GiftWrapException("rumor id " + rumor.id() + " is not the NIP-01 id of its fields");
        }
        return new Opened(rumor, seal.pubkey(), seal);
    }

    private static String decrypt(String payload, byte[] recipientSecret, PubKey sender, String layer)
            throws GiftWrapException {
        try {
            return Nip44.decrypt(payload, ConversationKey.of(recipientSecret, sender));
        } catch (Nip44Exception e) {
            throw new GiftWrapException("cannot decrypt the " + layer + ": " + e.getMessage());
        }
    }

    private static ConversationKey conversationKey(byte[] secret, PubKey peer) {
        try {
            return ConversationKey.of(secret, peer);
        } catch (Nip44Exception e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    private static byte[] nonce(SecureRandom random) {
        byte[] nonce = new byte[32];
        random.nextBytes(nonce);
        return nonce;
    }

    /** Strictly in the past, at most two days ago: some relays refuse events from the future. */
    static long pastTimestamp(Clock clock, SecureRandom random) {
        return clock.instant().getEpochSecond() - 1 - random.nextInt((int) TIMESTAMP_WINDOW_SECONDS);
    }

    private static byte[] newSecretKey(SecureRandom random) {
        while (true) {
            byte[] k = new byte[32];
            random.nextBytes(k);
            if (isSecretKey(k)) {
                return k;
            }
        }
    }

    private static boolean isSecretKey(byte[] k) {
        BigInteger v = new BigInteger(1, k);
        return v.signum() > 0 && v.compareTo(CURVE_ORDER) < 0;
    }

    private static Event sign(byte[] secret, long createdAt, int kind, List<List<String>> tags, String content,
            SecureRandom random) {
        PubKey pubkey = new PubKey(Schnorr.publicKey(secret));
        EventId id = Events.computeId(pubkey, createdAt, kind, tags, content);
        byte[] aux = new byte[32];
        random.nextBytes(aux);
        return new Event(id, pubkey, createdAt, kind, tags, content, new Signature(Schnorr.sign(id.unsafeBytes(), secret, aux)));
    }
}
