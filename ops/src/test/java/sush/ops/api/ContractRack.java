package sush.ops.api;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import reactor.netty.DisposableServer;
import sush.gossip.Entropy;
import sush.ops.auth.Authority;
import sush.ops.auth.Credentials;
import sush.ops.auth.OperatorSigner;
import sush.ops.cli.Client;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.Daemon;
import sush.ops.daemon.RackFile;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;
import sush.projections.fixtures.Jobs;
import sush.projections.fold.Ordering;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * Test fixture of {@link RouteContractTest}: a one-sled causal rack of a real daemon in this JVM,
 * started once, with what every route of the API needs a real id for: an active session, a job
 * of it that ran to its end, the session's next free position, a second operator whose key a
 * revocation may name, a read token, and a second API front whose entropy always fails. Requests
 * go unsigned, signed by the rack's operator, or with the read token; {@link #snapshot()} is the
 * sled's state a refused request must leave as it was.
 */
final class ContractRack implements AutoCloseable {
    /** How long the sled may take to form its universe, take the session and run the job. */
    private static final Duration SETUP = Duration.ofSeconds(30);

    final Path dir;
    final Daemon daemon;
    final String board;
    final String url;
    /** The rack's operator, logged in at the sled. */
    final Client operator;
    final String session;
    /** A job of {@link #session} that ran to its end on the sled (its output is kept). */
    final String done;
    /** The session's next free position: a job id nothing has used. */
    final String next;
    /** The signed request for {@link #next}, as a client would start it. */
    final SignedJob nextJob;
    /** The second operator's key id (an operator of the rack, not revoked, never logged in). */
    final String otherKey;
    final String readToken;
    /** An API front on the same sled whose entropy throws on every use. */
    final DisposableServer faultyFront;
    /** The rack's operator at {@link #faultyFront}. */
    final Client faulty;

    ContractRack(Path dir) throws Exception {
        this.dir = dir;
        RackFile rack = RackCommand.create(dir, 1, RackCommand.freePorts(1), Ordering.CAUSAL);
        RackFile.SledEntry sled = rack.sleds().get(0);
        this.daemon = Daemon.start(rack.settings(sled, Optional.empty()));
        this.board = sled.baseboard();
        this.url = "http://" + sled.api();
        this.operator = RackCommand.operatorClient(dir, url);
        try {
            this.session = until("a session starts", () -> operator.post("/sessions/start", Map.of()).get("session_id")
                    .asString());
            until("the session is active", () -> session.equals(operator.get("/sessions").get("session_id").asString())
                    ? session : null);
            SignerKey signer = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
            this.done = runToItsEnd(signer);
            this.next = operator.get("/sessions").get("next_job").asString();
            this.nextJob = Jobs.at(signer, session, next, "true", board, false);
            this.otherKey = secondOperator(rack);
            this.readToken = operator.credentials().readToken(System.currentTimeMillis() + 600_000).orElseThrow();
            Entropy broken = into -> {
                throw new IllegalStateException("injected: the entropy source failed");
            };
            this.faultyFront = daemon.serveApi("127.0.0.1", 0, broken);
            this.faulty = RackCommand.operatorClient(dir, "http://127.0.0.1:" + faultyFront.port());
        } catch (Exception | Error e) {
            daemon.close();
            throw e;
        }
    }

    /** Runs {@code true} on the sled in the session; its job id once its status there is stopped. */
    private String runToItsEnd(SignerKey signer) throws Exception {
        SignedJob job = Jobs.at(signer, session, operator.get("/sessions").get("next_job").asString(), "true", board,
                false);
        String id = job.request().job().codephrase();
        operator.post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        return until("job " + id + " stops", () -> "stopped".equals(operator.get("/jobs/" + id + "/status")
                .path("statuses").path(board).path("status").asString("")) ? id : null);
    }

    /** Adds an operator to the rack's operators file (re-read, as on SIGHUP); its key id. */
    private String secondOperator(RackFile rack) throws Exception {
        Path key = dir.resolve("second.key");
        OperatorSigner.generate(key, "second", new SecureRandom());
        Files.writeString(rack.operators(), Files.readString(dir.resolve("second.key.pub")), StandardOpenOption.APPEND);
        daemon.authority().reload();
        return OperatorSigner.fromFile(key).publicKey().id().codephrase();
    }

    /** A step of the setup that may need the sled to settle first: asked again until it answers. */
    @FunctionalInterface
    private interface Step<T> {
        T ask() throws Exception;
    }

