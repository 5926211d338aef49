package org.fleetmesh.identity.capability;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.biscuitsec.biscuit.error.Error;
import org.biscuitsec.biscuit.token.builder.Check;
import org.biscuitsec.biscuit.token.builder.Fact;
import org.biscuitsec.biscuit.token.builder.Term;
import org.biscuitsec.biscuit.token.builder.Utils;
import org.biscuitsec.biscuit.token.builder.parser.Parser;

import io.vavr.Tuple2;
import io.vavr.control.Either;

/** The Datalog of fleetmesh capability tokens (docs/spec/capabilities.md): predicate names and the checks. */
final class Vocabulary {
    // authority block (the issuer's facts)
    static final String ISSUER = "issuer";
    static final String SUBJECT = "subject";
    static final String RIGHT = "right";
    static final String FUEL_LIMIT = "fuel_limit";
    // verifier facts, one set per request
    static final String TIME = "time";
    static final String OPERATION = "operation";
    static final String FUEL = "fuel";
    static final String HOLDER = "holder";

    /** Biscuit dates are unsigned seconds; RFC 3339 text (which the Datalog parser reads) ends at year 9999. */
    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");
    static final int MAX_TEXT = 4096;

    private static final Pattern PREDICATE = Pattern.compile("(?<![.\\w$])([A-Za-z][A-Za-z0-9_:]*)\\(");
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");

    private Vocabulary() {
    }

    /**
     * A subject, issuer or holder: printable ASCII without {@code "} or {@code \}, as DIDs and hex keys are. The
     * Datalog parser keeps backslashes verbatim, so only such strings read back the same from a check's text.
     */
    static String text(String value, String role) {
        if (value == null || value.isEmpty() || value.length() > MAX_TEXT) {
            throw new IllegalArgumentException("the " + role + " is 1 to " + MAX_TEXT + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\') {
                throw new IllegalArgumentException("the " + role + " must be printable ASCII without spaces, '\"' or"
                        + " '\\' (a DID or a hex key), found character " + (int) c + " at " + i);
            }
        }
        return value;
    }

    /** An instant as a Datalog date, whole seconds (earlier, never later). */
    static String date(Instant t) {
        if (t.isBefore(Instant.EPOCH) || t.isAfter(LATEST)) {
            throw new IllegalArgumentException("a token date is between 1970 and 9999, got " + t);
        }
        return t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    static String expiryCheck(Instant expiry) {
        return "check if time($t), $t <= " + date(expiry);
    }

    static String fuelCheck(long maxFuel) {
        if (maxFuel < 0) {
            throw new IllegalArgumentException("a fuel bound is not negative, got " + maxFuel);
        }
        return "check if fuel($f), $f <= " + maxFuel;
    }

    static String operationCheck(Collection<Right> allowed) {
        if (allowed.isEmpty()) {
            throw new IllegalArgumentException("restrict to at least one right");
        }
        List<String> names = EnumSet.copyOf(allowed).stream().map(r -> quoted(r.value())).toList();
        if (names.size() == 1) {
            return "check if operation(" + names.get(0) + ")";
        }
        return "check if operation($op), [" + String.join(", ", names) + "].contains($op)";
    }

    static String holderCheck(String holder) {
        return "check if holder(" + quoted(text(holder, "holder")) + ")";
    }

    static String quoted(String s) {
        return '"' + s + '"';
    }

    static Fact fact(String name, Term term) {
        try {
            return Utils.fact(name, List.of(term));
        } catch (Error.Language e) {
            throw new IllegalStateException("fact " + name + " has no variables, cannot fail: " + e, e);
        }
    }

    /**
     * Parses one check, {@code check if ...} or {@code check all ...}, optionally ending in {@code ;}.
     *
     * @throws IllegalArgumentException when it is not exactly one check
     */
    static Check parseCheck(String datalog) {
        String s = datalog.strip();
        if (s.endsWith(";")) {
            s = s.substring(0, s.length() - 1).strip();
        }
        Either<org.biscuitsec.biscuit.token.builder.parser.Error, Tuple2<String, Check>> parsed;
        try {
            parsed = Parser.check(s);
        } catch (RuntimeException e) {
            // the parser indexes past the end of some truncated inputs
            throw new IllegalArgumentException("not a Datalog check: '" + datalog + "'", e);
        }
        if (parsed.isLeft()) {
            throw new IllegalArgumentException("not a Datalog check: '" + datalog + "': " + parsed.getLeft());
        }
        if (!parsed.get()._1.isBlank()) {
            throw new IllegalArgumentException("one check only, left over: '" + parsed.get()._1 + "'");
        }
        return parsed.get()._2;
    }

    /** The predicate names a printed check queries; strings are skipped so their content cannot look like one. */
    static Set<String> predicatesOf(String printedCheck) {
        Matcher m = PREDICATE.matcher(STRING.matcher(printedCheck).replaceAll("\"\""));
        return m.results().map(r -> r.group(1)).collect(Collectors.toSet());
    }

    /**
     * Which refusal a failed check stands for, by what it queries: the first of expired, wrong holder, right, fuel
     * that applies, else {@link CapabilityException.Reason#CHECK_FAILED}. This only names the refusal; any failed
     * check refuses the token.
     */
    static CapabilityException.Reason reasonFor(String printedCheck) {
        Set<String> predicates = predicatesOf(printedCheck);
        if (predicates.contains(TIME)) {
            return CapabilityException.Reason.EXPIRED;
        }
        if (predicates.contains(HOLDER) || predicates.contains(SUBJECT)) {
            return CapabilityException.Reason.WRONG_HOLDER;
        }
        if (predicates.contains(OPERATION) || predicates.contains(RIGHT)) {
            return CapabilityException.Reason.RIGHT_NOT_GRANTED;
        }
        if (predicates.contains(FUEL) || predicates.contains(FUEL_LIMIT)) {
            return CapabilityException.Reason.FUEL_OVER_LIMIT;
        }
        return CapabilityException.Reason.CHECK_FAILED;
    }
}
