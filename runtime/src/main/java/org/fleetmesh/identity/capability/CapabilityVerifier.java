package org.fleetmesh.identity.capability;

import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.biscuitsec.biscuit.crypto.PublicKey;
import org.biscuitsec.biscuit.datalog.RunLimits;
import org.biscuitsec.biscuit.error.Error;
import org.biscuitsec.biscuit.error.FailedCheck;
import org.biscuitsec.biscuit.token.Authorizer;
import org.biscuitsec.biscuit.token.Biscuit;
import org.biscuitsec.biscuit.token.builder.Check;
import org.biscuitsec.biscuit.token.builder.Fact;
import org.biscuitsec.biscuit.token.builder.Rule;
import org.biscuitsec.biscuit.token.builder.Term;
import org.biscuitsec.biscuit.token.builder.Utils;
import org.biscuitsec.biscuit.token.builder.parser.Parser;

import org.fleetmesh.identity.DidResolver;
import org.fleetmesh.identity.KeyType;
import org.fleetmesh.identity.Multikey;
import org.fleetmesh.identity.NodeDidDocument;
import org.fleetmesh.identity.capability.CapabilityException.Reason;

import com.fasterxml.jackson.databind.JsonNode;

import biscuit.format.schema.Schema;

/**
 * Decides whether a token allows a request. A token is allowed when its signature chain starts at the root key,
 * no block's revocation id is revoked, and every check holds: the issuer's expiry, every holder's check, and the
 * verifier's own (the right is granted, the fuel is within {@code fuel_limit}, the authenticated holder is the
 * subject). The verifier trusts only facts of the authority block and its own, so a block a holder adds can
 * narrow a token but never widen it. Immutable and thread-safe.
 */
public final class CapabilityVerifier {
    /**
     * Biscuit's run limits, a backstop behind {@link TokenShape}, which bounds the work itself. The time bound is
     * wall-clock (Biscuit reads the clock), so it is far above the microseconds a token takes: on a loaded host a
     * thread can be descheduled for 100 ms, and a tight bound would refuse good tokens as too complex.
     */
    private static final int MAX_FACTS = 1000;
    private static final int MAX_ITERATIONS = 100;
    private static final Duration MAX_TIME = Duration.ofSeconds(1);

    private static final Check RIGHT_GRANTED = Vocabulary.parseCheck("check if operation($op), right($op)");
    private static final Check FUEL_WITHIN_LIMIT = Vocabulary.parseCheck("check if fuel($f), fuel_limit($l), $f <= $l");
    private static final Check HOLDER_IS_SUBJECT = Vocabulary.parseCheck("check if holder($h), subject($h)");
    private static final Rule IDENTITY = Parser.rule("identity($s, $i) <- subject($s), issuer($i)").get()._2;

    private final Multikey rootKey;
    private final PublicKey root;
    private final RevocationList revoked;

    private CapabilityVerifier(Multikey rootKey, RevocationList revoked) {
        if (rootKey.type() != KeyType.ED25519) {
            throw new IllegalArgumentException("a capability root key is Ed25519, got " + rootKey.type());
        }
        this.rootKey = rootKey;
        this.root = new PublicKey(Schema.PublicKey.Algorithm.Ed25519, rootKey.keyBytes());
        this.revoked = Objects.requireNonNull(revoked, "revoked");
    }

    /** A verifier of tokens rooted in {@code rootKey}, an Ed25519 key, with nothing revoked. */
    public static CapabilityVerifier of(Multikey rootKey) {
        return new CapabilityVerifier(rootKey, RevocationList.empty());
    }

    /** A verifier of a node's tokens: its transport key is the root. */
    public static CapabilityVerifier forNode(NodeDidDocument node) {
        return of(node.keys().transport());
    }

    /**
     * A verifier whose root is the delegation key of a resolved DID document: the one Ed25519 key of
     * {@code capabilityDelegation}, else of {@code assertionMethod}, else of {@code authentication} (in the node's
     * did:peer documents, its transport key).
     *
     * @throws IllegalArgumentException when the document names no single Ed25519 key there
     */
    public static CapabilityVerifier forDidDocument(JsonNode document) {
        return of(DelegationKey.of(document));
    }

