package org.fleetmesh.identity.didcomm;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A DIDComm encrypted message (media type {@code application/didcomm-encrypted+json}): a JWE in General JSON
 * serialization (RFC 7516 §7.2.1) whose {@code alg}, {@code enc}, {@code epk}, {@code apv} (and for authcrypt
 * {@code skid}, {@code apu}) are common to all recipients and sit in the protected header, each recipient holding
 * only its {@code kid} and {@code encrypted_key} (DIDComm Messaging v2.1 §ECDH-1PU / ECDH-ES key wrapping and
 * common protected headers). Keys are X25519, P-256 or P-384 (§Curves and Content Encryption Algorithms), all of one
 * curve: the recipients', the ephemeral {@code epk}'s and, for authcrypt, the sender's. On a NIST curve Z is the
 * x-coordinate of the ECDH point, 32 (P-256) or 48 (P-384) bytes (RFC 7518 §4.6.2), and the {@code epk} is an EC JWK
 * whose point is checked to be on the curve.
 *
 * <ul>
 * <li>anoncrypt: ECDH-ES+A256KW (RFC 7518 §4.6), any {@link ContentEncryption}.</li>
 * <li>authcrypt: ECDH-1PU+A256KW (draft-madden-jose-ecdh-1pu-04) with A256CBC-HS512; the content is encrypted
 * first, because its tag is an input to each recipient's key derivation.</li>
 * </ul>
 */
public final class EncryptedMessage {
    private static final int KEK_BITS = 256;
    private static final Set<String> MEMBERS = Set.of("protected", "recipients", "iv", "ciphertext", "tag");

    /** The key management algorithm ({@code alg}). */
    public enum Algorithm {
        /** anoncrypt. */
        ECDH_ES_A256KW("ECDH-ES+A256KW"),
        /** authcrypt. */
        ECDH_1PU_A256KW("ECDH-1PU+A256KW");

        private final String jwaName;

        Algorithm(String jwaName) {
            this.jwaName = jwaName;
        }

        public String jwaName() {
            return jwaName;
        }

        static Optional<Algorithm> of(String alg) {
            for (Algorithm a : values()) {
                if (a.jwaName.equals(alg)) {
                    return Optional.of(a);
                }
            }
            return Optional.empty();
        }
    }

    private record Recipient(String kid, byte[] encryptedKey) {
    }

    private final String protectedHeader; // base64url as received: the AAD is exactly these characters
    private final Algorithm algorithm;
    private final ContentEncryption enc;
    private final Multikey epk;
    private final byte[] apu;
    private final byte[] apv;
    private final String skid;
    private final List<Recipient> recipients;
    private final byte[] iv;
    private final byte[] ciphertext;
    private final byte[] tag;

    private EncryptedMessage(String protectedHeader, Algorithm algorithm, ContentEncryption enc, Multikey epk,
            byte[] apu, byte[] apv, String skid, List<Recipient> recipients, byte[] iv, byte[] ciphertext, byte[] tag) {
        this.protectedHeader = protectedHeader;
        this.algorithm = algorithm;
        this.enc = enc;
        this.epk = epk;
        this.apu = apu;
        this.apv = apv;
        this.skid = skid;
        this.recipients = recipients;
        this.iv = iv;
        this.ciphertext = ciphertext;
        this.tag = tag;
    }

    /**
     * Anoncrypt: {@code payload} encrypted for every recipient, no sender named.
     *
     * @throws DidcommException WRONG_KEY_TYPE for a recipient key that is not X25519, P-256 or P-384, or for recipient
     *         keys of more than one curve; MALFORMED for an X25519 key of small order
     */
    public static EncryptedMessage anoncrypt(byte[] payload, List<RecipientKey> recipients, ContentEncryption enc,
            SecureRandom random) throws DidcommException {
        return encrypt(payload, Algorithm.ECDH_ES_A256KW, enc, null, null, recipients, random);
    }

