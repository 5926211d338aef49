package org.fleetmesh.identity.capability;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A token refused, or one that cannot be read. The message reads {@code "<code>: <detail>"} (e.g.
 * {@code "fuel-over-limit: ..."}) and never contains the token or any key material, so it can go into a log line
 * or back to the holder as it is.
 */
public final class CapabilityException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Why a token was refused, in the order the verifier looks (docs/spec/capabilities.md): the token's form,
     * its signatures, revocation, then its checks; of several failed checks it names the first reason here.
     */
    public enum Reason {
        /** Not base64url, too large, not a Biscuit, a holder's block with facts or rules, or unloadable Datalog. */
        MALFORMED,
        /** More blocks or holder checks, or bigger checks, than the profile allows; or Biscuit's run limits hit. */
        TOO_COMPLEX,
        /** A signature in the chain does not verify: forged, altered, or rooted in another key. */
        BAD_SIGNATURE,
        /** The revocation id of one of its blocks is on the verifier's revocation list. */
        REVOKED,
        /** A {@code time} check failed: the issuer's expiry or a shorter one a holder added. */
        EXPIRED,
        /** The request names a holder the token's {@code subject} (or a holder check) does not allow. */
        WRONG_HOLDER,
        /** The requested right is not a {@code right} fact of the authority block, or a holder check excludes it. */
        RIGHT_NOT_GRANTED,
        /** The requested fuel is above the authority block's {@code fuel_limit} or a holder's lower bound. */
        FUEL_OVER_LIMIT,
        /** A check a holder added failed and it is about none of the above. */
        CHECK_FAILED;

        /** The lower-case code the message starts with, e.g. {@code right-not-granted}. */
        public String code() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private final Reason reason;
    private final List<String> failedChecks;

    CapabilityException(Reason reason, String detail) {
        this(reason, detail, List.of(), null);
    }

    CapabilityException(Reason reason, String detail, Throwable cause) {
        this(reason, detail, List.of(), cause);
    }

    CapabilityException(Reason reason, String detail, List<String> failedChecks, Throwable cause) {
        super(Objects.requireNonNull(reason).code() + ": " + detail, cause);
        this.reason = reason;
        this.failedChecks = List.copyOf(failedChecks);
    }

    public Reason reason() {
        return reason;
    }

    /**
     * The checks that failed, each as {@code "<where>: <check>"} with where {@code block 0} (the issuer's),
     * {@code block N} (a holder's) or {@code verifier}; empty when the token was refused before Datalog ran.
     */
    public List<String> failedChecks() {
        return failedChecks;
    }
}