    /**
     * A verifier for the DID of the issuing node: the did:key of its transport key, its did:peer:2, or its did:peer:4.
     *
     * @throws org.fleetmesh.identity.DidResolutionException when the DID does not resolve
     * @throws IllegalArgumentException when its document names no single Ed25519 delegation key
     */
    public static CapabilityVerifier forDid(String did, DidResolver resolver) {
        return forDidDocument(resolver.resolve(did));
    }

    /** This verifier with {@code revocations} as its revocation list. */
    public CapabilityVerifier revoking(RevocationList revocations) {
        return new CapabilityVerifier(rootKey, revocations);
    }

    public Multikey rootKey() {
        return rootKey;
    }

    public RevocationList revocations() {
        return revoked;
    }

    /**
     * Allows {@code request} under {@code token}, or says why not.
     *
     * @throws CapabilityException with the reason: the first step that fails, in {@link Reason}'s order
     */
    public Authorization authorize(String token, CapabilityRequest request) {
        Objects.requireNonNull(request, "request");
        byte[] bytes = Capability.decode(token);
        TokenShape.check(bytes);
        Biscuit biscuit = verifySignatures(bytes);
        List<RevocationId> ids = Capability.ids(biscuit);
        Optional<Integer> revokedBlock = revoked.firstRevoked(ids);
        if (revokedBlock.isPresent()) {
            int i = revokedBlock.get();
            throw new CapabilityException(Reason.REVOKED, (i == 0 ? "the token" : "block " + i + " of the token")
                    + " is revoked (revocation id " + ids.get(i).hex().substring(0, 16) + "...)");
        }
        return decide(biscuit, request, ids);
    }

    /**
     * The Datalog decision alone, for a token whose signatures have been verified. It holds without
     * {@link TokenShape} too: facts and rules of holders' blocks are outside the verifier's trusted scope.
     */
    Authorization decide(Biscuit biscuit, CapabilityRequest request, List<RevocationId> ids) {
        Authorizer authorizer;
        try {
            authorizer = biscuit.authorizer();
        } catch (Error e) {
            throw new CapabilityException(Reason.MALFORMED, "the token's Datalog cannot be loaded: "
                    + Capability.describe(e), e);
        }
        authorizer.add_fact(Vocabulary.fact(Vocabulary.TIME, Utils.date(Date.from(request.now()))));
        authorizer.add_fact(Vocabulary.fact(Vocabulary.OPERATION, Utils.string(request.right().value())));
        authorizer.add_fact(Vocabulary.fact(Vocabulary.FUEL, Utils.integer(request.fuel())));
        request.holder().ifPresent(h -> authorizer.add_fact(Vocabulary.fact(Vocabulary.HOLDER, Utils.string(h))));
        authorizer.add_check(RIGHT_GRANTED);
        if (request.right() == Right.COMPUTE_RUN) {
            authorizer.add_check(FUEL_WITHIN_LIMIT);
        }
        if (request.holder().isPresent()) {
            authorizer.add_check(HOLDER_IS_SUBJECT);
        }
        authorizer.allow();

        RunLimits limits = new RunLimits(MAX_FACTS, MAX_ITERATIONS, MAX_TIME);
        try {
            authorizer.authorize(limits);
        } catch (Error.FailedLogic e) {
            throw refusal(e, request);
        } catch (Error.Timeout | Error.TooManyFacts | Error.TooManyIterations e) {
            throw new CapabilityException(Reason.TOO_COMPLEX, "the token's Datalog ran past " + MAX_FACTS + " facts, "
                    + MAX_ITERATIONS + " iterations or " + MAX_TIME.toMillis() + " ms: " + Capability.describe(e), e);
        } catch (Error.Execution e) {
            throw new CapabilityException(Reason.CHECK_FAILED, "a check of the token cannot be evaluated: "
                    + Capability.describe(e), e);
        } catch (Error e) {
            throw new CapabilityException(Reason.MALFORMED, "the token cannot be authorized: "
                    + Capability.describe(e), e);
        } catch (RuntimeException e) {
            // the library throws unchecked exceptions on some expressions it cannot evaluate (a string method on an
            // integer: NoSuchElementException from an empty Either): a type error, so check-failed
            // the message is the library's internals ("java.util.NoSuchElementException: get() on Left"): not sent
            throw new CapabilityException(Reason.CHECK_FAILED, "a check of the token cannot be evaluated: an expression"
                    + " applies an operation to a value of the wrong type", e);
        }
        return identity(authorizer, limits, request, ids);
    }