    private static <T> T until(String what, Step<T> step) throws Exception {
        long end = System.nanoTime() + SETUP.toNanos();
        Exception last = null;
        while (System.nanoTime() < end) {
            try {
                T t = step.ask();
                if (t != null) {
                    return t;
                }
            } catch (Client.Failure e) {
                last = e;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(what + ": not within " + SETUP.toSeconds() + " s", last);
    }

    /**
     * An answer: its status, headers and body (an event stream's body is left unread: its status
     * and headers are the answer; a refusal's body is read).
     */
    record Answer(int status, HttpHeaders headers, String body) {
        static Answer of(HttpResponse<String> r) {
            return new Answer(r.statusCode(), r.headers(), r.body());
        }

        static Answer ofStream(HttpResponse<InputStream> r) throws IOException {
            try (InputStream in = r.body()) {
                return new Answer(r.statusCode(), r.headers(), r.statusCode() == 200 ? ""
                        : new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
    }

    /** A request without {@code Authorization}; {@code headers} added. */
    Answer unsigned(String method, String path, String body, Map<String, String> headers) throws Exception {
        return send(method, path, body, headers, null);
    }

    /** A request with the read token. */
    Answer withToken(String method, String path, String body) throws Exception {
        return send(method, path, body, Map.of(), Authority.READ_SCHEME + readToken);
    }

    /** A request signed by the rack's operator at {@code client} (logged in again if the sled forgot it). */
    static Answer signed(Client client, String method, String path, String body, Map<String, String> headers)
            throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        if (path.startsWith("/events")) {
            return Answer.ofStream(client.raw(method, path, bytes, headers, HttpResponse.BodyHandlers.ofInputStream()));
        }
        return Answer.of(client.raw(method, path, bytes, headers));
    }

    /** A request signed by the rack's operator at the sled. */
    Answer signed(String method, String path, String body, Map<String, String> headers) throws Exception {
        return signed(operator, method, path, body, headers);
    }

    private Answer send(String method, String path, String body, Map<String, String> headers, String authorization)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(10))
                .method(method, body.isEmpty() ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (!body.isEmpty()) {
            b.header("Content-Type", "application/json");
        }
        headers.forEach(b::header);
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        // A connection of its own: reactor-netty 1.3.6 may leave a kept-alive connection unread
        // after a route that answers at once without reading the request (the page's files,
        // /metrics; reactor-netty issue 4361), which is not what this contract is about.
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(3)).build();
        if (path.startsWith("/events")) {
            return Answer.ofStream(http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream()));
        }
        return Answer.of(http.send(b.build(), HttpResponse.BodyHandlers.ofString()));
    }

    /** A login's body answering a fresh challenge with the rack's operator key, as {@code sush login} makes it. */
    String loginBody() throws Exception {
        Answer challenge = unsigned("POST", "/login/challenge", "", Map.of());
        byte[] nonce = Base64.getDecoder().decode(Json.MAPPER.readTree(challenge.body()).get("nonce").asString());
        OperatorSigner key = OperatorSigner.fromFile(dir.resolve(RackCommand.OPERATOR_KEY));
        SecureRandom random = new SecureRandom();
        byte[] clientNonce = new byte[16];
        random.nextBytes(clientNonce);
        byte[][] ephemeral = Credentials.ephemeral(random);
        Base64.Encoder b64 = Base64.getEncoder();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("key", b64.encodeToString(key.publicKey().blob()));
        body.put("nonce", b64.encodeToString(nonce));
        body.put("client_nonce", b64.encodeToString(clientNonce));
        body.put("ephemeral", b64.encodeToString(ephemeral[1]));
        body.put("signature", b64.encodeToString(key.sign(Authority.loginBytes(nonce, clientNonce, ephemeral[1]))));
        return Json.MAPPER.writeValueAsString(body);
    }

    /**
     * The sled's state a refused request must not change: the active session (or its absence)
     * with its next position, every job with every status, and which operators are revoked.
     */
    String snapshot() throws Exception {
        Answer sessions = signed("GET", "/sessions", "", Map.of());
        Answer jobs = signed("GET", "/jobs?limit=1000", "", Map.of());
        JsonNode iam = operator.get("/iam");
        return sessions.status() + " " + sessions.body().strip() + "\n" + jobs.status() + " " + jobs.body().strip()
                + "\noperators " + iam.get("operators");
    }

    @Override
    public void close() {
        faultyFront.disposeNow();
        daemon.close();
    }
}
