package org.fleetmesh.identity.didcomm;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * DIDComm Messaging v2 pack and unpack: plaintext, signed (EdDSA, ES256, ES384; ES256K read), anoncrypt
 * (ECDH-ES+A256KW) and authcrypt (ECDH-1PU+A256KW) over X25519, P-256 or P-384, and the nestings the spec allows.
 * Public keys come from a {@link KeyResolver}, private ones from the caller. Pure: values in, values out; randomness
 * comes from the {@link SecureRandom} given.
 */
public final class Didcomm {
    /**
     * Envelope nestings a single hop may carry, outermost first (DIDComm Messaging v2.1 §IANA Media Types), and
     * anoncrypt(authcrypt(sign)): the spec says senders MUST NOT use it, yet its own Appendix C.3 has a vector of it and
     * didcomm-rust writes it (protect_sender with sign_by), so it is read; it is never written here.
     */
    private static final Set<List<Protection>> ALLOWED = Set.of(
            List.of(),
            List.of(Protection.SIGNED),
            List.of(Protection.ANONCRYPT),
            List.of(Protection.AUTHCRYPT),
            List.of(Protection.ANONCRYPT, Protection.SIGNED),
            List.of(Protection.AUTHCRYPT, Protection.SIGNED),
            List.of(Protection.ANONCRYPT, Protection.AUTHCRYPT),
            List.of(Protection.ANONCRYPT, Protection.AUTHCRYPT, Protection.SIGNED));
    private static final int MAX_ENVELOPES = 3;
    private static final Set<KeyType> AGREEMENT_CURVES = Set.of(KeyType.X25519, KeyType.P256, KeyType.P384);

    private final KeyResolver keys;
    private final SecureRandom random;

    private Didcomm(KeyResolver keys, SecureRandom random) {
        this.keys = Objects.requireNonNull(keys, "keys");
        this.random = Objects.requireNonNull(random, "random");
    }

    public static Didcomm using(KeyResolver keys) {
        return new Didcomm(keys, new SecureRandom());
    }

    public static Didcomm using(KeyResolver keys, SecureRandom random) {
        return new Didcomm(keys, random);
    }

    /** The plaintext message as it is sent without envelope: compact JSON with {@code typ} set. */
    public static String packPlaintext(PlaintextMessage message) {
        return message.toJson();
    }

    /**
     * Signs {@code message} with the Ed25519 key {@code signerKid}, which must be in the {@code authentication} of
     * the message's {@code from} DID.
     *
     * @throws DidcommException SENDER_MISMATCH when {@code from} is absent or another DID; the {@link KeyResolver}
     *         errors; WRONG_KEY_TYPE when the key is not Ed25519
     * @throws IllegalArgumentException when {@code secret} is not the key {@code signerKid} names
     */
    public String packSigned(PlaintextMessage message, String signerKid, Ed25519Secret secret) throws DidcommException {
        requireFrom(message, signerKid, "signer");
        Multikey key = keys.authenticationKey(signerKid);
        requireType(key, KeyType.ED25519, signerKid, "signing");
        requireSame(key, secret, signerKid);
        return SignedMessage.sign(bytes(message), signerKid, secret).toJson();
    }

    /**
     * Signs {@code message} with the P-256 (ES256) or P-384 (ES384) key {@code signerKid}, which must be in the
     * {@code authentication} of the message's {@code from} DID; errors as the Ed25519 form.
     */
    public String packSigned(PlaintextMessage message, String signerKid, EcSecret secret) throws DidcommException {
        requireFrom(message, signerKid, "signer");
        Multikey key = keys.authenticationKey(signerKid);
        requireType(key, secret.publicKey().type(), signerKid, "signing");
        requireSame(key, secret, signerKid);
        return SignedMessage.sign(bytes(message), signerKid, secret).toJson();
    }

    /** Anoncrypt with A256CBC-HS512; see {@link #packAnoncrypt(PlaintextMessage, ContentEncryption, List)}. */
    public String packAnoncrypt(PlaintextMessage message, String... recipients) throws DidcommException {
        return packAnoncrypt(message, ContentEncryption.A256CBC_HS512, List.of(recipients));
    }