    Biscuit verifySignatures(byte[] bytes) {
        try {
            return Biscuit.from_bytes(bytes, root);
        } catch (Error.FormatError.Signature | Error.FormatError.SealedSignature
                | Error.FormatError.InvalidSignatureSize e) {
            throw badSignature(Capability.describe(e), e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Ed25519 verification is unavailable", e);
        } catch (GeneralSecurityException e) {
            throw badSignature(e.toString(), e);
        } catch (Error e) {
            throw new CapabilityException(Reason.MALFORMED, "not a Biscuit token: " + Capability.describe(e), e);
        } catch (RuntimeException e) {
            // protobuf and the Ed25519 point decoder throw unchecked exceptions on some damaged inputs
            throw new CapabilityException(Reason.MALFORMED, "not a Biscuit token: its bytes do not decode", e);
        }
    }

    private CapabilityException badSignature(String detail, Throwable cause) {
        return new CapabilityException(Reason.BAD_SIGNATURE, "the token's signature chain does not start at root key "
                + rootKey + " (forged, altered, or issued by another node): " + detail, cause);
    }

    private static CapabilityException refusal(Error.FailedLogic e, CapabilityRequest request) {
        record Failure(Reason reason, String text) {
        }
        List<Failure> failures = new ArrayList<>();
        for (FailedCheck check : e.failed_checks().getOrElse(List.of())) {
            if (check instanceof FailedCheck.FailedBlock b) {
                failures.add(new Failure(Vocabulary.reasonFor(b.rule), "block " + b.block_id + ": " + b.rule));
            } else if (check instanceof FailedCheck.FailedAuthorizer a) {
                failures.add(new Failure(Vocabulary.reasonFor(a.rule), "verifier: " + a.rule));
            } else {
                failures.add(new Failure(Reason.CHECK_FAILED, check.toString()));
            }
        }
        if (failures.isEmpty()) {
            // the one policy is "allow if true", so only a logic error of the token's own Datalog gets here
            return new CapabilityException(Reason.MALFORMED, "the token's Datalog is invalid: " + Capability.describe(e), e);
        }
        Reason reason = failures.stream().map(Failure::reason).min(Comparator.naturalOrder()).orElseThrow();
        List<String> texts = failures.stream().map(Failure::text).toList();
        return new CapabilityException(reason, explain(reason, request) + "; failed " + String.join("; ", texts), texts, e);
    }

    private static String explain(Reason reason, CapabilityRequest request) {
        return switch (reason) {
            case EXPIRED -> "the token is not valid at " + request.now();
            case WRONG_HOLDER -> request.holder().map(h -> "the token is not for holder " + h)
                    .orElse("the token is bound to a holder and the request names none");
            case RIGHT_NOT_GRANTED -> "the token does not grant " + request.right();
            case FUEL_OVER_LIMIT -> request.fuel() + " fuel is over the token's limit";
            default -> "a check of the token failed";
        };
    }

    private static Authorization identity(Authorizer authorizer, RunLimits limits, CapabilityRequest request,
            List<RevocationId> ids) {
        Set<Fact> found;
        try {
            found = authorizer.query(IDENTITY, limits);
        } catch (Error e) {
            throw new CapabilityException(Reason.TOO_COMPLEX, "the token's subject cannot be read: "
                    + Capability.describe(e), e);
        } catch (RuntimeException e) {
            throw new CapabilityException(Reason.MALFORMED, "the token's subject cannot be read: " + e, e);
        }
        if (found.size() != 1) {
            throw new CapabilityException(Reason.MALFORMED, "the authority block has " + found.size()
                    + " subject/issuer pairs; one is expected");
        }
        List<Term> terms = found.iterator().next().terms();
        return new Authorization(text(terms.get(0)), text(terms.get(1)), request, ids);
    }

    private static String text(Term term) {
        if (term instanceof Term.Str s) {
            return s.getValue();
        }
        throw new CapabilityException(Reason.MALFORMED, "subject and issuer are strings, got " + term);
    }

    @Override
    public String toString() {
        return "CapabilityVerifier[root " + rootKey + ", " + revoked + "]";
    }
}
