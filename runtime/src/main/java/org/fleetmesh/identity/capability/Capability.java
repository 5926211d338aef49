package org.fleetmesh.identity.capability;

import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.List;

import org.biscuitsec.biscuit.error.Error;
import org.biscuitsec.biscuit.token.UnverifiedBiscuit;
import org.biscuitsec.biscuit.token.builder.Block;

import org.fleetmesh.identity.capability.CapabilityException.Reason;

/**
 * What a holder does with a token it was given, offline and without the node's key: read its revocation ids and
 * attenuate it. A token is a Biscuit v2 token in base64url (RFC 4648 §5, padded); see docs/spec/capabilities.md.
 */
public final class Capability {
    /** Longest token a verifier reads: a token grows by about 250 characters a block, of which it has at most 16. */
    public static final int MAX_TOKEN_CHARS = 16 * 1024;

    private Capability() {
    }

    /**
     * A new token with one more block holding {@code narrower}'s checks, signed with the token's proof key. Anyone
     * who can verify the original can verify the result; it allows at most what the original allows. The
     * signature chain is not checked here (a holder may not know the root key): a forged token stays forged.
     *
     * @throws CapabilityException malformed, when {@code token} cannot be read, is sealed or is outside the
     *         fleetmesh profile; too complex, when the result would have more blocks or checks than verifiers take
     * @throws IllegalArgumentException when {@code narrower} has no checks
     */
    public static String attenuate(String token, Attenuation narrower) {
        if (narrower.isEmpty()) {
            throw new IllegalArgumentException("an attenuation adds at least one check");
        }
        UnverifiedBiscuit biscuit = unverified(token);
        Block block = new Block();
        narrower.checks().forEach(c -> block.add_check(Vocabulary.parseCheck(c)));
        String narrowed;
        try {
            narrowed = biscuit.attenuate(block).serialize_b64url();
        } catch (Error e) {
            throw new CapabilityException(Reason.MALFORMED, "cannot append a block to this token: " + describe(e), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 signing is unavailable", e);
        }
        // fail here rather than at every verifier: too many blocks or checks, or a holder's facts upstream
        TokenShape.check(decode(narrowed));
        return narrowed;
    }

    /** The revocation ids of every block, authority first, read without verifying signatures. */
    public static List<RevocationId> revocationIds(String token) {
        return ids(unverified(token));
    }

    /** The authority block's revocation id: the id of the token as issued, shared by all its attenuations. */
    public static RevocationId tokenId(String token) {
        return revocationIds(token).get(0);
    }

    static List<RevocationId> ids(UnverifiedBiscuit biscuit) {
        return biscuit.revocation_identifiers().stream().map(r -> RevocationId.of(r.getBytes())).toList();
    }

    /** The bytes of a token, within the size limit. */
    static byte[] decode(String token) {
        if (token == null || token.isEmpty()) {
            throw new CapabilityException(Reason.MALFORMED, "no token");
        }
        if (token.length() > MAX_TOKEN_CHARS) {
            throw new CapabilityException(Reason.MALFORMED,
                    "token is " + token.length() + " characters, more than " + MAX_TOKEN_CHARS);
        }
        try {
            return Base64.getUrlDecoder().decode(token.strip());
        } catch (IllegalArgumentException e) {
            throw new CapabilityException(Reason.MALFORMED, "token is not base64url: " + e.getMessage(), e);
        }
    }

    private static UnverifiedBiscuit unverified(String token) {
        byte[] bytes = decode(token);
        try {
            return UnverifiedBiscuit.from_bytes(bytes);
        } catch (Error e) {
            throw new CapabilityException(Reason.MALFORMED, "not a Biscuit token: " + describe(e), e);
        } catch (RuntimeException e) {
            // protobuf and the key decoder throw unchecked exceptions on some damaged inputs
            throw new CapabilityException(Reason.MALFORMED, "not a Biscuit token: " + e, e);
        }
    }

    /** A Biscuit error in a line, as the library prints it, e.g. {@code Err(Format(Signature(InvalidFormat)))}. */
    static String describe(Error e) {
        return e.toString();
    }
}