    /**
     * Encrypts {@code message} for {@code recipients} without naming a sender. Each recipient is a key id, or a
     * DID standing for its keyAgreement keys on one curve: those on the curve of its first X25519, P-256 or P-384 key
     * in document order. All must belong to one DID (a message for several DIDs is encrypted for each on its own),
     * which must be in the message's {@code to} when it has one, and all keys must be on one curve (WRONG_KEY_TYPE).
     */
    public String packAnoncrypt(PlaintextMessage message, ContentEncryption enc, List<String> recipients)
            throws DidcommException {
        List<RecipientKey> recipientKeys = recipientKeys(recipients, null);
        requireAddressed(message, recipientKeys);
        return EncryptedMessage.anoncrypt(bytes(message), recipientKeys, enc, random).toJson();
    }

    /**
     * Encrypts {@code message} for {@code recipients} (as in {@link #packAnoncrypt}) so that they, and only they,
     * can tell it came from {@code senderKid}, an X25519, P-256 or P-384 key in the keyAgreement of the message's
     * {@code from}. A DID recipient stands for its keyAgreement keys on the sender's curve; a kid on another curve is
     * WRONG_KEY_TYPE.
     *
     * @throws IllegalArgumentException when {@code sender} is not the key {@code senderKid} names
     */
    public String packAuthcrypt(PlaintextMessage message, String senderKid, KeyAgreementSecret sender,
            String... recipients) throws DidcommException {
        requireFrom(message, senderKid, "sender");
        Multikey senderKey = keys.keyAgreementKey(senderKid);
        requireType(senderKey, sender.publicKey().type(), senderKid, "key agreement");
        requireSame(senderKey, sender, senderKid);
        List<RecipientKey> recipientKeys = recipientKeys(List.of(recipients), senderKey.type());
        requireAddressed(message, recipientKeys);
        return EncryptedMessage.authcrypt(bytes(message), senderKid, sender, recipientKeys, random).toJson();
    }

    /**
     * Anoncrypt around a signed or authcrypted message: hides the signature, or the authcrypt {@code skid}, from
     * whoever carries the message (anoncrypt(sign(...)), anoncrypt(authcrypt(...))).
     */
    public String wrapAnoncrypt(String envelope, ContentEncryption enc, List<String> recipients) throws DidcommException {
        ObjectNode inner = DidcommJson.parseObject(envelope, "envelope to wrap");
        if (kindOf(inner) == MediaType.PLAIN) {
            throw new IllegalArgumentException("a plaintext message is anoncrypted with packAnoncrypt");
        }
        return EncryptedMessage.anoncrypt(DidcommJson.utf8(inner), recipientKeys(recipients, null), enc, random)
                .toJson();
    }

    /**
     * Opens every envelope of {@code message} down to the plaintext: decrypts with the first recipient kid that
     * {@code secrets} holds, resolves the authcrypt sender's and the signer's keys through the {@link KeyResolver},
     * verifies signatures, and checks the layers agree (DIDComm Messaging v2.1 §Message Layer Addressing
     * Consistency): {@code from} is the DID of the authcrypt sender and of the signer, and {@code to}, when present,
     * holds the DID each layer was encrypted for.
     *
     * @throws DidcommException for any envelope that does not open, and for any inconsistency between layers
     */
    public UnpackedMessage unpack(String message, SecretResolver secrets) throws DidcommException {
        ObjectNode json = DidcommJson.parseObject(message, "DIDComm message");
        List<Protection> envelopes = new ArrayList<>();
        List<String> decryptedWith = new ArrayList<>();
        String senderKid = null;
        String signerKid = null;
        String signed = null;
        while (true) {
            MediaType kind = kindOf(json);
            if (kind == MediaType.PLAIN) {
                break;
            }
            if (envelopes.size() == MAX_ENVELOPES) {
                throw DidcommException.malformed("more than " + MAX_ENVELOPES + " envelopes: " + envelopes + " around a "
                        + kind);
            }
            if (kind == MediaType.ENCRYPTED) {
                EncryptedMessage encrypted = EncryptedMessage.parse(json);
                HeldKey held = heldRecipient(encrypted, secrets);
                String kid = held.kid();
                KeyAgreementSecret secret = held.secret();
                Multikey senderKey = null;
                if (encrypted.algorithm() == EncryptedMessage.Algorithm.ECDH_1PU_A256KW) {
                    senderKid = encrypted.skid().orElseThrow();
                    senderKey = keys.keyAgreementKey(senderKid);
                    requireType(senderKey, encrypted.curve(), senderKid, "authcrypt sender");
                    envelopes.add(Protection.AUTHCRYPT);
                } else {
                    envelopes.add(Protection.ANONCRYPT);
                }
                decryptedWith.add(kid);
                json = DidcommJson.parseObject(encrypted.decrypt(kid, secret, senderKey), "decrypted payload");
            } else {
                SignedMessage signedMessage = SignedMessage.parse(json);
                signerKid = signedMessage.kid();
                signedMessage.verify(keys.authenticationKey(signerKid));
                envelopes.add(Protection.SIGNED);
                signed = DidcommJson.compact(json);
                json = DidcommJson.parseObject(signedMessage.payload(), "signed payload");
            }
        }
        if (!ALLOWED.contains(envelopes)) {
            throw DidcommException.malformed("the envelopes " + envelopes + " (outermost first) are not a combination"
                    + " DIDComm allows");
        }
        PlaintextMessage plaintext = PlaintextMessage.parse(json);
        if (senderKid != null) {
            requireFromReceived(plaintext, senderKid, "authcrypt sender (skid)");
        }
        if (signerKid != null) {
            requireFromReceived(plaintext, signerKid, "signer");
        }
        if (!plaintext.to().isEmpty()) {
            // a did:peer:4's long and short forms are one DID (its document's alsoKnownAs)
            Set<String> addressed = new LinkedHashSet<>();
            plaintext.to().forEach(t -> addressed.add(org.fleetmesh.identity.DidPeer4.shortFormOf(DidUrl.didOf(t))));
            for (String kid : decryptedWith) {
                if (!addressed.contains(org.fleetmesh.identity.DidPeer4.shortFormOf(DidUrl.didOf(kid)))) {
                    throw new DidcommException(DidcommException.Reason.RECIPIENT_MISMATCH, "encrypted for " + kid
                            + ", but 'to' is " + plaintext.to());
                }
            }
        }
        return new UnpackedMessage(plaintext, envelopes, Optional.ofNullable(senderKid), Optional.ofNullable(signerKid),
                decryptedWith, Optional.ofNullable(signed));
    }

