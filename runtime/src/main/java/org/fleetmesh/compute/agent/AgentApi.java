package org.fleetmesh.compute.agent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import org.fleetmesh.compute.JobResult;
import org.fleetmesh.compute.JobSpec;
import org.fleetmesh.compute.market.Market;
import org.fleetmesh.compute.market.Market.MarketException;
import org.fleetmesh.compute.market.Market.Submission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The agent API (docs/spec/compute-agent.md) without HTTP: each endpoint is a method that takes the caller's
 * {@code Authorization} header and its input and returns a status and a JSON body. A job is visible only to the
 * token (by its authority block's revocation id) that submitted it; each token has at most
 * {@link Limits#activeJobsPerToken} jobs that have not ended. Thread-safe.
 */
public final class AgentApi {
    /** A member named twice is refused, not read as its last value (a bound such as max_price_msat given twice). */
    private static final ObjectMapper JSON = com.fasterxml.jackson.databind.json.JsonMapper.builder()
            .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    private static final Pattern HEX32 = Pattern.compile("[0-9a-f]{64}");
    private static final String ZERO_SEED = "0".repeat(64);
    /** The states after which a job changes no more (docs/spec/compute.md). */
    static final Set<String> ENDED = Set.of("done", "refused", "failed", "expired");

    /**
     * {@code activeJobsPerToken}: jobs not ended per token; {@code rememberedJobs}: jobs whose owner is kept (the
     * oldest is forgotten past it, and so is no longer visible here); {@code listLimit}: most jobs a list answers;
     * {@code defaultMemoryPages}: when a submission names none.
     */
    public record Limits(int activeJobsPerToken, int rememberedJobs, int listLimit, int defaultMemoryPages) {
        public Limits {
            if (activeJobsPerToken < 1 || rememberedJobs < 1 || listLimit < 1) {
                throw new IllegalArgumentException("agent limits are positive");
            }
            if (defaultMemoryPages < 1 || defaultMemoryPages > JobSpec.MAX_PAGES) {
                throw new IllegalArgumentException("default memory pages: 1.." + JobSpec.MAX_PAGES);
            }
        }
    }

    /** A status and a JSON body. */
    public record Answer(int status, JsonNode body) {
        /** An error, its reason led by a word (compute-agent.md: {@code "<word>: <reason>"}); the status's when missing. */
        static Answer error(int status, String reason) {
            String r = reason == null ? "" : reason;
            if (!WORDED.matcher(r).lookingAt()) {
                r = word(status) + ": " + r;
            }
            return new Answer(status, JSON.createObjectNode().put("error", r));
        }

        private static final java.util.regex.Pattern WORDED = java.util.regex.Pattern.compile("[a-z][a-z -]{0,24}: ");

        static String word(int status) {
            return switch (status) {
                case 400 -> "invalid";
                case 401 -> "unauthorized";
                case 403 -> "forbidden";
                case 404 -> "not found";
                case 409 -> "conflict";
                case 413 -> "too large";
                case 422 -> "unprocessable";
                case 429 -> "busy";
                case 503 -> "unavailable";
                case 507 -> "full";
                default -> "error";
            };
        }
    }

    private final Market market;
    private final AgentGuard guard;
    private final Limits limits;
    /** job id → token id, oldest first. */
    private final LinkedHashMap<String, String> owners = new LinkedHashMap<>();
    /** token → its jobs not ended when last looked at; token → submissions under way. Guarded by {@code owners}. */
    private final Map<String, Set<String>> unended = new HashMap<>();
    private final Map<String, Integer> reserved = new HashMap<>();

    public AgentApi(Market market, AgentGuard guard, Limits limits) {
        this.market = market;
        this.guard = guard;
        this.limits = limits;
    }

    /** Whether the owners kept with the jobs were read. Guarded by {@code owners}. */
    private boolean seeded;

    /**
     * Reads, once, the owners the market kept with the newest {@code rememberedJobs} jobs, so that a restarted node
     * still shows each token its own jobs. Not in the constructor: the guard builds this object on an event loop, and
     * this reads the store. Called with {@code owners} held.
     */
    private void seed() {
        if (seeded) {
            return;
        }
        seeded = true;
        List<Market.Owned> kept = market.owned(limits.rememberedJobs());
        for (int i = kept.size() - 1; i >= 0; i--) { // oldest first
            Market.Owned o = kept.get(i);
            if (owners.containsKey(o.id())) {
                continue;
            }
            owners.put(o.id(), o.owner());
            if (!o.ended()) {
                unended.computeIfAbsent(o.owner(), k -> new LinkedHashSet<>()).add(o.id());
            }
        }
    }

    /** The guard alone, for a route that checks access before it reads a body. */
    public AgentGuard.Access access(String authorization) {
        return guard.check(authorization, 0);
    }

    public Answer offers(String authorization) {
        AgentGuard.Access a = guard.check(authorization, 0);
        if (!a.allowed()) {
            return Answer.error(a.status(), a.reason());
        }
        ObjectNode root = JSON.createObjectNode();
        root.set("offers", JSON.valueToTree(market.offers()));
        return new Answer(200, root);
    }

    public Answer putBlob(String authorization, byte[] bytes) {
        AgentGuard.Access a = guard.check(authorization, 0);
        if (!a.allowed()) {
            return Answer.error(a.status(), a.reason());
        }
        try {
            String hash = market.putBlob(bytes);
            return new Answer(200, JSON.createObjectNode().put("sha256", hash).put("size", bytes.length));
        } catch (MarketException e) {
            return Answer.error(e.status(), e.getMessage());
        }
    }

    public Answer submit(String authorization, String body) {
        AgentGuard.Access early = guard.check(authorization, 0);
        if (!early.allowed()) {
            return Answer.error(early.status(), early.reason());
        }
        JsonNode n;
        try {
            n = body == null || body.isBlank() ? null : JSON.readTree(body);
        } catch (com.fasterxml.jackson.core.exc.StreamReadException e) {
            if (e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate field")) {
                return Answer.error(400, "invalid: " + e.getOriginalMessage().replace("Duplicate field", "a member is"
                        + " named twice:").replace('\'', '"'));
            }
            n = null;
        } catch (java.io.IOException e) {
            n = null;
        }
        if (n == null || !n.isObject()) {
            return Answer.error(400, "invalid: the body is a JSON object with \"worker\" and \"job\"");
        }
        Submission s;
        try {
            s = submission((ObjectNode) n);
        } catch (IllegalArgumentException e) {
            return Answer.error(400, "invalid: " + e.getMessage());
        } catch (MarketException e) {
            return Answer.error(e.status(), e.getMessage());
        }
        AgentGuard.Access a = guard.check(authorization, s.spec().fuelLimit());
        if (!a.allowed()) {
            return Answer.error(a.status(), a.reason());
        }
        // a place is reserved under the lock and the market called without it: a submission may run a while
        String token = a.tokenId();
        s = new Submission(s.worker(), s.spec(), s.maxPriceMsat(), s.rail(), s.autoPay(), s.token(), token);
        synchronized (owners) {
            seed();
            Set<String> open = open(token);
            if (open.size() + reserved.getOrDefault(token, 0) >= limits.activeJobsPerToken()) {
                return Answer.error(429, "busy: this token has " + (open.size() + reserved.getOrDefault(token, 0))
                        + " jobs that have not ended (at most " + limits.activeJobsPerToken() + ")");
            }
            reserved.merge(token, 1, Integer::sum);
        }
        Map<String, Object> view;
        try {
            view = market.submit(s);
        } catch (MarketException e) {
            return Answer.error(e.status(), e.getMessage());
        } finally {
            synchronized (owners) {
                reserved.computeIfPresent(token, (k, c) -> c > 1 ? c - 1 : null);
            }
        }
        Object id = view.get("id");
        if (id instanceof String jobId) {
            synchronized (owners) {
                owners.remove(jobId);
                owners.put(jobId, token);
                if (!ENDED.contains(String.valueOf(view.get("state")))) {
                    unended.computeIfAbsent(token, k -> new LinkedHashSet<>()).add(jobId);
                }
                while (owners.size() > limits.rememberedJobs()) {
                    Iterator<Map.Entry<String, String>> oldest = owners.entrySet().iterator();
                    Map.Entry<String, String> e = oldest.next();
                    oldest.remove();
                    Set<String> u = unended.get(e.getValue());
                    if (u != null) {
                        u.remove(e.getKey());
                    }
                }
            }
        }
        return new Answer(201, JSON.valueToTree(view));
    }

    public Answer jobs(String authorization) {
        AgentGuard.Access a = guard.check(authorization, 0);
        if (!a.allowed()) {
            return Answer.error(a.status(), a.reason());
        }
        List<String> mine = owned(a.tokenId());
        ArrayNode list = JSON.createArrayNode();
        // newest first, as the market lists them
        for (int i = mine.size() - 1; i >= 0 && list.size() < limits.listLimit(); i--) {
            market.job(mine.get(i)).ifPresent(v -> list.add(JSON.valueToTree(v)));
        }
        ObjectNode root = JSON.createObjectNode();
        root.set("jobs", list);
        return new Answer(200, root);
    }

    public Answer job(String authorization, String id) {
        AgentGuard.Access a = guard.check(authorization, 0);
        if (!a.allowed()) {
            return Answer.error(a.status(), a.reason());
        }
        if (!ownedBy(id, a.tokenId())) {
            return unknown(id);
        }
        return market.job(id).map(v -> new Answer(200, JSON.valueToTree(v))).orElseGet(() -> unknown(id));
    }

    public Answer pay(String authorization, String id) {
        AgentGuard.Access a = guard.check(authorization, 0);
        if (!a.allowed()) {
            return Answer.error(a.status(), a.reason());
        }
        if (!ownedBy(id, a.tokenId())) {
            return unknown(id);
        }
        try {
            return new Answer(200, JSON.valueToTree(market.pay(id)));
        } catch (MarketException e) {
            return Answer.error(e.status(), e.getMessage());
        }
    }

    public Answer result(String authorization, String id) {
        AgentGuard.Access a = guard.check(authorization, 0);
        if (!a.allowed()) {
            return Answer.error(a.status(), a.reason());
        }
        if (!ownedBy(id, a.tokenId())) {
            return unknown(id);
        }
        Optional<JobResult> r = market.result(id);
        if (r.isPresent()) {
            return new Answer(200, JSON.valueToTree(r.get().toJson()));
        }
        Optional<Map<String, Object>> view = market.job(id);
        if (view.isEmpty()) {
            return unknown(id);
        }
        Object state = view.get().get("state");
        if (ENDED.contains(String.valueOf(state))) {
            Object error = view.get().get("error");
            return Answer.error(410, "gone: the job ended " + state + (error == null ? "" : ": " + error)
                    + " and has no result");
        }
        return Answer.error(409, "not yet: the job is " + state + "; its result is there once it is done");
    }

    private static Answer unknown(String id) {
        return Answer.error(404, "not found: no job " + (id != null && HEX32.matcher(id).matches() ? id : "by that id")
                + " was submitted with this token");
    }

    private boolean ownedBy(String id, String token) {
        synchronized (owners) {
            seed();
            return id != null && token.equals(owners.get(id));
        }
    }

    private List<String> owned(String token) {
        synchronized (owners) {
            seed();
            List<String> ids = new ArrayList<>();
            owners.forEach((job, t) -> {
                if (t.equals(token)) {
                    ids.add(job);
                }
            });
            return ids;
        }
    }

    /**
     * The token's jobs that had not ended when last looked at, each looked at again now (at most
     * {@link Limits#activeJobsPerToken} of them, so a token with many jobs costs no more). Called with {@code owners}
     * held.
     */
    private Set<String> open(String token) {
        Set<String> u = unended.get(token);
        if (u == null) {
            return Set.of();
        }
        u.removeIf(id -> {
            Optional<Map<String, Object>> v = market.job(id);
            return v.isEmpty() || ENDED.contains(String.valueOf(v.get().get("state")));
        });
        if (u.isEmpty()) {
            unended.remove(token);
            return Set.of();
        }
        return u;
    }

    /**
     * Reads a submission: {@code worker}, {@code job} (a JobSpec object) or the JobSpec members at the top level
     * ({@code args} [], {@code memory_pages} the default, {@code time} 0, {@code seed} zeros, {@code input} the
     * empty input when absent), {@code max_price_msat} (0), {@code rail} ("": the first of this node's rails,
     * preferred first, that the worker's offer lists), {@code auto_pay} (false), {@code token} (none).
     */
    Submission submission(ObjectNode n) throws MarketException {
        String worker = text(n, "worker", null);
        if (worker == null || worker.isEmpty() || worker.length() > 8192) {
            throw new IllegalArgumentException("worker: a peer's DID, \"any\" or \"local\"");
        }
        JobSpec spec;
        if (n.has("job")) {
            spec = JobSpec.fromJson(n.get("job"));
        } else {
            ObjectNode j = JSON.createObjectNode();
            j.set("module", n.get("module"));
            if (n.hasNonNull("input")) {
                j.set("input", n.get("input"));
            } else {
                j.put("input", market.putBlob(new byte[0]));
            }
            j.set("args", n.get("args"));
            j.set("fuel_limit", n.get("fuel_limit"));
            j.set("memory_pages", n.hasNonNull("memory_pages") ? n.get("memory_pages")
                    : JSON.getNodeFactory().numberNode(limits.defaultMemoryPages()));
            j.set("time", n.hasNonNull("time") ? n.get("time") : JSON.getNodeFactory().numberNode(0));
            j.set("seed", n.hasNonNull("seed") ? n.get("seed") : JSON.getNodeFactory().textNode(ZERO_SEED));
            spec = JobSpec.fromJson(j);
        }
        long maxPrice = 0;
        JsonNode p = n.get("max_price_msat");
        if (p != null && !p.isNull()) {
            if (!p.isIntegralNumber() || !p.canConvertToLong() || p.longValue() < 0
                    || p.longValue() > org.fleetmesh.spi.settlement.Msat.MAX) {
                throw new IllegalArgumentException("max_price_msat: an integer from 0 to "
                        + org.fleetmesh.spi.settlement.Msat.MAX + " (21 million bitcoin)");
            }
            maxPrice = p.longValue();
        }
        String rail = text(n, "rail", "");
        JsonNode ap = n.get("auto_pay");
        if (ap != null && !ap.isNull() && !ap.isBoolean()) {
            throw new IllegalArgumentException("auto_pay: true or false");
        }
        boolean autoPay = ap != null && ap.asBoolean(false);
        Optional<String> token = Optional.ofNullable(text(n, "token", null));
        return new Submission(worker, spec, maxPrice, rail, autoPay, token, "");
    }

    private static String text(JsonNode n, String name, String absent) {
        JsonNode v = n.get(name);
        if (v == null || v.isNull()) {
            return absent;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException(name + ": a string");
        }
        return v.textValue();
    }
}