    /**
     * Authcrypt: {@code payload} encrypted for every recipient with A256CBC-HS512, the sender's static key
     * {@code sender} (listed under {@code skid}) entering each key agreement.
     *
     * @throws DidcommException WRONG_KEY_TYPE as for {@link #anoncrypt}, and when the recipients' curve is not the
     *         sender's
     */
    public static EncryptedMessage authcrypt(byte[] payload, String skid, KeyAgreementSecret sender,
            List<RecipientKey> recipients, SecureRandom random) throws DidcommException {
        if (!DidUrl.isKid(skid)) {
            throw new IllegalArgumentException("skid is a DID URL with a fragment, got '" + skid + "'");
        }
        return encrypt(payload, Algorithm.ECDH_1PU_A256KW, ContentEncryption.A256CBC_HS512, skid, sender, recipients,
                random);
    }

    private static EncryptedMessage encrypt(byte[] payload, Algorithm algorithm, ContentEncryption enc, String skid,
            KeyAgreementSecret sender, List<RecipientKey> recipientKeys, SecureRandom random) throws DidcommException {
        if (recipientKeys.isEmpty()) {
            throw new IllegalArgumentException("an encrypted message needs at least one recipient");
        }
        List<String> kids = recipientKeys.stream().map(RecipientKey::kid).toList();
        if (new HashSet<>(kids).size() != kids.size()) {
            throw new IllegalArgumentException("recipient kids repeat: " + kids);
        }
        KeyType curve = recipientKeys.get(0).key().type();
        requireAgreementCurve(curve, "recipient " + recipientKeys.get(0).kid());
        for (RecipientKey r : recipientKeys) {
            if (r.key().type() != curve) {
                // spec §ECDH-1PU key wrapping and common protected headers: one epk, so one curve for all recipients
                throw new DidcommException(DidcommException.Reason.WRONG_KEY_TYPE, "recipient " + r.kid() + " is "
                        + r.key().type() + " and " + recipientKeys.get(0).kid() + " is " + curve
                        + ": the recipients of one message share one key agreement curve");
            }
        }
        if (sender != null && sender.publicKey().type() != curve) {
            throw new DidcommException(DidcommException.Reason.WRONG_KEY_TYPE, "the sender " + skid + " is "
                    + sender.publicKey().type() + ", the recipients " + curve + ": authcrypt agrees keys on one curve");
        }
        KeyAgreementSecret ephemeral = curve == KeyType.X25519 ? X25519Secret.generate(random)
                : EcSecret.generate(curve, random);
        byte[] apv = apv(kids);
        byte[] apu = skid == null ? new byte[0] : skid.getBytes(StandardCharsets.UTF_8);

        ObjectNode header = DidcommJson.object();
        header.put("typ", MediaType.ENCRYPTED.value());
        header.put("alg", algorithm.jwaName());
        header.put("enc", enc.jwaName());
        if (skid != null) {
            header.put("skid", skid);
            header.put("apu", Base64Url.encode(apu));
        }
        header.put("apv", Base64Url.encode(apv));
        header.set("epk", Jwk.of(ephemeral.publicKey()));
        String protectedHeader = Base64Url.encode(DidcommJson.utf8(header));

        byte[] cek = new byte[enc.keyLength()];
        random.nextBytes(cek);
        byte[] iv = new byte[enc.ivLength()];
        random.nextBytes(iv);
        ContentEncryption.Sealed sealed = enc.encrypt(cek, iv, protectedHeader.getBytes(StandardCharsets.US_ASCII), payload);

        List<Recipient> recipients = new ArrayList<>();
        for (RecipientKey r : recipientKeys) {
            byte[] z = agree(ephemeral, r.key(), "recipient key " + r.kid());
            if (sender != null) {
                z = concat(z, agree(sender, r.key(), "recipient key " + r.kid()));
            }
            byte[] kek = ConcatKdf.derive(z, KEK_BITS, algorithm.jwaName(), apu, apv,
                    algorithm == Algorithm.ECDH_1PU_A256KW ? sealed.tag() : null);
            recipients.add(new Recipient(r.kid(), AesKeyWrap.wrap(kek, cek)));
        }
        return new EncryptedMessage(protectedHeader, algorithm, enc, ephemeral.publicKey(), apu, apv, skid,
                List.copyOf(recipients), iv, sealed.ciphertext(), sealed.tag());
    }