    /** Which format a JSON object is, by its members: a JWE has ciphertext, a JWS payload and signature(s). */
    private static MediaType kindOf(ObjectNode json) {
        if (json.has("ciphertext")) {
            return MediaType.ENCRYPTED;
        }
        if (json.has("payload") && (json.has("signatures") || json.has("signature"))) {
            return MediaType.SIGNED;
        }
        return MediaType.PLAIN;
    }

    private record HeldKey(String kid, KeyAgreementSecret secret) {
    }

    /**
     * The first recipient, in the JWE's order, whose secret we hold; WRONG_KEY_TYPE when that secret cannot agree keys
     * or is not on the message's curve (the {@code epk}'s).
     */
    private static HeldKey heldRecipient(EncryptedMessage encrypted, SecretResolver secrets) throws DidcommException {
        for (String kid : encrypted.recipientKids()) {
            Optional<Secret> secret = secrets.secret(kid);
            if (secret.isPresent()) {
                if (!(secret.get() instanceof KeyAgreementSecret agreement)
                        || agreement.publicKey().type() != encrypted.curve()) {
                    throw new DidcommException(DidcommException.Reason.WRONG_KEY_TYPE, "the secret held for " + kid
                            + " is " + secret.get().publicKey().type() + ", the message agrees keys on "
                            + encrypted.curve());
                }
                return new HeldKey(kid, agreement);
            }
        }
        throw new DidcommException(DidcommException.Reason.UNKNOWN_KEY, "no secret is held for any recipient "
                + encrypted.recipientKids());
    }

