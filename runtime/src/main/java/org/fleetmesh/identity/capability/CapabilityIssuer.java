package org.fleetmesh.identity.capability;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

import org.biscuitsec.biscuit.crypto.KeyPair;
import org.biscuitsec.biscuit.error.Error;
import org.biscuitsec.biscuit.token.Biscuit;
import org.biscuitsec.biscuit.token.builder.Utils;

import org.fleetmesh.identity.Multikey;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.NodeSecrets;
import org.fleetmesh.identity.SecretKey;

/**
 * Issues capability tokens rooted in the node's Ed25519 transport key (design brief §4). The key is held only
 * inside the Biscuit key pair; this class never prints or returns it. Thread-safe.
 */
public final class CapabilityIssuer {
    private final KeyPair root;
    private final Multikey rootPublicKey;
    private final String issuer;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param rootKey the Ed25519 secret key (the RFC 8032 32-byte seed)
     * @param issuer the node's DID, written into every token as {@code issuer}
     */
    public CapabilityIssuer(SecretKey rootKey, String issuer) {
        this.issuer = Vocabulary.text(issuer, "issuer");
        byte[] seed = rootKey.bytes();
        try {
            // the key pair keeps its own expanded key; the seed copy is not needed after this
            this.root = new KeyPair(seed);
        } finally {
            Arrays.fill(seed, (byte) 0);
        }
        this.rootPublicKey = Multikey.ed25519(root.public_key().toBytes());
    }

    /**
     * The issuer of a node: its transport key, and its DID in the did:peer:4 short form (the long form would add
     * kilobytes to every token; verifiers that need the long form hold it already).
     *
     * @throws IllegalArgumentException when the document is not the one of these keys
     */
    public static CapabilityIssuer forNode(NodeSecrets secrets, NodeDidDocument node) {
        if (!secrets.publicKeys().transport().equals(node.keys().transport())) {
            throw new IllegalArgumentException("the DID document's transport key " + node.keys().transport()
                    + " is not the one of the node's secret transport key");
        }
        return new CapabilityIssuer(secrets.transport(), node.shortForm());
    }

    /**
     * A token for {@code subject} with {@code rights}, refused by verifiers after {@code expiry} (whole seconds,
     * rounded down). Its authority block is, in this order: {@code issuer}, {@code subject}, one {@code right}
     * fact per right, {@code fuel_limit} when compute is granted, and the expiry check.
     *
     * @param subject the holder's DID or public key
     * @return the token, base64url
     */
    public String issue(String subject, Rights rights, Instant expiry) {
        Objects.requireNonNull(rights, "rights");
        String expiryCheck = Vocabulary.expiryCheck(Objects.requireNonNull(expiry, "expiry"));
        try {
            org.biscuitsec.biscuit.token.builder.Biscuit token = Biscuit.builder(random, root);
            token.add_authority_fact(Vocabulary.fact(Vocabulary.ISSUER, Utils.string(issuer)));
            token.add_authority_fact(Vocabulary.fact(Vocabulary.SUBJECT, Utils.string(Vocabulary.text(subject, "subject"))));
            for (Right right : rights.rights()) {
                token.add_authority_fact(Vocabulary.fact(Vocabulary.RIGHT, Utils.string(right.value())));
            }
            if (rights.fuelLimit().isPresent()) {
                token.add_authority_fact(Vocabulary.fact(Vocabulary.FUEL_LIMIT, Utils.integer(rights.fuelLimit().getAsLong())));
            }
            token.add_authority_check(Vocabulary.parseCheck(expiryCheck));
            return token.build().serialize_b64url();
        } catch (Error e) {
            throw new IllegalStateException("could not build a capability token: " + Capability.describe(e), e);
        }
    }

    /** The root public key: what a verifier of these tokens trusts. */
    public Multikey rootKey() {
        return rootPublicKey;
    }

    public String issuer() {
        return issuer;
    }

    @Override
    public String toString() {
        return "CapabilityIssuer[" + issuer + ", root " + rootPublicKey + "]";
    }
}