    /** X25519 or ECDH: Z for one pair of keys, {@code peer} on {@code secret}'s curve (else WRONG_KEY_TYPE). */
    private static byte[] agree(KeyAgreementSecret secret, Multikey peer, String what) throws DidcommException {
        if (secret instanceof X25519Secret x25519) {
            return x25519.agree(peer, what);
        }
        return ((EcSecret) secret).agree(peer, what);
    }

    private static void requireAgreementCurve(KeyType type, String what) throws DidcommException {
        if (type != KeyType.X25519 && NistCurve.of(type).isEmpty()) {
            throw new DidcommException(DidcommException.Reason.WRONG_KEY_TYPE, what + " is " + type
                    + ", key agreement needs X25519, P-256 or P-384");
        }
    }

    /**
     * {@code apv}: SHA-256 of the recipients' kids, sorted and joined with '.', so that the key derivation commits
     * to the full recipient list.
     */
    static byte[] apv(List<String> kids) {
        List<String> sorted = new ArrayList<>(kids);
        sorted.sort(null);
        return ConcatKdf.sha256().digest(String.join(".", sorted).getBytes(StandardCharsets.UTF_8));
    }

    public Algorithm algorithm() {
        return algorithm;
    }

    public ContentEncryption contentEncryption() {
        return enc;
    }

    /** The key agreement curve, the {@code epk}'s: X25519, P-256 or P-384. Recipients and sender keys are on it. */
    public KeyType curve() {
        return epk.type();
    }

    /** The authcrypt sender's key id: {@code skid}, or {@code apu} decoded when {@code skid} is absent. */
    public Optional<String> skid() {
        return Optional.ofNullable(skid);
    }

    /** The recipients' kids, in the order of the {@code recipients} array. */
    public List<String> recipientKids() {
        return recipients.stream().map(Recipient::kid).toList();
    }

    /**
     * Decrypts for the recipient {@code kid}. For authcrypt, {@code senderKey} is the key {@link #skid()} names,
     * resolved by the caller; for anoncrypt it is ignored.
     *
     * @throws DidcommException UNKNOWN_KEY when {@code kid} is not a recipient, WRONG_KEY_TYPE for a secret or
     *         sender key not on the {@link #curve()}, DECRYPTION_FAILED when the key does not unwrap or the tag does
     *         not verify
     */
    public byte[] decrypt(String kid, KeyAgreementSecret secret, Multikey senderKey) throws DidcommException {
        Recipient recipient = recipients.stream().filter(r -> r.kid().equals(kid)).findFirst()
                .orElseThrow(() -> new DidcommException(DidcommException.Reason.UNKNOWN_KEY, kid
                        + " is not among the recipients " + recipientKids()));
        if (secret.publicKey().type() != epk.type()) {
            throw new DidcommException(DidcommException.Reason.WRONG_KEY_TYPE, "the secret held for " + kid + " is "
                    + secret.publicKey().type() + ", the message agrees keys on " + epk.type());
        }
        byte[] z = agree(secret, epk, "epk");
        if (algorithm == Algorithm.ECDH_1PU_A256KW) {
            if (senderKey == null) {
                throw new IllegalArgumentException("authcrypt needs the sender's key to decrypt");
            }
            z = concat(z, agree(secret, senderKey, "sender key " + skid));
        }
        byte[] kek = ConcatKdf.derive(z, KEK_BITS, algorithm.jwaName(), apu, apv,
                algorithm == Algorithm.ECDH_1PU_A256KW ? tag : null);
        byte[] cek = AesKeyWrap.unwrap(kek, recipient.encryptedKey(), kid);
        if (cek.length != enc.keyLength()) {
            throw new DidcommException(DidcommException.Reason.DECRYPTION_FAILED, "the content key for " + kid + " is "
                    + cek.length + " bytes, " + enc.jwaName() + " needs " + enc.keyLength());
        }
        return enc.decrypt(cek, iv, protectedHeader.getBytes(StandardCharsets.US_ASCII), ciphertext, tag);
    }