    /**
     * Recipients as kids, all of one DID and all on one curve: {@code curve} (the authcrypt sender's) when given,
     * else the first key's. A DID stands for its keyAgreement keys on that curve, or, with no curve given yet, on the
     * curve of its first X25519, P-256 or P-384 key (keys on another curve would need an encryption of their own,
     * spec §Message Encryption).
     */
    private List<RecipientKey> recipientKeys(List<String> recipients, KeyType curve) throws DidcommException {
        if (recipients.isEmpty()) {
            throw new IllegalArgumentException("no recipients");
        }
        Map<String, RecipientKey> out = new LinkedHashMap<>();
        for (String r : recipients) {
            if (DidUrl.isKid(r)) {
                Multikey key = keys.keyAgreementKey(r);
                if (curve == null) {
                    requireAgreementType(key, r);
                    curve = key.type();
                }
                requireType(key, curve, r, "key agreement with the other keys");
                out.put(r, new RecipientKey(r, key));
            } else if (DidUrl.isDid(r)) {
                int before = out.size();
                for (String kid : keys.keyAgreementKids(r)) {
                    Optional<Multikey> key = agreementKeyOf(kid);
                    if (key.isPresent() && curve == null) {
                        curve = key.get().type();
                    }
                    if (key.isPresent() && key.get().type() == curve) {
                        out.put(kid, new RecipientKey(kid, key.get()));
                    }
                }
                if (out.size() == before) {
                    throw new DidcommException(DidcommException.Reason.UNKNOWN_KEY, r + " has no "
                            + (curve == null ? "X25519, P-256 or P-384" : curve.curve()) + " keyAgreement key");
                }
            } else {
                throw new IllegalArgumentException("a recipient is a DID or a kid (DID URL with a fragment), got '" + r + "'");
            }
        }
        Set<String> dids = new LinkedHashSet<>();
        out.keySet().forEach(k -> dids.add(DidUrl.didOf(k)));
        if (dids.size() > 1) {
            // spec §Message Encryption: a message for several DIDs is encrypted for each DID independently
            throw new IllegalArgumentException("recipients belong to several DIDs " + dids + "; pack once per DID");
        }
        return List.copyOf(out.values());
    }

    /** The key of {@code kid} when it is X25519, P-256 or P-384; empty for the key types not agreed with here. */
    private Optional<Multikey> agreementKeyOf(String kid) throws DidcommException {
        try {
            Multikey key = keys.keyAgreementKey(kid);
            return AGREEMENT_CURVES.contains(key.type()) ? Optional.of(key) : Optional.empty();
        } catch (DidcommException e) {
            if (e.reason() == DidcommException.Reason.UNSUPPORTED) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static void requireAddressed(PlaintextMessage message, List<RecipientKey> recipients) throws DidcommException {
        if (message.to().isEmpty()) {
            return;
        }
        String did = org.fleetmesh.identity.DidPeer4.shortFormOf(DidUrl.didOf(recipients.get(0).kid()));
        if (message.to().stream().noneMatch(t -> org.fleetmesh.identity.DidPeer4.shortFormOf(DidUrl.didOf(t)).equals(did))) {
            throw new DidcommException(DidcommException.Reason.RECIPIENT_MISMATCH, "encrypting for " + did
                    + ", but 'to' is " + message.to());
        }
    }

    private static void requireFrom(PlaintextMessage message, String kid, String role) throws DidcommException {
        String from = message.from().orElseThrow(() -> new DidcommException(DidcommException.Reason.SENDER_MISMATCH,
                "the message has no 'from', so cannot be sent by " + role + " " + kid));
        if (!DidUrl.didOf(from).equals(DidUrl.didOf(kid))) {
            throw new DidcommException(DidcommException.Reason.SENDER_MISMATCH, "'from' is " + from + " but the " + role
                    + " key " + kid + " is of another DID");
        }
    }

    private static void requireFromReceived(PlaintextMessage message, String kid, String role) throws DidcommException {
        String from = message.from().orElseThrow(() -> new DidcommException(DidcommException.Reason.SENDER_MISMATCH,
                "the plaintext has no 'from', but its " + role + " is " + kid));
        if (!DidUrl.didOf(from).equals(DidUrl.didOf(kid))) {
            throw new DidcommException(DidcommException.Reason.SENDER_MISMATCH, "'from' is " + from + " but the " + role
                    + " is " + kid);
        }
    }

    private static void requireAgreementType(Multikey key, String kid) throws DidcommException {
        if (!AGREEMENT_CURVES.contains(key.type())) {
            throw new DidcommException(DidcommException.Reason.WRONG_KEY_TYPE, kid + " is " + key.type()
                    + ", key agreement needs X25519, P-256 or P-384");
        }
    }

    private static void requireType(Multikey key, KeyType type, String kid, String use) throws DidcommException {
        if (key.type() != type) {
            throw new DidcommException(DidcommException.Reason.WRONG_KEY_TYPE, kid + " is " + key.type() + ", " + use
                    + " needs " + type);
        }
    }

    private static void requireSame(Multikey published, Secret secret, String kid) {
        if (!published.equals(secret.publicKey())) {
            throw new IllegalArgumentException("the secret given is not the key " + kid + " names in its DID document");
        }
    }

    private static byte[] bytes(PlaintextMessage message) {
        return message.toJson().getBytes(StandardCharsets.UTF_8);
    }
}
