package org.fleetmesh.settlement.cashu.mint;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectReader;
import org.fleetmesh.settlement.cashu.nut.BlindSignature;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;
import org.fleetmesh.settlement.cashu.nut.Keyset;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.jboss.logging.Logger;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link MintApi} over HTTP with the JDK client.
 *
 * <p>Each call has a deadline covering connect, headers and body; answers above {@link #MAX_RESPONSE_BYTES}
 * are cut off; JSON is read with the strict {@link Nut#json()}. A 4xx with a well-formed {@code {"detail","code"}}
 * is a definite {@link MintException}; anything else that is not the expected 2xx answer is a non-definite one.
 * Quote ids and proofs never appear in logs or exception messages (a quote id lets anyone mint its ecash).
 */
public final class HttpMintClient implements MintApi {
    /** Largest answer read: far above any real one (a full keyset is ~5 KiB), small enough to hold in memory. */
    public static final int MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

    private static final Logger LOG = Logger.getLogger(HttpMintClient.class);
    private static final String BOLT11 = "bolt11";

    private final URI base;
    private final Duration timeout;
    private final Duration meltTimeout;
    /** The client, or what makes it at the first call ({@link #http()}). */
    private final java.util.function.Supplier<HttpClient> makeHttp;
    private volatile HttpClient http;

    /** One deadline for every call, melts included (a timed-out melt is resolved with NUT-05 quote state). */
    public HttpMintClient(URI base, Duration timeout, HttpClient http) {
        this(base, timeout, timeout, http);
    }

    /**
     * @param base        the mint URL, e.g. {@code https://mint.host:3338} or one with a path prefix; a trailing
     *                    slash is dropped
     * @param timeout     deadline of each call
     * @param meltTimeout deadline of {@code POST /v1/melt/bolt11}, which NUT-05 says blocks until the Lightning
     *                    payment ends
     */
    public HttpMintClient(URI base, Duration timeout, Duration meltTimeout, HttpClient http) {
        this(base, timeout, meltTimeout, required(http));
    }

    private static java.util.function.Supplier<HttpClient> required(HttpClient http) {
        if (http == null) {
            throw new IllegalArgumentException("http client is required");
        }
        return () -> http;
    }

    /**
     * As above, the HTTP client made at the first call to the mint: a command that never calls the mint (a balance,
     * a decode) does not pay for one (about 0.3 s of CPU in a cold JVM: the default TLS context and its trust store).
     */
    public HttpMintClient(URI base, Duration timeout, Duration meltTimeout, java.util.function.Supplier<HttpClient> http) {
        this.base = normalize(base);
        this.timeout = positive(timeout, "timeout");
        this.meltTimeout = positive(meltTimeout, "meltTimeout");
        if (http == null) {
            throw new IllegalArgumentException("http client is required");
        }
        this.makeHttp = http;
    }

    private HttpClient http() {
        HttpClient h = http;
        if (h == null) {
            synchronized (this) {
                h = http;
                if (h == null) {
                    h = java.util.Objects.requireNonNull(makeHttp.get(), "http client");
                    http = h;
                }
            }
        }
        return h;
    }

    /**
     * An absolute http(s) URL without query, fragment, user info or trailing slash. User info is refused so that
     * credentials never end up in a log line that prints the mint's URL.
     */
    public static URI normalize(URI base) {
        if (base == null) {
            throw new IllegalArgumentException("mint URL is required");
        }
        String scheme = base.getScheme() == null ? "" : base.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("mint URL must be http or https: " + base);
        }
        if (base.getRawAuthority() == null || base.getHost() == null) {
            throw new IllegalArgumentException("mint URL has no host: " + base);
        }
        if (base.getRawUserInfo() != null) {
            throw new IllegalArgumentException("mint URL must not carry user info");
        }
        if (base.getRawQuery() != null || base.getRawFragment() != null) {
            throw new IllegalArgumentException("mint URL must not have a query or fragment: " + base);
        }
        String path = base.getRawPath() == null ? "" : base.getRawPath();
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        return URI.create(scheme + "://" + base.getRawAuthority() + path);
    }

    /** The normalised mint URL (no trailing slash). */
    public URI base() {
        return base;
    }

    @Override
    public MintInfo info() {
        return call("GET", "/v1/info", "/v1/info", null, MintInfo.class, timeout);
    }

    @Override
    public List<Keyset> keys() {
        return call("GET", "/v1/keys", "/v1/keys", null, GetKeysResponse.class, timeout).keysets();
    }

    @Override
    public Keyset keys(String keysetId) {
        String id = Nut.keysetId(keysetId, "keyset id");
        String label = "GET /v1/keys/" + id;
        List<Keyset> keysets = call("GET", "/v1/keys/" + id, "/v1/keys/" + id, null, GetKeysResponse.class, timeout).keysets();
        return keysets.stream().filter(k -> k.id().equals(id)).findFirst()
                .orElseThrow(() -> malformed(label, 200, "keyset " + id + " is not in the answer", null));
    }

    @Override
    public List<Keyset> keysets() {
        return call("GET", "/v1/keysets", "/v1/keysets", null, GetKeysResponse.class, timeout).keysets();
    }

    @Override
    public List<BlindSignature> swap(List<Proof> inputs, List<BlindedMessage> outputs) {
        PostSwapRequest body = new PostSwapRequest(inputs, outputs);
        List<BlindSignature> signatures = call("POST", "/v1/swap", "/v1/swap", body, PostSignaturesResponse.class, timeout).signatures();
        return requireOnePerOutput("POST /v1/swap", signatures, outputs);
    }

    @Override
    public MintQuote mintQuote(long amount, String unit) {
        String path = "/v1/mint/quote/" + BOLT11;
        return call("POST", path, path, new PostMintQuoteBolt11Request(amount, unit, null), MintQuote.class, timeout);
    }

    @Override
    public MintQuote mintQuoteState(String quote) {
        String path = "/v1/mint/quote/" + BOLT11 + "/" + segment(quote);
        String label = "/v1/mint/quote/" + BOLT11 + "/{quote}";
        MintQuote answer = call("GET", path, label, null, MintQuote.class, timeout);
        if (!answer.quote().equals(quote)) {
            throw malformed("GET " + label, 200, "the answer is about another quote", null);
        }
        return answer;
    }

    @Override
    public List<BlindSignature> mint(String quote, List<BlindedMessage> outputs) {
        String path = "/v1/mint/" + BOLT11;
        List<BlindSignature> signatures = call("POST", path, path, new PostMintBolt11Request(quote, outputs),
                PostSignaturesResponse.class, timeout).signatures();
        return requireOnePerOutput("POST " + path, signatures, outputs);
    }

    @Override
    public MeltQuote meltQuote(String bolt11, String unit) {
        String path = "/v1/melt/quote/" + BOLT11;
        return call("POST", path, path, new PostMeltQuoteBolt11Request(bolt11, unit), MeltQuote.class, timeout);
    }

    @Override
    public MeltQuote meltQuoteState(String quote) {
        String path = "/v1/melt/quote/" + BOLT11 + "/" + segment(quote);
        String label = "/v1/melt/quote/" + BOLT11 + "/{quote}";
        MeltQuote answer = call("GET", path, label, null, MeltQuote.class, timeout);
        if (!answer.quote().equals(quote)) {
            throw malformed("GET " + label, 200, "the answer is about another quote", null);
        }
        return answer;
    }

    @Override
    public MeltQuote melt(String quote, List<Proof> inputs, List<BlindedMessage> blankOutputs) {
        String path = "/v1/melt/" + BOLT11;
        PostMeltBolt11Request body = new PostMeltBolt11Request(quote, inputs, blankOutputs);
        MeltQuote answer = call("POST", path, path, body, MeltQuote.class, meltTimeout);
        if (!answer.quote().equals(quote)) {
            throw malformed("POST " + path, 200, "the answer is about another quote", null);
        }
        if (answer.change().size() > body.outputs().size()) {
            throw malformed("POST " + path, 200, answer.change().size() + " change signatures for "
                    + body.outputs().size() + " blank outputs", null);
        }
        return answer;
    }

    @Override
    public List<ProofState> checkState(List<String> ys) {
        PostCheckStateRequest body = new PostCheckStateRequest(ys);
        List<ProofState> states = call("POST", "/v1/checkstate", "/v1/checkstate", body, PostCheckStateResponse.class, timeout).states();
        if (states.size() != body.ys().size()) {
            throw malformed("POST /v1/checkstate", 200, states.size() + " states for " + body.ys().size() + " Ys", null);
        }
        for (int i = 0; i < states.size(); i++) {
            if (!states.get(i).y().equalsIgnoreCase(body.ys().get(i))) {
                throw malformed("POST /v1/checkstate", 200, "state " + i + " is not for the Y asked at " + i, null);
            }
        }
        return states;
    }

    @Override
    public Restored restore(List<BlindedMessage> outputs) {
        return call("POST", "/v1/restore", "/v1/restore", new PostRestoreRequest(outputs), Restored.class, timeout);
    }

    /** NUT-03/04: one signature per output, in output order; fewer or more means we cannot unblind them safely. */
    private List<BlindSignature> requireOnePerOutput(String label, List<BlindSignature> signatures, List<BlindedMessage> outputs) {
        if (signatures.size() != outputs.size()) {
            throw malformed(label, 200, signatures.size() + " signatures for " + outputs.size() + " outputs", null);
        }
        return signatures;
    }

    /**
     * @param path  what is sent (may hold a quote id)
     * @param label what messages and logs show instead (never a quote id)
     */
    private <T> T call(String method, String path, String label, Object body, Class<T> answer, Duration deadline) {
        String call = method + " " + label;
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(deadline)
                .header("Accept", "application/json");
        if (body == null) {
            request.GET();
        } else {
            byte[] json;
            try {
                json = Nut.json().writeValueAsBytes(body);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(call + ": cannot write the request: " + e.getOriginalMessage(), e);
            }
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(json));
        }
        HttpResponse<byte[]> response = send(request.build(), call, deadline);
        int status = response.statusCode();
        byte[] bytes = response.body();
        LOG.debugf("%s %s -> %d (%d bytes)", base, call, status, bytes.length);
        if (status >= 200 && status < 300) {
            try {
                return reader(answer).readValue(bytes);
            } catch (IOException e) {
                throw malformed(call, status, reason(e), e);
            }
        }
        throw error(call, status, bytes);
    }

    private static ObjectReader reader(Class<?> type) {
        return Nut.json().readerFor(type).with(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);
    }

    private HttpResponse<byte[]> send(HttpRequest request, String call, Duration deadline) {
        CompletableFuture<HttpResponse<byte[]>> pending = http().sendAsync(request, info -> new BoundedBody(
                info.headers().firstValueAsLong("Content-Length").orElse(-1), MAX_RESPONSE_BYTES));
        try {
            // HttpRequest.timeout stops at the headers; this deadline also covers a body that trickles in.
            return pending.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            pending.cancel(true);
            throw MintException.unknown(call, "no answer within " + deadline, MintException.NO_STATUS, MintException.NO_CODE, null, e);
        } catch (InterruptedException e) {
            pending.cancel(true);
            Thread.currentThread().interrupt();
            throw MintException.unknown(call, "interrupted", MintException.NO_STATUS, MintException.NO_CODE, null, e);
        } catch (ExecutionException e) {
            for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
                if (t instanceof TooLarge) {
                    throw MintException.unknown(call, "answer larger than " + MAX_RESPONSE_BYTES + " bytes",
                            MintException.NO_STATUS, MintException.NO_CODE, null, t);
                }
                if (t instanceof HttpTimeoutException) {
                    throw MintException.unknown(call, "no answer within " + deadline, MintException.NO_STATUS, MintException.NO_CODE, null, t);
                }
            }
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw MintException.unknown(call, "I/O error: " + cause, MintException.NO_STATUS, MintException.NO_CODE, null, cause);
        }
    }

    /** A non-2xx answer: definite only for a 4xx carrying a well-formed NUT error. */
    private static MintException error(String call, int status, byte[] bytes) {
        ErrorResponse err = null;
        String unreadable = null;
        try {
            err = reader(ErrorResponse.class).readValue(bytes);
        } catch (IOException e) {
            unreadable = reason(e);
        }
        if (err != null && status >= 400 && status < 500) {
            return MintException.rejected(call, status, err.code(), err.detail());
        }
        if (err != null) {
            return MintException.unknown(call, "HTTP " + status + ", code " + err.code() + ": " + err.detail(),
                    status, err.code(), err.detail(), null);
        }
        return MintException.unknown(call, "HTTP " + status + " without a NUT error body (" + unreadable + ")",
                status, MintException.NO_CODE, null, null);
    }

    private static MintException malformed(String call, int status, String reason, Throwable cause) {
        return MintException.unknown(call, "malformed answer: " + reason, status, MintException.NO_CODE, null, cause);
    }

    /** Where in the JSON and what: the constructor's own reason when a record refused a value. */
    private static String reason(IOException e) {
        if (e.getCause() instanceof IllegalArgumentException iae && iae.getMessage() != null) {
            return where(e) + iae.getMessage();
        }
        if (e instanceof JsonProcessingException j) {
            String msg = j.getOriginalMessage();
            if (msg != null && msg.startsWith("No content to map")) {
                return "empty body";
            }
            return where(e) + (msg == null ? e.toString() : msg.lines().findFirst().orElse(msg));
        }
        return e.toString();
    }

    private static String where(IOException e) {
        if (!(e instanceof JsonMappingException m) || m.getPath().isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("at $");
        for (JsonMappingException.Reference r : m.getPath()) {
            if (r.getFieldName() != null) {
                sb.append('.').append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.append(": ").toString();
    }

    /** A path segment, percent-encoded (RFC 3986 unreserved characters pass). */
    static String segment(String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("quote id is required");
        }
        StringBuilder sb = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
                sb.append(c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return sb.toString();
    }

    private static Duration positive(Duration d, String name) {
        if (d == null || d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive");
        }
        return d;
    }

    /** The answer was cut off at the size bound. */
    private static final class TooLarge extends IOException {
        TooLarge(int limit) {
            super("answer larger than " + limit + " bytes");
        }
    }

    /** Collects the body up to a bound; past it, cancels the stream (closing the connection) and fails. */
    private static final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
        private final long declaredLength;
        private final int limit;
        private final CompletableFuture<byte[]> body = new CompletableFuture<>();
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        private Flow.Subscription subscription;

        BoundedBody(long declaredLength, int limit) {
            this.declaredLength = declaredLength;
            this.limit = limit;
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            if (declaredLength > limit) {
                s.cancel();
                body.completeExceptionally(new TooLarge(limit));
                return;
            }
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            if (body.isDone()) {
                return;
            }
            for (ByteBuffer b : items) {
                if ((long) buffer.size() + b.remaining() > limit) {
                    subscription.cancel();
                    body.completeExceptionally(new TooLarge(limit));
                    return;
                }
                byte[] chunk = new byte[b.remaining()];
                b.get(chunk);
                buffer.write(chunk, 0, chunk.length);
            }
        }

        @Override
        public void onError(Throwable t) {
            body.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            body.complete(buffer.toByteArray());
        }
    }
}
