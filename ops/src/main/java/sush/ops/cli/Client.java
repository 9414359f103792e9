package sush.ops.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

import sush.gossip.net.GossipTls;
import sush.ops.auth.Authority;
import sush.ops.auth.Credentials;
import sush.ops.auth.OperatorSigner;
import sush.ops.auth.SshKey;
import sush.ops.wire.Answers;
import sush.ops.wire.ApiError;
import sush.ops.wire.Audiences;
import sush.ops.wire.Health;
import sush.ops.wire.Json;
import sush.ops.wire.Readiness;
import sush.projections.id.IdException;
import sush.projections.id.KeyId;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The CLI's side of the HTTP API: JSON requests, typed failures, and the event stream. Every
 * request but the login's is signed with the operator identity of its {@link Credentials}; the
 * client logs in on demand (and once more when a sled refuses the identity it has).
 */
public final class Client {
    private final String base;
    private final HttpClient http;
    private final Credentials credentials;

    public Client(String url, Credentials credentials) {
        this(url, credentials, HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build());
    }

    /** With an HTTP client of the caller's (HTTPS: one that trusts the rack CA). */
    public Client(String url, Credentials credentials, HttpClient http) {
        this.base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.credentials = credentials;
        this.http = http;
    }

    /**
     * An HTTP client for a sled's HTTPS API that trusts the rack CA in {@code caCert} (PEM) and
     * certificates naming a sled of it (no host name check: sleds are named by certificate).
     */
    public static HttpClient trusting(Path caCert) throws Failure {
        try {
            SSLContext ctx = SSLContext.getInstance("TLSv1.3");
            ctx.init(null, new TrustManager[] {GossipTls.apiTrust(
                    GossipTls.readCertificate(caCert))}, new SecureRandom());
            return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).sslContext(ctx).build();
        } catch (GossipTls.TlsException | GeneralSecurityException e) {
            throw new Failure(2, "bad-ca", "cannot trust the rack CA " + caCert + ": " + e.getMessage());
        }
    }

    public Credentials credentials() {
        return credentials;
    }

    /**
     * Logs in at this sled: a challenge, a fresh ephemeral key, the operator key's signature over
     * both (security.md section 2). Returns the sled's answer (key id, expiry, acceptor).
     */
    public JsonNode login() throws Failure {
        // The sled first: an unreachable sled is said as such, whatever the key.
        Answers.Challenge challenge = read(plain("POST", "/login/challenge", new byte[0]), Answers.Challenge.class);
        List<OperatorSigner> signers;
        try {
            signers = credentials.signers();
        } catch (SshKey.KeyException e) {
            throw new Failure(2, "no-operator-key", e.getMessage());
        }
        // An SSH agent's keys in turn (issue 41): one the sled does not list, or revoked, is
        // passed for the next, each with a challenge of its own; the last refusal is said.
        for (int i = 0;; i++) {
            try {
                return login(i == 0 ? challenge : read(plain("POST", "/login/challenge", new byte[0]),
                        Answers.Challenge.class), signers.get(i));
            } catch (Failure f) {
                if (i + 1 >= signers.size() || !(f.code().equals("unknown-key") || f.code().equals("revoked"))) {
                    throw f;
                }
            }
        }
    }

    private JsonNode login(Answers.Challenge challenge, OperatorSigner signer) throws Failure {
        byte[] nonce = Base64.getDecoder().decode(challenge.nonce());
        SecureRandom random = new SecureRandom();
        byte[] clientNonce = new byte[16];
        random.nextBytes(clientNonce);
        byte[][] eph = Credentials.ephemeral(random);
        byte[] signature;
        try {
            signature = signer.sign(Authority.loginBytes(nonce, clientNonce, eph[1]));
        } catch (SshKey.KeyException e) {
            throw new Failure(2, "no-operator-key", e.getMessage());
        }
        Base64.Encoder b64 = Base64.getEncoder();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("key", b64.encodeToString(signer.publicKey().blob()));
        body.put("nonce", b64.encodeToString(nonce));
        body.put("client_nonce", b64.encodeToString(clientNonce));
        body.put("ephemeral", b64.encodeToString(eph[1]));
        body.put("signature", b64.encodeToString(signature));
        JsonNode answer = plain("POST", "/login", Json.MAPPER.writeValueAsString(body).getBytes(StandardCharsets.UTF_8));
        Answers.LoggedIn who = read(answer, Answers.LoggedIn.class);
        try {
            credentials.loggedIn(new Credentials.Identity(KeyId.parse(who.keyId()), nonce, eph[0], who.expires(),
                    who.acceptor()));
        } catch (IdException e) {
            throw new Failure(2, "bad-answer", "the sled answered an unreadable key id");
        }
        return answer;
    }

    /**
     * A signed request as it is, answered as it is (tests and tools that look at statuses and
     * headers themselves); {@code headers} are added to it.
     */
    public HttpResponse<String> raw(String method, String path, byte[] body, Map<String, String> headers)
            throws Failure {
        return raw(method, path, body, headers, HttpResponse.BodyHandlers.ofString());
    }

    /** As {@link #raw(String, String, byte[], java.util.Map)}, with the caller's body handler (a stream). */
    public <T> HttpResponse<T> raw(String method, String path, byte[] body, Map<String, String> headers,
            HttpResponse.BodyHandler<T> handler) throws Failure {
        return call(() -> signed(method, path, body, handler, b -> headers.forEach(b::header), null));
    }

    /** An unsigned probe's answer: its HTTP status and JSON body. */
    public record Probe(int status, JsonNode body) {
        /** The body as {@code /health} says it; one that does not read as one says nothing (every field null). */
        public Health health() {
            return readOrEmpty(body, Health.class, new Health(null, null, null, null, null, null));
        }

        /** The body as {@code /ready} says it; one that does not read as one says nothing (every field null). */
        public Readiness readiness() {
            return readOrEmpty(body, Readiness.class, new Readiness(null, null, null, null, null, null, null, null,
                    null, null, null, null, null, null));
        }

        private static <T> T readOrEmpty(JsonNode body, Class<T> type, T empty) {
            try {
                return Json.read(body, type);
            } catch (JacksonException e) {
                return empty;
            }
        }
    }

    /** An unsigned GET of a probe ({@code /health}, {@code /ready}): 503 is an answer, not a failure. */
    public Probe probe(String path) throws Failure {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).GET();
        HttpResponse<String> r = call(() -> http.send(b.timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()));
        try {
            return new Probe(r.statusCode(), Json.MAPPER.readTree(r.body()));
        } catch (RuntimeException e) {
            throw new Failure(2, "http-" + r.statusCode(), "not a probe's JSON answer: " + r.body());
        }
    }

    /** An unsigned request (the login's two). */
    private JsonNode plain(String method, String path, byte[] body) throws Failure {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
        return json(call(() -> http.send(b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString())));
    }

    /** One exchange, its transport failures typed: unreachable (3), interrupted (130). */
    @FunctionalInterface
    private interface Exchange<T> {
        HttpResponse<T> run() throws Failure, IOException, InterruptedException;
    }

    private <T> HttpResponse<T> call(Exchange<T> e) throws Failure {
        try {
            return e.run();
        } catch (IOException x) {
            throw unreachable(x);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new Failure(130, "interrupted", "interrupted");
        }
    }

    /** A JSON answer, or the refusal its status and body say. */
    private JsonNode json(HttpResponse<String> r) throws Failure {
        if (r.statusCode() >= 400) {
            throw refusal(r.statusCode(), r.body());
        }
        return Json.MAPPER.readTree(r.body());
    }

    /**
     * Sends a signed request: logs in first when there is no identity, and once more if the sled
     * refuses the identity (expired, unknown here, replayed).
     */
    private <T> HttpResponse<T> signed(String method, String path, byte[] body, HttpResponse.BodyHandler<T> handler,
            Consumer<HttpRequest.Builder> extra, Duration timeout)
            throws Failure, IOException, InterruptedException {
        for (int attempt = 0;; attempt++) {
            if (credentials.identity().isEmpty()) {
                login();
            }
            HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).method(method,
                    body.length == 0 && method.equals("GET") ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            if (!method.equals("GET")) {
                b.header("Content-Type", "application/json");
            }
            authorization(method, path, body).ifPresent(h -> b.header("Authorization", h));
            extra.accept(b);
            if (timeout != null) {
                b.timeout(timeout);
            }
            HttpResponse<T> r = http.send(b.build(), handler);
            if (r.statusCode() == 401 && attempt == 0) {
                credentials.forget();
                continue;
            }
            return r;
        }
    }

    public String url() {
        return base;
    }

    /**
     * The rack and the sled this client's URL reaches ({rack_id, sled}), which every signed
     * request names (issue 36): learned once from the sled's {@code /health}, which needs no login.
     */
    private volatile String[] audience;

    /** {rack_id, sled} of the sled at this client's URL. */
    public String[] audience() throws Failure {
        String[] a = audience;
        if (a == null) {
            Probe p = probe("/health");
            Health h = p.health();
            String rack = h.rackId() == null ? "" : h.rackId();
            String sled = h.sled() == null ? "" : h.sled();
            if (rack.isEmpty() || sled.isEmpty()) {
                throw new Failure(2, "bad-answer", base + "/health names no sled and rack (" + p.status() + "): a "
                        + "daemon of an older build, or not a sled");
            }
            a = new String[] {rack, sled};
            audience = a;
        }
        return a;
    }

    /**
     * The {@code Authorization} of one request: signed for the sled it is for
     * ({@link sush.ops.wire.Audiences}): the sled at this URL, or the one a relayed request names.
     */
    private Optional<String> authorization(String method, String path, byte[] body) throws Failure {
        String[] a = audience();
        return credentials.authorize(a[0], Audiences.of(method, path, a[1]), method, path, body);
    }

    /** A refusal or an unreachable sled, with the exit code a script can test. */
    public static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final int exit;
        final String code;

        Failure(int exit, String code, String message) {
            super(message);
            this.exit = exit;
            this.code = code;
        }

        public int exit() {
            return exit;
        }

        public String code() {
            return code;
        }
    }

    public JsonNode get(String path) throws Failure {
        return send("GET", path, new byte[0]);
    }

    /** A GET's answer read into its record of {@code sush.ops.wire}. */
    public <T> T get(String path, Class<T> type) throws Failure {
        return read(get(path), type);
    }

    public JsonNode post(String path, Object body) throws Failure {
        String json = body == null ? "" : Json.MAPPER.writeValueAsString(body);
        return send("POST", path, json.getBytes(StandardCharsets.UTF_8));
    }

    /** A POST's answer read into its record of {@code sush.ops.wire}. */
    public <T> T post(String path, Object body, Class<T> type) throws Failure {
        return read(post(path, body), type);
    }

    /**
     * An answer (or a part of one) read into its record (fields it does not know ignored, fields
     * it lacks null); an answer that is not one is a {@code bad-answer} failure.
     */
    static <T> T read(JsonNode answer, Class<T> type) throws Failure {
        try {
            return Json.read(answer, type);
        } catch (JacksonException e) {
            throw new Failure(2, "bad-answer", "the sled's answer is not " + type.getSimpleName() + ": "
                    + e.getOriginalMessage());
        }
    }

    public byte[] bytes(String path) throws Failure {
        try {
            HttpResponse<byte[]> r = signed("GET", path, new byte[0], HttpResponse.BodyHandlers.ofByteArray(), b -> { },
                    null);
            if (r.statusCode() >= 400) {
                throw refusal(r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
            }
            return r.body();
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure(130, "interrupted", "interrupted");
        }
    }

    /**
     * A WebSocket on {@code path} (issue 19), its upgrade signed like any request; a refusal of
     * the upgrade is the typed failure its status and body say.
     */
    public WebSocket webSocket(String path, WebSocket.Listener listener) throws Failure {
        for (int attempt = 0;; attempt++) {
            if (credentials.identity().isEmpty()) {
                login();
            }
            WebSocket.Builder b = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10));
            authorization("GET", path, new byte[0]).ifPresent(h -> b.header("Authorization", h));
            try {
                return b.buildAsync(URI.create(base.replaceFirst("^http", "ws") + path), listener).join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof WebSocketHandshakeException) {
                    HttpResponse<?> r = ((WebSocketHandshakeException) e.getCause()).getResponse();
                    if (r.statusCode() == 401 && attempt == 0) {
                        credentials.forget();
                        continue;
                    }
                    Object body = r.body();
                    throw refusal(r.statusCode(), body instanceof String ? (String) body
                            : body instanceof byte[] ? new String((byte[]) body, StandardCharsets.UTF_8) : "");
                }
                throw unreachable(e.getCause() instanceof IOException ? (IOException) e.getCause()
                        : new IOException(e.getCause()));
            }
        }
    }

    /**
     * Bytes {@code first} to {@code last} (inclusive) of {@code path}, as a stream to read; an
     * answer other than 206 with that very range is a typed failure.
     */
    public InputStream range(String path, long first, long last) throws Failure {
        HttpResponse<InputStream> r = call(() -> signed("GET", path, new byte[0],
                HttpResponse.BodyHandlers.ofInputStream(), b -> b.header("Range", "bytes=" + first + "-" + last),
                null));
        String want = "bytes " + first + "-" + last + "/";
        String got = r.headers().firstValue("Content-Range").orElse("");
        if (r.statusCode() != 206 || !got.startsWith(want)) {
            String body;
            try (InputStream in = r.body()) {
                body = new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw unreachable(e);
            }
            throw r.statusCode() >= 400 ? refusal(r.statusCode(), body) : new Failure(2, "bad-range", "asked bytes "
                    + first + "-" + last + " of " + path + ", the sled answered " + r.statusCode() + " "
                    + (got.isEmpty() ? "without a range" : got));
        }
        return r.body();
    }

    /**
     * Follows {@code /events} (reconnecting with Last-Event-ID) and hands each event's JSON to
     * {@code until}; returns when it says so.
     */
    public void follow(Predicate<JsonNode> until) throws Failure {
        String last = null;
        for (int attempt = 0; attempt < 100; attempt++) {
            String lastId = last;
            try {
                HttpResponse<InputStream> r = signed("GET", "/events", new byte[0],
                        HttpResponse.BodyHandlers.ofInputStream(), b -> {
                            if (lastId != null) {
                                b.header("Last-Event-ID", lastId);
                            }
                        }, null);
                if (r.statusCode() >= 400) {
                    throw refusal(r.statusCode(), new String(r.body().readAllBytes(), StandardCharsets.UTF_8));
                }
                try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                    String line;
                    String data = null;
                    while ((line = in.readLine()) != null) {
                        if (line.startsWith("id: ")) {
                            last = line.substring(4);
                        } else if (line.startsWith("data: ")) {
                            data = line.substring(6);
                        } else if (line.isEmpty() && data != null) {
                            if (until.test(Json.MAPPER.readTree(data))) {
                                return;
                            }
                            data = null;
                        }
                    }
                }
            } catch (IOException e) {
                if (Thread.currentThread().isInterrupted()) {
                    // Interrupted while reading (the shell's Ctrl-C): stop following, not reconnect.
                    throw new Failure(130, "interrupted", "interrupted");
                }
                sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Failure(130, "interrupted", "interrupted");
            }
        }
        throw new Failure(3, "unreachable", "lost the event stream of " + base);
    }

    private JsonNode send(String method, String path, byte[] body) throws Failure {
        return json(call(() -> signed(method, path, body, HttpResponse.BodyHandlers.ofString(), b -> { },
                Duration.ofSeconds(30))));
    }

    private Failure refusal(int status, String body) {
        try {
            JsonNode n = Json.MAPPER.readTree(body);
            ApiError e = n.isObject() ? Json.read(n, ApiError.class) : new ApiError(null, null);
            return new Failure(status == 404 ? 4 : 2, e.error() != null ? e.error() : "http-" + status,
                    e.message() != null ? e.message() : body);
        } catch (RuntimeException e) {
            return new Failure(2, "http-" + status, body);
        }
    }

    private Failure unreachable(IOException e) {
        return new Failure(3, "unreachable", "sled unreachable at " + base + " (" + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "); is the daemon running? (--url or SUSH_URL)");
    }

    private URI uri(String path) {
        return URI.create(base + path);
    }

    /** A field from a sled, safe to print: control characters shown as {@code \\uXXXX}. */
    public static String printable(String s) {
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            if (Character.isISOControl(c) || c == 0x2028 || c == 0x2029) {
                b.append(String.format("\\u%04x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.toString();
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