    public ObjectNode toJsonNode() {
        ObjectNode o = DidcommJson.object();
        o.put("protected", protectedHeader);
        ArrayNode rs = o.putArray("recipients");
        for (Recipient r : recipients) {
            ObjectNode entry = rs.addObject();
            entry.putObject("header").put("kid", r.kid());
            entry.put("encrypted_key", Base64Url.encode(r.encryptedKey()));
        }
        o.put("iv", Base64Url.encode(iv));
        o.put("ciphertext", Base64Url.encode(ciphertext));
        o.put("tag", Base64Url.encode(tag));
        return o;
    }

    public String toJson() {
        return DidcommJson.compact(toJsonNode());
    }

    public static EncryptedMessage parse(String json) throws DidcommException {
        return parse(DidcommJson.parseObject(json, "encrypted message"));
    }

    /**
     * Reads a JWE in General JSON serialization and checks everything that does not need a key: the algorithms,
     * the {@code epk}, that {@code apv} commits to exactly the listed recipients, that {@code apu} is the
     * {@code skid}, and the lengths of iv, tag and each encrypted_key.
     */
    public static EncryptedMessage parse(ObjectNode jwe) throws DidcommException {
        String where = "encrypted message";
        if (jwe.has("encrypted_key") || jwe.has("header")) {
            throw DidcommException.unsupported(where + " is in flattened JSON serialization; DIDComm uses the General form");
        }
        for (Map.Entry<String, JsonNode> member : jwe.properties()) {
            if (!MEMBERS.contains(member.getKey())) {
                // unprotected or aad headers would let a relay add unauthenticated parameters
                throw DidcommException.unsupported(where + " member '" + member.getKey() + "' is not used by DIDComm");
            }
        }
        String protectedHeader = DidcommJson.requireString(jwe, "protected", where);
        ObjectNode header = DidcommJson.parseObject(Base64Url.decode(protectedHeader, "protected header"),
                "protected header");
        String hw = "protected header";

        Optional<String> typ = DidcommJson.optionalString(header, "typ", hw);
        if (typ.isPresent() && MediaType.of(typ.get()).orElse(null) != MediaType.ENCRYPTED) {
            throw DidcommException.malformed(hw + " typ must be " + MediaType.ENCRYPTED + ", got '" + typ.get() + "'");
        }
        for (String refused : List.of("crit", "zip", "jku", "jwk", "x5u", "x5c")) {
            if (header.has(refused)) {
                throw DidcommException.unsupported(hw + " '" + refused + "' is not supported");
            }
        }
        String alg = DidcommJson.requireString(header, "alg", hw);
        Algorithm algorithm = Algorithm.of(alg).orElseThrow(() -> DidcommException.unsupported(hw + " alg '" + alg
                + "'; ECDH-ES+A256KW and ECDH-1PU+A256KW are supported"));
        String encName = DidcommJson.requireString(header, "enc", hw);
        ContentEncryption enc = ContentEncryption.of(encName).orElseThrow(() -> DidcommException.unsupported(hw
                + " enc '" + encName + "'; A256CBC-HS512, A256GCM and XC20P are supported"));
        if (algorithm == Algorithm.ECDH_1PU_A256KW && enc != ContentEncryption.A256CBC_HS512) {
            // 1PU's key wrapping mode is only proven secure with a content encryption that commits to its key
            throw DidcommException.unsupported(hw + " ECDH-1PU needs A256CBC-HS512 (draft-04 §2.1), got " + encName);
        }
        Multikey epk = Jwk.publicKey(DidcommJson.requireObject(header, "epk", hw), hw + " epk");
        requireAgreementCurve(epk.type(), hw + " epk");
        if (DidcommJson.requireObject(header, "epk", hw).has("d")) {
            throw DidcommException.malformed(hw + " epk carries a private key 'd'");
        }
        byte[] apv = Base64Url.decode(DidcommJson.requireString(header, "apv", hw), hw + " apv");
        Optional<String> apuText = DidcommJson.optionalString(header, "apu", hw);
        byte[] apu = apuText.isPresent() ? Base64Url.decode(apuText.get(), hw + " apu") : new byte[0];
        Optional<String> skidHeader = DidcommJson.optionalString(header, "skid", hw);
        String skid = null;
        if (algorithm == Algorithm.ECDH_1PU_A256KW) {
            if (apuText.isEmpty()) {
                throw DidcommException.malformed(hw + " authcrypt needs 'apu', base64url of the sender's kid");
            }
            String apuKid = DidcommJson.decodeUtf8(apu, hw + " apu");
            if (skidHeader.isPresent() && !skidHeader.get().equals(apuKid)) {
                throw new DidcommException(DidcommException.Reason.SENDER_MISMATCH, hw + " skid '" + skidHeader.get()
                        + "' is not the kid in apu '" + apuKid + "'");
            }
            skid = skidHeader.orElse(apuKid); // the spec's fallback when skid is absent
            if (!DidUrl.isKid(skid)) {
                throw DidcommException.malformed(hw + " skid must be a DID URL with a fragment, got '" + skid + "'");
            }
        } else if (skidHeader.isPresent()) {
            throw DidcommException.malformed(hw + " anoncrypt (ECDH-ES) names no sender, but has skid");
        }

        JsonNode rs = jwe.get("recipients");
        if (rs == null || !rs.isArray() || rs.isEmpty()) {
            throw DidcommException.malformed(where + " needs a non-empty 'recipients' array");
        }
        List<Recipient> recipients = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        int i = 0;
        for (JsonNode r : rs) {
            String rw = "recipient " + i++;
            if (!r.isObject()) {
                throw DidcommException.malformed(rw + " must be an object");
            }
            ObjectNode rh = DidcommJson.requireObject((ObjectNode) r, "header", rw);
            String kid = DidcommJson.requireString(rh, "kid", rw + " header");
            if (rh.size() != 1 || ((ObjectNode) r).size() != 2) {
                throw DidcommException.malformed(rw + " holds only header.kid and encrypted_key in DIDComm");
            }
            if (!DidUrl.isKid(kid)) {
                throw DidcommException.malformed(rw + " kid must be a DID URL with a fragment, got '" + kid + "'");
            }
            if (!seen.add(kid)) {
                throw DidcommException.malformed(where + " lists recipient " + kid + " twice");
            }
            byte[] encryptedKey = Base64Url.decode(DidcommJson.requireString((ObjectNode) r, "encrypted_key", rw),
                    rw + " encrypted_key");
            if (encryptedKey.length != enc.keyLength() + 8) {
                throw DidcommException.malformed(rw + " encrypted_key is " + encryptedKey.length + " bytes; A256KW of a "
                        + enc.keyLength() + "-byte " + enc.jwaName() + " key is " + (enc.keyLength() + 8));
            }
            recipients.add(new Recipient(kid, encryptedKey));
        }
        if (!MessageDigest.isEqual(apv, apv(recipients.stream().map(Recipient::kid).toList()))) {
            throw DidcommException.malformed(hw + " apv is not SHA-256 of the sorted recipient kids: the recipients"
                    + " list was altered");
        }
        byte[] iv = Base64Url.decode(DidcommJson.requireString(jwe, "iv", where), "iv");
        if (iv.length != enc.ivLength()) {
            throw DidcommException.malformed("iv is " + iv.length + " bytes, " + enc.jwaName() + " uses " + enc.ivLength());
        }
        byte[] ciphertext = Base64Url.decode(DidcommJson.requireString(jwe, "ciphertext", where), "ciphertext");
        byte[] tag = Base64Url.decode(DidcommJson.requireString(jwe, "tag", where), "tag");
        if (tag.length != enc.tagLength()) {
            throw DidcommException.malformed("tag is " + tag.length + " bytes, " + enc.jwaName() + " uses " + enc.tagLength());
        }
        return new EncryptedMessage(protectedHeader, algorithm, enc, epk, apu, apv, skid, List.copyOf(recipients), iv,
                ciphertext, tag);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Override
    public String toString() {
        return "EncryptedMessage[" + algorithm.jwaName() + ", " + enc.jwaName() + (skid != null ? ", skid " + skid : "")
                + ", to " + recipientKids() + "]";
    }
}
