package sush.ops.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.reactivestreams.Publisher;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import sush.gossip.Entropy;
import sush.gossip.node.GossipNode;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.SignedRecord;
import sush.locker.store.Locker;
import sush.ops.Json;
import sush.ops.SignedRequests;
import sush.ops.SignedRequests.BadRequest;
import sush.ops.auth.Authority;
import sush.pipeline.exec.ProcessLauncher;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledEvent;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.Ordering;
import sush.projections.fold.SessionProjection;
import sush.projections.id.IdException;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.InvalidJobReason;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The HTTP API of one sled (interfaces.md): JSON in and out, validation at the edge (body size,
 * shape, codephrases, signatures and keys), typed errors with 4xx codes; a refused request changes
 * nothing. Queries run on the sled's loop; requests become gossip messages.
 */
public final class ApiServer {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ApiServer.class);

    /** Bound on the events a reconnecting client can catch up on with Last-Event-ID. */
    public static final int EVENT_HISTORY = 4096;

    private final SledConfig cfg;
    private final GossipNode node;
    private final SledRuntime runtime;
    private final Locker<?> locker;
    private final ProcessLauncher launcher;
    private final Entropy entropy;
    /** Who may ask (security.md section 2): every request but the login's carries an identity. */
    private final Authority authority;
    /** The daemon's metrics, served at {@code /metrics} once given. */
    private volatile sush.ops.daemon.SledMetrics metrics;
    private final Sinks.Many<Numbered> events = Sinks.many().replay().limit(EVENT_HISTORY);
    private final AtomicLong nextEvent = new AtomicLong(1);

    /** An event with its SSE id. */
    record Numbered(long id, String kind, Map<String, Object> data) {
    }

    public ApiServer(SledConfig cfg, GossipNode node, SledRuntime runtime, Locker<?> locker, ProcessLauncher launcher,
            Entropy entropy, Authority authority) {
        this.authority = authority;
        this.cfg = cfg;
        this.node = node;
        this.runtime = runtime;
        this.locker = locker;
        this.launcher = launcher;
        this.entropy = entropy;
        // Never silently: a lost stream means no more events for clients (and no logins honoured
        // from other sleds: their operators log in here again, which is safe), and it is said.
        runtime.events().subscribe(this::number, e -> System.err.println("sush daemon: the API lost the sled's "
                + "event stream: " + e));
        runtime.events().filter(e -> e instanceof SledEvent.Entered).subscribe(e -> regossipRevocations(),
                e -> System.err.println("sush daemon: revocations are no longer re-told to new universes: " + e));
        runtime.events().filter(e -> e instanceof SledEvent.Operator).subscribe(e -> onOperatorMessage(
                ((SledEvent.Operator) e).message()), e -> System.err.println("sush daemon: logins and revocations of "
                        + "other sleds are no longer followed: " + e));
    }

    public DisposableServer bind(String host, int port) {
        return bind(HttpServer.create().host(host).port(port));
    }

    /** Serves on {@code server} (HTTPS when the caller made it secure). */
    public DisposableServer bind(HttpServer server) {
        // At the channel's start, before any byte is read: the bound, and the request deadline.
        return server.idleTimeout(IDLE_TIMEOUT).doOnChannelInit((observer, channel, remote) -> {
            if (fileDescriptorsLeft() < FD_RESERVE || !makeRoom()) {
                refusedConnections.incrementAndGet();
                channel.close();
                return;
            }
            connections.add(channel);
            channel.closeFuture().addListener(f -> connections.remove(channel));
            // A connection must deliver a whole request head soon after it opens, however slowly
            // it trickles bytes (half-sent headers hold a connection forever otherwise).
            channel.eventLoop().schedule(() -> {
                if (!Boolean.TRUE.equals(channel.attr(SERVED).get())) {
                    refusedConnections.incrementAndGet();
                    channel.close();
                }
            }, REQUEST_DEADLINE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }).handle(originFormOnly(reactor.netty.http.server.HttpServerRoutes.newRoutes()
                // Probes for supervisors and monitors: no login, nothing private in them.
                .get("/health", (q, s) -> served(q, () -> health(s)))
                .get("/ready", (q, s) -> served(q, () -> ready(s)))
                .get("/metrics", (q, s) -> served(q, () -> metrics(s)))
                .post("/login/challenge", (q, s) -> served(q, () -> challenge(q, s)))
                .post("/login", (q, s) -> served(q, () -> login(q, s)))
                .get("/", (q, s) -> page(s, "index.html"))
                .get("/web/{file}", (q, s) -> page(s, q.param("file")))
                .get("/version", (q, s) -> guard(q, s, (b, who) -> elsewhere(q).isPresent() ? relay(q, s,
                        elsewhere(q).get()) : json(s, 200, version())))
                .get("/versions", (q, s) -> guard(q, s, (b, who) -> query(s, v -> versions(v))))
                .get("/rack", (q, s) -> guard(q, s, (b, who) -> elsewhere(q).isPresent() ? relay(q, s,
                        elsewhere(q).get()) : sledParameter(q).isPresent() ? query(s, this::rackEntry) : rack(q, s)))
                .get("/sessions", (q, s) -> guard(q, s, (b, who) -> activeSession(s)))
                .post("/sessions/start", (q, s) -> guard(q, s, (b, who) -> handle(s, () -> startSession(b, who))))
                .post("/sessions/grant", (q, s) -> guard(q, s, (b, who) -> handle(s, () -> grantSession(b, who))))
                .post("/sessions/{sid}/stop", (q, s) -> guard(q, s, (b, who) -> handle(s, () -> stopSession(q, who))))
                .get("/sessions/{sid}/chain", (q, s) -> guard(q, s, (b, who) -> elsewhere(q).isPresent() ? relay(q, s,
                        elsewhere(q).get()) : handle(s, () -> chain(q))))
                .post("/sessions/{sid}/skip/{jid}", (q, s) -> guard(q, s, (b, who) -> handle(s, () -> skip(q, who))))
                .post("/sessions/{sid}/access/{kid}", (q, s) -> guard(q, s, (b, who) -> handle(s, () -> access(q, who))))
                .post("/jobs/{jid}/start", (q, s) -> guard(q, s, (b, who) -> handle(s, () -> startJob(q, b))))
                .post("/jobs/{jid}/stop", (q, s) -> guard(q, s, (b, who) -> handle(s, () -> stopJob(q, who))))
                .get("/jobs/{jid}/status", (q, s) -> guard(q, s, (b, who) -> handle(s, () -> status(q))))
                .get("/jobs/{jid}/output/{stream}", (q, s) -> guard(q, s, (b, who) -> output(q, s, who)))
                .get("/jobs/{jid}/attach", (q, s) -> guard(q, s, (b, who) -> attach(q, s, who)))
                .get("/jobs/{jid}/stream", (q, s) -> guard(q, s, (b, who) -> stream(q, s, who)))
                .get("/jobs", (q, s) -> guard(q, s, (b, who) -> history(q, s)))
                .get("/boundary", (q, s) -> guard(q, s, (b, who) -> elsewhere(q).isPresent() ? relay(q, s,
                        elsewhere(q).get()) : query(s, this::boundary)))
                .get("/iam", (q, s) -> guard(q, s, (b, who) -> json(s, 200, iam())))
                .post("/iam/revoke/{kid}", (q, s) -> guard(q, s, (b, who) -> handle(s, () -> revoke(q, who))))
                .post("/iam/unrevoke/{kid}", (q, s) -> guard(q, s, (b, who) -> handle(s, () -> unrevoke(q, who))))
                .get("/events", (q, s) -> guard(q, s, (b, who) -> events(q, s))))).bindNow();
    }

    /**
     * Every request-target in origin form before any routing (issue 36, item 4): a relay used
     * to paste {@code @host:port/...} or {@code :port/...} onto the announced address, making
     * the sled connect where the caller chose. Anything else is 400 {@code bad-request-target}.
     */
    private java.util.function.BiFunction<HttpServerRequest, HttpServerResponse, Publisher<Void>> originFormOnly(
            reactor.netty.http.server.HttpServerRoutes routes) {
        return (q, s) -> originForm(q.uri()) ? routes.apply(q, s) : served(q, () -> error(s, 400,
                "bad-request-target", "the request-target must be a path: '/' first, no authority, no '@', no "
                        + "'..' or '.' segments, printable ASCII"));
    }

    /**
     * Whether {@code target} is an origin-form request-target this API serves: {@code /} first
     * (not {@code //}), printable ASCII without {@code @}, backslash or fragment, and no
     * {@code .} or {@code ..} path segment, raw or percent-encoded.
     */
    static boolean originForm(String target) {
        if (target == null || target.isEmpty() || target.charAt(0) != '/' || target.startsWith("//")) {
            return false;
        }
        int query = target.length();
        boolean escaped = false;
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= 0x20 || c >= 0x7f || c == '@' || c == '\\' || c == '#') {
                return false;
            }
            if (c == '?' && query == target.length()) {
                query = i;
            }
            escaped |= c == '%' && i < query;
        }
        String path = target.substring(0, query);
        if (escaped) {
            // Percent-encoded segments are judged decoded: %2e%2e is "..", %2f a slash inside one.
            try {
                for (String segment : path.split("/", -1)) {
                    String d = java.net.URLDecoder.decode(segment.replace("+", "%2B"),
                            java.nio.charset.StandardCharsets.UTF_8);
                    if (d.equals(".") || d.equals("..") || d.indexOf('/') >= 0 || d.indexOf('\\') >= 0
                            || d.indexOf('@') >= 0) {
                        return false;
                    }
                }
            } catch (IllegalArgumentException e) {
                return false;
            }
            return true;
        }
        return !(path.contains("/./") || path.contains("/../") || path.endsWith("/.") || path.endsWith("/.."));
    }

    /**
     * File descriptors the API never takes (issue 22): a new connection is closed at once when
     * fewer are left under the process's limit, so that the locker's slot files, the journal and
     * the jobs' pipes and output files always open.
     */
    public static final int FD_RESERVE = 256;

    /** Descriptors this process may still open (its RLIMIT_NOFILE less those open). */
    static long fileDescriptorsLeft() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean) {
            com.sun.management.UnixOperatingSystemMXBean u = (com.sun.management.UnixOperatingSystemMXBean) os;
            return u.getMaxFileDescriptorCount() - u.getOpenFileDescriptorCount();
        }
        return Long.MAX_VALUE;
    }

    /**
     * Bound on the API's open connections (issue 22): past it the oldest idle one is closed for
     * a newcomer, or the newcomer when none is idle.
     */
    public static final int MAX_CONNECTIONS = 512;
    /** A connection that has not delivered a whole request head by then is closed. */
    public static final java.time.Duration REQUEST_DEADLINE = java.time.Duration.ofSeconds(10);
    /** A keep-alive connection idle between requests this long is closed. */
    public static final java.time.Duration IDLE_TIMEOUT = java.time.Duration.ofSeconds(60);
    /** Bound on open event streams ({@code /events}); past it a new one is a 503. */
    public static final int MAX_EVENT_STREAMS = 64;
    private static final io.netty.util.AttributeKey<Boolean> SERVED = io.netty.util.AttributeKey.valueOf(
            "sush.served");
    /** Set while a request on the connection is being answered. */
    private static final io.netty.util.AttributeKey<Boolean> IN_FLIGHT = io.netty.util.AttributeKey.valueOf(
            "sush.in-flight");
    private final AtomicLong evictedConnections = new AtomicLong();
    private final AtomicLong refusedConnections = new AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger eventStreams = new java.util.concurrent.atomic.AtomicInteger();

    /** Connections closed for the bound or the request deadline, since start. */
    public long refusedConnections() {
        return refusedConnections.get();
    }

    /** Marks the connection as having delivered a request head, then handles it. */
    private static Publisher<Void> served(HttpServerRequest q, java.util.function.Supplier<Publisher<Void>> then) {
        return inFlight(q, Mono.defer(() -> Mono.from(then.get())));
    }

    /** Open client connections in the order they opened, idle keep-alive ones included. */
    private final java.util.Set<io.netty.channel.Channel> connections =
            java.util.Collections.synchronizedSet(new java.util.LinkedHashSet<>());

    /**
     * Whether a new connection fits: below the bound it does; at the bound the oldest connection
     * with no request in progress (a stranger that never sent one, or an idle keep-alive) is
     * closed to make room, so that idle connections cannot lock operators out (issue 22). With
     * every connection busy, the newcomer is refused.
     */
    private boolean makeRoom() {
        io.netty.channel.Channel victim = null;
        synchronized (connections) {
            if (connections.size() < MAX_CONNECTIONS) {
                return true;
            }
            for (io.netty.channel.Channel c : connections) {
                if (!Boolean.TRUE.equals(c.attr(IN_FLIGHT).get())) {
                    victim = c;
                    break;
                }
            }
            if (victim == null) {
                return false;
            }
            connections.remove(victim);
        }
        evictedConnections.incrementAndGet();
        victim.close();
        return true;
    }

    /** Marks the connection busy while {@code p} answers (a download or event stream: while it streams). */
    private static Publisher<Void> inFlight(HttpServerRequest q, Publisher<Void> p) {
        io.netty.channel.Channel[] ch = new io.netty.channel.Channel[1];
        q.withConnection(c -> {
            ch[0] = c.channel();
            ch[0].attr(SERVED).set(Boolean.TRUE);
            ch[0].attr(IN_FLIGHT).set(Boolean.TRUE);
        });
        return Mono.from(p).doFinally(signal -> {
            if (ch[0] != null) {
                ch[0].attr(IN_FLIGHT).set(Boolean.FALSE);
            }
        });
    }

    /**
     * Closes every client connection, idle keep-alive ones included: a stopped server must not
     * go on answering on them (an in-process restart would otherwise reach the old sled).
     */
    public void closeConnections() {
        List<io.netty.channel.Channel> all;
        synchronized (connections) {
            all = new ArrayList<>(connections);
            connections.clear();
        }
        all.forEach(io.netty.channel.Channel::close);
        relayPool.disposeLater().subscribe(null, e -> LOG.debug("closing the relay pool: {}", e.toString()));
    }

    // ---- Who may ask ----------------------------------------------------------------------

    /**
     * The client's address a login challenge is bound to (its IP: a client may log in over
     * another connection than the one that asked).
     */
    private static String clientOf(HttpServerRequest q) {
        java.net.InetSocketAddress a = q.remoteAddress();
        return a == null ? "" : a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
    }

    /** A handler that runs once the request's body is read and its identity checked. */
    @FunctionalInterface
    private interface Guarded {
        Publisher<Void> run(byte[] body, Authority.Identity who);
    }

    /**
     * Reads the body, checks the request's signature and sequence number against the identity
     * it names; a refusal answers 401 with {@code WWW-Authenticate} and changes nothing.
     */
    private Publisher<Void> guard(HttpServerRequest q, HttpServerResponse s, Guarded then) {
        return inFlight(q, body(q).flatMap(b -> {
            Authority.Identity who;
            try {
                String header = q.requestHeaders().get("Authorization");
                if (header != null && header.startsWith(Authority.READ_SCHEME)) {
                    // D-035: a read token reads; it never starts, stops or attaches to anything.
                    if (!q.method().name().equals("GET") || !readable(q.fullPath())) {
                        throw new Authority.Refusal(403, "read-only", "a read token only reads (GET of the rack's "
                                + "state); this needs sush login");
                    }
                    who = authority.authenticateRead(header);
                } else {
                    // Signed for this sled, or for the sled a relaying request names (issue 36).
                    who = authority.authenticate(header, q.method().name(), q.uri(), b, new Authority.Audience(
                            rackId(), cfg.me().baseboard(), sush.ops.Audiences.relaying(q.method().name(),
                                    q.fullPath()) ? sledParameter(q) : Optional.empty()));
                }
            } catch (Authority.Refusal e) {
                return Mono.from(unauthorized(q, s, e));
            }
            return Mono.from(then.run(b, who));
        }).onErrorResume(Refused.class, e -> error(s, e.status, e.code, e.getMessage())));
    }

    /** The endpoints a read token may GET (D-035): state, statuses, outputs and events; never attach or stream. */
    static boolean readable(String path) {
        return path.equals("/version") || path.equals("/versions") || path.equals("/rack") || path.equals("/sessions")
                || path.equals("/boundary") || path.equals("/events") || path.equals("/jobs")
                || (path.startsWith("/jobs/") && (path.endsWith("/status") || path.contains("/output/")));
    }

    private Publisher<Void> unauthorized(HttpServerRequest q, HttpServerResponse s, Authority.Refusal e) {
        LOG.info("request refused: {} {}: {}", e.status(), e.code(), e.getMessage());
        String nonce = Base64.getEncoder().encodeToString(authority.challenge(clientOf(q)));
        return s.header("WWW-Authenticate", "Sush nonce=\"" + nonce + "\"").status(e.status())
                .header("Content-Type", "application/json").sendString(Mono.just(Json.MAPPER.writeValueAsString(
                        Map.of("error", e.code(), "message", e.getMessage())) + "\n")).then();
    }

    /** Serves {@code /metrics} from {@code m}. */
    public void metrics(sush.ops.daemon.SledMetrics m) {
        this.metrics = m;
    }

    /**
     * The rack CA that another sled's HTTPS API must chain to when this sled relays an output
     * request to it (its certificate must name that sled); without it, relays to an https:// API
     * are refused.
     */
    public void relayTrust(java.security.cert.X509Certificate ca) {
        this.relayCa = Optional.of(ca);
        this.rackId = null;
    }

    private volatile Optional<java.security.cert.X509Certificate> relayCa = Optional.empty();
    /** Set on a request one sled relays to another: a relayed request is never relayed again. */
    static final String RELAYED_BY = "X-Sush-Relayed-By";

    /** {@code GET /metrics}: the Prometheus text exposition (no login: a scraper's probe, nothing private). */
    private Publisher<Void> metrics(HttpServerResponse s) {
        sush.ops.daemon.SledMetrics m = metrics;
        if (m == null) {
            return error(s, 404, "no-metrics", "this API front serves no metrics");
        }
        return s.status(200).header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                .sendString(Mono.fromCallable(m::scrape)).then();
    }

    /** How long the sled's loop may take to answer {@code /health} before the sled counts as stalled. */
    public static final java.time.Duration HEALTH_DEADLINE = java.time.Duration.ofSeconds(1);

    /**
     * {@code GET /health}: 200 when the sled's loop answered within {@link #HEALTH_DEADLINE} and
     * has not failed; 503 otherwise (a supervisor restarts the daemon).
     */
    private Publisher<Void> health(HttpServerResponse s) {
        long t0 = System.nanoTime();
        return runtime.query(v -> true).timeout(HEALTH_DEADLINE).map(ok -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("status", runtime.failure().isPresent() ? "failed" : "ok");
            // Who answers: what a client names in every signed request (issue 36).
            m.put("sled", cfg.me().baseboard());
            m.put("rack_id", rackId());
            m.put("loop_ms", (System.nanoTime() - t0) / 1_000_000.0);
            runtime.failure().ifPresent(f -> m.put("failure", f));
            return m;
        }).flatMap(m -> json(s, "ok".equals(m.get("status")) ? 200 : 503, m))
                .onErrorResume(e -> json(s, 503, Map.of("status", "stalled", "sled", cfg.me().baseboard(), "rack_id",
                        rackId(), "message", "the sled's loop did not answer within " + HEALTH_DEADLINE.toMillis()
                                + " ms")));
    }

    /**
     * {@code GET /ready}: whether the sled can run jobs now, and why not: its store trusted, in a
     * universe, at least one peer connected when it has peers, its gossip set not full, its loop
     * not failed, its output disk not short of space. 200 when ready, 503 with the reasons otherwise.
     */
    private Publisher<Void> ready(HttpServerResponse s) {
        return runtime.query(this::readiness).timeout(HEALTH_DEADLINE)
                .flatMap(m -> json(s, Boolean.TRUE.equals(m.get("ready")) ? 200 : 503, m))
                .onErrorResume(e -> json(s, 503, Map.of("ready", false, "reasons", List.of("the sled's loop did not "
                        + "answer within " + HEALTH_DEADLINE.toMillis() + " ms"))));
    }

    private Map<String, Object> readiness(SledRuntime.View v) {
        GossipNode.Stats stats = node.stats();
        int expected = node.expectedPeers();
        int held = node.replica().size();
        List<String> reasons = new ArrayList<>();
        if (!v.trusted()) {
            reasons.add("the boundary store is not trusted: " + locker.changed().orElse(locker.load().reason()));
        }
        if (v.network() == null || v.network().isBootstrapping()) {
            reasons.add("not in a universe yet");
        }
        if (expected > 0 && stats.connectedPeers() == 0) {
            reasons.add("no peer connected of " + expected);
        }
        if (held >= sush.gossip.set.Replica.MAX_MESSAGES) {
            reasons.add("the gossip set is full (" + held + " messages)");
        }
        runtime.failure().ifPresent(f -> reasons.add("the sled stopped admitting: " + f));
        // A full output disk is not a failure: /health stays ok (a restart frees nothing), /ready
        // says why jobs are refused until space returns (issue 35).
        runtime.shortOfSpace().ifPresent(reasons::add);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ready", reasons.isEmpty());
        m.put("reasons", reasons);
        m.put("store_trusted", v.trusted());
        m.put("ordering", v.ordering().wireName());
        m.put("universe", v.network() == null ? null : v.network().toString());
        m.put("peers_connected", stats.connectedPeers());
        m.put("peers_expected", expected);
        m.put("floor", v.ordering() == Ordering.SIGNED
                ? v.record().map(r -> (Object) ((SignedRecord) r).floor()).orElse(null)
                : v.floor().map(Object::toString).orElse(null));
        m.put("pending_launches", v.pendingLaunches());
        m.put("running", v.running().size());
        m.put("set_messages", held);
        m.put("set_fill", (double) held / sush.gossip.set.Replica.MAX_MESSAGES);
        if (runtime.disk() != sush.pipeline.disk.DiskReserve.NONE) {
            m.put("disk_free_bytes", runtime.disk().usable());
            m.put("disk_reserve_bytes", runtime.disk().reserve());
        }
        return m;
    }

    /**
     * {@code POST /login/challenge}: a fresh nonce. Its body is empty or a JSON object, at most
     * {@link SignedRequests#MAX_BODY_BYTES} like every other (issue 35: a 20 MB or non-JSON body
     * was read and ignored), else 413 or 400.
     */
    private Publisher<Void> challenge(HttpServerRequest q, HttpServerResponse s) {
        return body(q).flatMap(b -> {
            if (b.length > 0) {
                try {
                    if (!Json.MAPPER.readTree(b).isObject()) {
                        throw new IllegalArgumentException("not a JSON object");
                    }
                } catch (RuntimeException e) {
                    return error(s, 400, "malformed-body", "a challenge's body is empty or a JSON object");
                }
            }
            return json(s, 200, Map.of("nonce", Base64.getEncoder().encodeToString(authority.challenge(clientOf(q))),
                    "expires_in_s", Authority.CHALLENGE_MILLIS / 1000));
        }).onErrorResume(Refused.class, e -> Mono.from(error(s, e.status, e.code, e.getMessage())));
    }

    private Publisher<Void> login(HttpServerRequest q, HttpServerResponse s) {
        return body(q).flatMap(b -> {
            byte[][] f;
            try {
                sush.ops.Bodies.Login l = sush.ops.Bodies.read(b, sush.ops.Bodies.Login.class);
                f = new byte[][] {sush.ops.Bodies.base64(l.key(), "key"), sush.ops.Bodies.base64(l.nonce(), "nonce"),
                    sush.ops.Bodies.base64(l.clientNonce(), "client_nonce"), sush.ops.Bodies.base64(l.ephemeral(),
                            "ephemeral"), sush.ops.Bodies.base64(l.signature(), "signature")};
            } catch (BadRequest e) {
                return error(s, 400, e.code(), e.getMessage());
            }
            if (f[1].length != Authority.NONCE_BYTES || f[2].length > 64 || f[3].length != 32
                    || f[0].length > sush.ops.auth.SshKey.MAX_BLOB || f[4].length > sush.ops.auth.SshKey.MAX_BLOB) {
                return error(s, 400, "malformed-body", "nonce is 16 bytes, client_nonce at most 64, ephemeral 32");
            }
            Message.OperatorLogin m;
            try {
                m = authority.login(cfg.me().baseboard(), clientOf(q), f[0], f[1], f[2], f[3], f[4]);
            } catch (Authority.Refusal e) {
                return Mono.from(unauthorized(q, s, e));
            }
            // Gossiped with its evidence: every sled checks it against its own operators file.
            send(new Message.OperatorLogin(m.acceptor(), m.key(), m.nonce(), m.clientNonce(), m.ephemeral(),
                    m.signature(), m.expires()));
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("key_id", keyOf(m).codephrase());
            out.put("expires", m.expires());
            out.put("acceptor", m.acceptor());
            return json(s, 200, out);
        }).onErrorResume(Refused.class, e -> error(s, e.status, e.code, e.getMessage()));
    }

    private static sush.projections.id.KeyId keyOf(Message.OperatorLogin m) {
        try {
            return sush.ops.auth.SshKey.fromBlob(m.key()).id();
        } catch (sush.ops.auth.SshKey.KeyException e) {
            throw new IllegalStateException("a login the authority accepted has a readable key", e);
        }
    }

    private Object iam() {
        List<Object> out = new ArrayList<>();
        for (Authority.Identity i : authority.identities()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key_id", i.key().codephrase());
            m.put("comment", i.comment());
            m.put("acceptor", i.acceptor());
            m.put("expires", i.expires());
            m.put("last_used", i.lastUsed());
            out.add(m);
        }
        List<Object> ops = new ArrayList<>();
        authority.operators().forEach((id, op) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key_id", id.codephrase());
            m.put("type", op.key().type());
            m.put("comment", op.comment());
            m.put("revoked", authority.isRevoked(id));
            ops.add(m);
        });
        return Map.of("identities", out, "operators", ops);
    }

    /** The {@code {kid}} of the path: an operator key's id, else 400 {@code bad-codephrase}. */
    private static sush.projections.id.KeyId keyParam(HttpServerRequest q) throws BadRequest {
        try {
            return sush.projections.id.KeyId.parse(q.param("kid"));
        } catch (IdException e) {
            throw new BadRequest("bad-codephrase", "key id: " + e.getMessage());
        }
    }

    private Mono<Object> revoke(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        sush.projections.id.KeyId key = keyParam(q);
        byte[] id = new byte[16];
        entropy.nextBytes(id);
        Authority.Revocation r = new Authority.Revocation(key, who.key().codephrase(), java.util.HexFormat.of().formatHex(id));
        send(new Message.OperatorRevoked(r.key(), r.by(), r.id()));
        int ended = authority.revoke(r);
        return Mono.just(Map.of("key_id", key.codephrase(), "revoked", true, "identities_ended_here", ended,
                "revocation", r.id()));
    }

    /**
     * {@code POST /iam/unrevoke/{kid}} (issue 36): lifts the key's revocation in force on this
     * sled, rack-wide (gossiped, kept on every sled's disk); a revocation made meanwhile stays.
     */
    private Mono<Object> unrevoke(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        sush.projections.id.KeyId key = keyParam(q);
        Optional<Authority.Revocation> r = authority.revocation(key);
        if (r.isEmpty()) {
            throw new Refused(404, "not-revoked", "key " + key.codephrase() + " is not revoked on sled "
                    + cfg.me().baseboard());
        }
        send(new Message.OperatorUnrevoked(key, who.key().codephrase(), r.get().id()));
        authority.unrevoke(key, who.key().codephrase(), r.get().id());
        LOG.warn("operator {} lifted the revocation of key {} (revoked by {})", who.key().codephrase(),
                key.codephrase(), r.get().by());
        return Mono.just(Map.of("key_id", key.codephrase(), "revoked", false, "lifted", r.get().id()));
    }

    /**
     * Every revocation this sled keeps, and every lifted one it remembers, told to the universe it
     * just entered (issue 36), like the newest grant: a cold-booted rack, or a sled that missed
     * one, learns it; and the live identities its logins made. Sends refused while the node
     * bootstraps are tried again.
     */
    private void regossipRevocations() {
        List<Message> all = new ArrayList<>();
        // The live identities this sled's logins made, too: one made just before a migration
        // would otherwise be unknown to the sleds of the new universe ("no identity here").
        all.addAll(authority.liveLoginsAcceptedBy(cfg.me().baseboard()));
        authority.revocations().forEach(r -> all.add(new Message.OperatorRevoked(r.key(), r.by(), r.id())));
        authority.liftedRevocations().forEach(r -> all.add(new Message.OperatorUnrevoked(r.key(), r.by(), r.id())));
        if (all.isEmpty()) {
            return;
        }
        // Off the sled's loop (the event is emitted there): sends never hold it up.
        Mono.fromRunnable(() -> all.forEach(m -> node.send(MessageCodec.encode(m))))
                .subscribeOn(reactor.core.scheduler.Schedulers.parallel())
                .retryWhen(reactor.util.retry.Retry.fixedDelay(240, java.time.Duration.ofMillis(250)))
                .subscribe(null, e -> LOG.error("the revoked operators could not be told to the new universe: {}",
                        e.toString()));
    }

    /** Logins and revocations other sleds gossip (this sled's own were applied when made). */
    private void onOperatorMessage(Message m) {
        if (m instanceof Message.OperatorLogin) {
            try {
                authority.accept((Message.OperatorLogin) m);
            } catch (Authority.Refusal e) {
                // Not an operator here (or revoked): this sled does not honour it.
            } catch (RuntimeException e) {
                // A malformed login refused by a bug is still refused; the stream goes on.
                System.err.println("sush daemon: a gossiped login was not honoured: " + e);
            }
        } else if (m instanceof Message.OperatorRevoked) {
            Message.OperatorRevoked r = (Message.OperatorRevoked) m;
            try {
                authority.revoke(new Authority.Revocation(r.key(), r.by(), r.id()));
            } catch (IllegalStateException e) {
                // In force in memory; not kept: said loudly, a restart would forget it.
                LOG.error("{}", e.getMessage());
            }
        } else if (m instanceof Message.OperatorUnrevoked) {
            Message.OperatorUnrevoked u = (Message.OperatorUnrevoked) m;
            try {
                authority.unrevoke(u.key(), u.by(), u.lifts());
            } catch (IllegalStateException e) {
                LOG.error("{}", e.getMessage());
            }
        }
    }

    // ---- Queries --------------------------------------------------------------------------

    private Map<String, Object> version() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("baseboard", cfg.me().baseboard());
        m.put("cubby", cfg.me().cubby());
        m.put("software", cfg.software());
        m.put("version", sush.ops.Version.VERSION);
        m.put("commit", sush.ops.Version.COMMIT);
        m.put("network", node.network().toString());
        m.put("ordering", ordering().wireName());
        // Whose rack this is (issue 34): clients file the grants and chains they keep under it.
        m.put("rack_id", rackId());
        // How this sled contains what a job starts (issue 22): "cgroup2 <dir>" or "marker".
        m.put("containment", launcher.containment());
        // How a job's first process gets its own session (D-038).
        m.put("job_sessions", sush.pipeline.exec.ProcessLauncher.sessions());
        return m;
    }

    private Object versions(SledRuntime.View v) {
        List<Object> out = new ArrayList<>();
        if (v.fold() != null) {
            v.fold().announcements().forEach((board, a) -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("baseboard", board);
                m.put("cubby", a.announcement().cubby());
                m.put("software", a.announcement().software());
                if (a.announcement().api() != null) {
                    m.put("api", a.announcement().api());
                }
                out.add(m);
            });
        }
        return Map.of("sleds", out);
    }

    private Publisher<Void> activeSession(HttpServerResponse s) {
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.activeSession()
                .map(a -> session(a, f.activeGrant(), f.chain().map(c -> c.nextFree().codephrase()).orElse(null)))))
                .flatMap(a -> a.isEmpty() ? error(s, 404, "no-session", "no session is active")
                        : json(s, 200, a.get()).then())
                .onErrorResume(e -> error(s, 500, "internal", e.toString()));
    }

    private static Map<String, Object> session(SessionProjection.Session a,
            Optional<sush.projections.job.SignedGrant> grant, String nextJob) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("session_id", a.id().codephrase());
        m.put("starter", a.starter());
        m.put("acceptor", a.acceptor());
        m.put("ordering", grant.isPresent() ? "signed" : "causal");
        grant.ifPresent(g -> {
            m.put("epoch", g.grant().epoch());
            m.put("signer", g.grant().signer().codephrase());
        });
        m.put("next_job", nextJob);
        return m;
    }

    /** Jobs per page of {@code GET /jobs} by default, and at most. */
    static final int HISTORY_LIMIT = 20;
    static final int HISTORY_MAX_LIMIT = 1000;

    /**
     * {@code GET /jobs?limit=N&offset=M&session=S}: the jobs this sled knows in the current
     * universe, newest first, {@code offset} of them skipped, at most {@code limit}, only
     * session S's when given; each with its session and every sled's status; {@code total} counts
     * the jobs matched. A limit, offset or session that is not one is a 400.
     */
    private Publisher<Void> history(HttpServerRequest q, HttpServerResponse s) {
        io.netty.handler.codec.http.QueryStringDecoder d = new io.netty.handler.codec.http.QueryStringDecoder(q.uri());
        int limit;
        int offset;
        Optional<SessionId> session;
        try {
            limit = (int) queryNumber(d, "limit", HISTORY_LIMIT, 1, HISTORY_MAX_LIMIT);
            offset = (int) queryNumber(d, "offset", 0, 0, Integer.MAX_VALUE);
            List<String> given = d.parameters().get("session");
            session = given == null || given.isEmpty() ? Optional.empty() : Optional.of(sessionId(given.get(0)));
        } catch (BadRequest e) {
            return error(s, 400, e.code(), e.getMessage());
        }
        return query(s, v -> jobs(v, limit, offset, session));
    }

    private static long queryNumber(io.netty.handler.codec.http.QueryStringDecoder d, String name, long otherwise,
            long min, long max) throws BadRequest {
        List<String> given = d.parameters().get(name);
        if (given == null || given.isEmpty()) {
            return otherwise;
        }
        try {
            long n = Long.parseLong(given.get(0));
            if (n < min || n > max) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            String shown = given.get(0).length() > 40 ? given.get(0).substring(0, 40) + "..." : given.get(0);
            throw new BadRequest("bad-" + name, name + " is a whole number from " + min + " to " + max + ", not '"
                    + shown.replaceAll("[^\\x20-\\x7e]", "?") + "'");
        }
    }

    private Object jobs(SledRuntime.View v, int limit, int offset, Optional<SessionId> session) {
        List<Object> out = new ArrayList<>();
        int matched = 0;
        if (v.fold() != null) {
            List<JobId> ids = v.fold().statuses().jobs();
            for (int i = ids.size() - 1; i >= 0; i--) {
                JobId id = ids.get(i);
                Optional<SessionId> of = v.fold().sessionOf(id);
                if (session.isPresent() && !session.equals(of)) {
                    continue;
                }
                matched++;
                if (matched <= offset || out.size() >= limit) {
                    continue;
                }
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("job_id", id.codephrase());
                m.put("session_id", of.map(SessionId::codephrase).orElse(null));
                m.put("statuses", Json.statuses(v.fold().statuses().statuses(id)));
                out.add(m);
            }
        }
        Map<String, Object> page = new LinkedHashMap<>();
        page.put("total", matched);
        page.put("offset", offset);
        page.put("limit", limit);
        page.put("jobs", out);
        return page;
    }

    private Object boundary(SledRuntime.View v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("baseboard", cfg.me().baseboard());
        m.put("trusted", v.trusted());
        m.put("load", locker.load().verdict().name().toLowerCase(java.util.Locale.ROOT));
        m.put("load_reason", locker.load().reason());
        // A change to the slots this daemon did not make, found while it runs (issue 22).
        m.put("changed", locker.changed().orElse(null));
        m.put("ordering", v.ordering().wireName());
        if (v.ordering() == Ordering.SIGNED) {
            // No universe floor in the signed ordering: the record's floor epoch is the floor.
            Optional<SignedRecord> r = v.record().map(SignedRecord.class::cast);
            m.put("floor", r.map(x -> (Object) x.floor()).orElse(null));
            m.put("record", r.map(ApiServer::signedRecord).orElse(null));
        } else {
            m.put("floor", v.floor().map(Object::toString).orElse(null));
            Optional<BoundaryRecord> r = v.record().map(BoundaryRecord.class::cast);
            m.put("record", r.map(ApiServer::record).orElse(null));
        }
        return m;
    }

    static Map<String, Object> signedRecord(SignedRecord r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("floor_epoch", r.floor());
        m.put("committed", r.committed().map(c -> {
            Map<String, Object> x = committed(c.session().session(), c.job(), c.successor(), c.outcome());
            x.put("epoch", c.session().epoch());
            x.put("signer", c.session().signer().codephrase());
            return x;
        }).orElse(null));
        return m;
    }

    /** A committed job as {@code /boundary} shows it, in either ordering's record. */
    private static Map<String, Object> committed(SessionId session, JobId job, JobId successor,
            sush.locker.record.Outcome outcome) {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("session", session.codephrase());
        x.put("job", job.codephrase());
        x.put("successor", successor.codephrase());
        x.put("outcome", outcome.isEnded() ? Json.lower(outcome.status()) : "committed");
        x.put("code", outcome.code());
        return x;
    }

    static Map<String, Object> record(BoundaryRecord r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("network", r.network().toString());
        m.put("executed", r.executed().toString());
        m.put("committed", r.committed().map(c -> committed(c.session(), c.job(), c.successor(), c.outcome()))
                .orElse(null));
        m.put("recent", r.recent().stream().map(l -> l.network().toString()).toList());
        m.put("bloom_bits_set", r.burned().fill());
        m.put("amnesiac", r.amnesiac());
        return m;
    }

    /**
     * A job's statuses as this sled knows them (every sled's, by gossip); {@code ?sled=B} keeps
     * B's alone, and no status of B for the job is a 404. {@code conflicts}, when any sled reported
     * one, names by reporter the successor of the request it holds at this position and of the one
     * it refused (ordered-sessions.md section 9): a job id is a position, so a client that signed
     * the refused request tells by it that the status there is another request's.
     */
    private Mono<Object> status(HttpServerRequest q) throws BadRequest {
        JobId job = jobId(q.param("jid"));
        Optional<String> sled = sledParameter(q);
        return runtime.query(v -> v.fold() == null ? List.<Map<String, Object>>of(Map.of(), Map.of())
                : List.of(Json.statuses(v.fold().statuses().statuses(job)),
                        Json.conflicts(v.fold().statuses().conflicts(job)))).flatMap(both -> {
                    Map<String, Object> all = both.get(0);
                    Map<String, Object> m = sled.isEmpty() ? all : all.containsKey(sled.get())
                            ? Map.of(sled.get(), all.get(sled.get())) : Map.of();
                    if (m.isEmpty()) {
                        return Mono.error(new Refused(404, "unknown-job", "no status for job " + job.codephrase()
                                + sled.map(b -> " from sled " + b).orElse("")));
                    }
                    Map<String, Object> out = new LinkedHashMap<>();
                    out.put("job_id", job.codephrase());
                    out.put("statuses", m);
                    Map<String, Object> conflicts = new java.util.TreeMap<>(both.get(1));
                    conflicts.keySet().retainAll(m.keySet());
                    if (!conflicts.isEmpty()) {
                        out.put("conflicts", conflicts);
                    }
                    return Mono.just((Object) out);
                });
    }

    /** Bound on the links one {@code GET /sessions/{sid}/chain} answers; the client asks again after the last. */
    static final int CHAIN_PAGE = 1024;

    /**
     * {@code GET /sessions/{sid}/chain?after=P}: the requests and burns this sled holds of active
     * session {@code sid}'s chain from position P on (the session's first when not given), in
     * chain order, at most {@link #CHAIN_PAGE} ({@code more} says whether the chain goes on). What
     * a client extends the chain it keeps by before it places a job (ordered-sessions.md section
     * 9): it never places one at a position a sled merely names.
     */
    private Mono<Object> chain(HttpServerRequest q) throws BadRequest {
        SessionId id = sessionId(q.param("sid"));
        List<String> given = new io.netty.handler.codec.http.QueryStringDecoder(q.uri()).parameters().get("after");
        JobId after = given == null || given.isEmpty() ? sush.projections.id.Chain.first(id) : jobId(given.get(0));
        return runtime.query(v -> Optional.ofNullable(v.fold()).filter(f -> f.activeSession()
                .map(a -> a.id().equals(id)).orElse(false)).flatMap(f -> f.chain())
                .map(c -> c.from(after, CHAIN_PAGE + 1))).flatMap(links -> {
                    if (links.isEmpty()) {
                        return Mono.error(new Refused(404, "not-active", "session " + id.codephrase()
                                + " is not the active session here"));
                    }
                    List<Object> out = new ArrayList<>();
                    for (sush.projections.fold.ChainProjection.Link l : links.get().subList(0, Math.min(CHAIN_PAGE,
                            links.get().size()))) {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("position", l.position().codephrase());
                        if (l.request().isPresent()) {
                            m.put("request", SignedRequests.toJson(l.request().get()));
                        } else {
                            m.put("burn", true);
                        }
                        out.add(m);
                    }
                    return Mono.just((Object) Map.of("session_id", id.codephrase(), "after", after.codephrase(),
                            "links", out, "more", links.get().size() > CHAIN_PAGE));
                });
    }

    /**
     * This rack's id: the key id of its CA (SHA3-256 of the CA certificate's public key, cut to 88
     * bits, as a codephrase), the same on every sled of the rack; a rack without a CA (plain
     * gossip, tests) is named by the key id of the first signer its sleds trust, prefixed
     * {@code signer-}.
     */
    private String rackId() {
        String id = rackId;
        if (id == null) {
            id = computeRackId();
            rackId = id;
        }
        return id;
    }

    /** {@link #rackId()}, worked out once per CA (cleared when the relay's CA is given). */
    private volatile String rackId;

    private String computeRackId() {
        if (relayCa.isPresent()) {
            return new sush.projections.id.KeyId(sush.projections.id.Hashes.low88(sush.projections.id.Hashes.sha3Raw(
                    relayCa.get().getPublicKey().getEncoded()))).codephrase();
        }
        return "signer-" + cfg.trust().keyIds().stream().map(sush.projections.id.KeyId::codephrase).sorted().findFirst()
                .orElse("none");
    }

    /** The {@code sled} query parameter when it names another sled than this one (the request is relayed). */
    private Optional<String> elsewhere(HttpServerRequest q) {
        return sledParameter(q).filter(b -> !b.equals(cfg.me().baseboard()));
    }

    /** The rack page's files (issue 20, D-035): shipped in the jar, nothing fetched from elsewhere. */
    private static final Map<String, String> PAGE_FILES = Map.of("index.html", "text/html; charset=utf-8", "app.js",
            "text/javascript; charset=utf-8", "style.css", "text/css; charset=utf-8");

    private static final Map<String, byte[]> PAGE_BYTES = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * {@code GET /} and {@code /web/{file}}: the rack page. It holds no data: the page asks the
     * API for everything with the read token the operator gave it ({@code sush login --web}).
     */
    private Publisher<Void> page(HttpServerResponse s, String file) {
        String type = PAGE_FILES.get(file);
        if (type == null) {
            return error(s, 404, "no-such-file", "the page has no file " + file.replaceAll("[^A-Za-z0-9._-]", "?"));
        }
        byte[] body = PAGE_BYTES.get(file);
        if (body == null) {
            // Read from the jar once (three small files), then served from memory.
            try (java.io.InputStream in = ApiServer.class.getResourceAsStream("/sush/ops/web/" + file)) {
                if (in == null) {
                    return error(s, 500, "page-missing", "the page's " + file + " is not in this build");
                }
                body = in.readAllBytes();
            } catch (IOException e) {
                return error(s, 500, "page-missing", e.getMessage());
            }
            PAGE_BYTES.putIfAbsent(file, body);
        }
        return s.status(200).header("Content-Type", type).header("Cache-Control", "no-store")
                .header("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:")
                .header("X-Content-Type-Options", "nosniff").sendByteArray(Mono.just(body)).then();
    }

    /** The {@code sled} query parameter, when given. */
    private static Optional<String> sledParameter(HttpServerRequest q) {
        List<String> given = new io.netty.handler.codec.http.QueryStringDecoder(q.uri()).parameters().get("sled");
        return given == null || given.isEmpty() ? Optional.empty() : Optional.of(given.get(0));
    }

    private Publisher<Void> output(HttpServerRequest q, HttpServerResponse s, Authority.Identity who) {
        JobId job;
        try {
            job = jobId(q.param("jid"));
        } catch (BadRequest e) {
            return error(s, 400, e.code(), e.getMessage());
        }
        String stream = q.param("stream");
        if (!"stdout".equals(stream) && !"stderr".equals(stream)) {
            return error(s, 404, "unknown-stream", "output is stdout or stderr");
        }
        Optional<String> sled = sledParameter(q);
        if (sled.isPresent() && !sled.get().equals(cfg.me().baseboard())) {
            return relay(q, s, sled.get());
        }
        Optional<SessionId> interactive = launcher.interactiveSession(job);
        if (interactive.isPresent()) {
            // Issue 36, item 5: `session deny` keeps the key from the terminal in every form, its
            // recorded transcript included (signed, relayed here, or with a read token).
            SessionId session = interactive.get();
            return runtime.query(v -> v.fold() == null || v.fold().session(session).isEmpty() ? Message.Access.READ
                    : v.fold().access(session, who.key().codephrase())).flatMap(access -> access
                            == Message.Access.NONE ? Mono.from(error(s, 403, "denied", "the session's starter denied "
                                    + who.key().codephrase() + " its interactive jobs, their transcripts included"))
                            : Mono.from(sendOutput(q, s, job, stream)));
        }
        return sendOutput(q, s, job, stream);
    }

    /** The bytes of a job's {@code stream} as kept on this sled (a range of them when asked). */
    private Publisher<Void> sendOutput(HttpServerRequest q, HttpServerResponse s, JobId job, String stream) {
        if ("stdout".equals(stream) && launcher.streamed(job)) {
            return error(s, 404, "not-stored", "job " + job.codephrase() + " streamed its stdout to its client; this "
                    + "sled kept none (its length and hash are in the status)");
        }
        Path file = launcher.jobDir(job).resolve(stream);
        long length;
        try {
            // One stat; the bytes themselves never pass through the heap or the event loop's
            // buffers: the file is sent by the kernel (zero-copy) or, over TLS, in chunks.
            length = Files.size(file);
        } catch (IOException e) {
            if (deletedOutputs.test(job.codephrase())) {
                // Issue 35: said as such, never as if there had been none: the length and hash in
                // the status are what it was.
                return error(s, 410, "output-deleted", "this sled deleted the output of job " + job.codephrase()
                        + " to keep its outputs within their budget (--output-max-bytes); the length and hash in its "
                        + "status are what it was");
            }
            return error(s, 404, "no-output", "this sled holds no " + stream + " for job " + job.codephrase());
        }
        String range = q.requestHeaders().get("Range");
        ByteRange.Ask ask = ByteRange.parse(range, length);
        if (ask instanceof ByteRange.Ask.Unsatisfiable) {
            return s.header("Content-Range", "bytes */" + length).status(416)
                    .header("Content-Type", "application/json").sendString(Mono.just(Json.MAPPER.writeValueAsString(
                            Map.of("error", "bad-range", "message", "range " + range + " holds no byte of "
                                    + length)) + "\n")).then();
        }
        if (downloads.incrementAndGet() > MAX_DOWNLOADS) {
            downloads.decrementAndGet();
            return error(s, 503, "too-many-downloads", MAX_DOWNLOADS + " output downloads are in progress on this "
                    + "sled; try again");
        }
        long first = 0;
        long count = length;
        if (ask instanceof ByteRange.Ask.Part) {
            ByteRange r = ((ByteRange.Ask.Part) ask).range();
            first = r.first();
            count = r.length();
            s.status(206).header("Content-Range", "bytes " + r.first() + "-" + r.last() + "/" + length);
        } else {
            s.status(200);
        }
        // A client that stops reading is cut once nothing it was sent moved for the write stall.
        q.withConnection(c -> c.addHandlerLast("sush-write-stall", new WriteStall(writeStall)));
        String reading = job.codephrase();
        beingRead.merge(reading, 1, Integer::sum);
        return s.header("Content-Type", "application/octet-stream").header("Content-Length", Long.toString(count))
                .sendFile(file, first, count).then().doFinally(signal -> {
                    downloads.decrementAndGet();
                    beingRead.computeIfPresent(reading, (k, n) -> n <= 1 ? null : n - 1);
                });
    }

    /** Jobs whose output is being sent now, with how many downloads of each: the output budget keeps them. */
    private final Map<String, Integer> beingRead = new java.util.concurrent.ConcurrentHashMap<>();
    /** Whether the output budget deleted a job's output (given by the daemon; none by default). */
    private volatile java.util.function.Predicate<String> deletedOutputs = job -> false;

    /** The jobs (codephrases) whose output a client is reading now. */
    public java.util.Set<String> outputsBeingRead() {
        return java.util.Set.copyOf(beingRead.keySet());
    }

    /** Tells the API which outputs the sled's output budget deleted (their downloads answer 410). */
    public void deletedOutputs(java.util.function.Predicate<String> deleted) {
        this.deletedOutputs = deleted;
    }

    /**
     * Any sled answers for any sled (issue 18, D-032): the request goes on, as the operator signed
     * it (same path, query and {@code Authorization}), to the API that sled announced to the rack;
     * that sled checks the operator itself. Its status, length, range and bytes come back as they
     * stream (never held whole); over HTTPS its certificate must name that sled.
     */
    private Publisher<Void> relay(HttpServerRequest q, HttpServerResponse s, String sled) {
        if (q.requestHeaders().contains(RELAYED_BY)) {
            return error(s, 508, "relay-loop", "sled " + q.requestHeaders().get(RELAYED_BY) + " relayed this request "
                    + "for sled " + sled + " to " + cfg.me().baseboard() + ", which is another sled: its announced "
                    + "API address is wrong");
        }
        return runtime.query(v -> v.fold() == null ? Optional.<String>empty()
                : Optional.ofNullable(v.fold().announcements().get(sled)).map(a -> a.announcement().api()))
                .flatMap(api -> {
                    if (api.isEmpty()) {
                        return error(s, 404, "unknown-sled", "sled " + sled + " has announced no API to sled "
                                + cfg.me().baseboard() + " (unknown, unreachable since it started, or of an older "
                                + "build)");
                    }
                    if (downloads.incrementAndGet() > MAX_DOWNLOADS) {
                        downloads.decrementAndGet();
                        return error(s, 503, "too-many-downloads", MAX_DOWNLOADS + " output downloads are in "
                                + "progress on this sled; try again");
                    }
                    return relayTo(q, s, sled, api.get()).doFinally(signal -> downloads.decrementAndGet());
                });
    }

    /**
     * The URI of a relayed request: the announced API's scheme, host and port, and the request's
     * origin-form path and query (checked before routing); never the caller's text pasted on.
     */
    static String relayUri(String api, String target) {
        if (!originForm(target)) {
            throw new IllegalArgumentException("not an origin-form request-target");
        }
        java.net.URI a = java.net.URI.create(api);
        return a.getScheme() + "://" + a.getHost() + (a.getPort() < 0 ? "" : ":" + a.getPort()) + target;
    }

    /** The kept client of sled {@code sled} at {@code api}, made at first use. */
    private reactor.netty.http.client.HttpClient relayClientOf(String sled, String api)
            throws javax.net.ssl.SSLException, sush.gossip.net.GossipTls.TlsException {
        // One client per sled and address, kept: a page reads every sled's state every few seconds.
        String k = sled + " " + api;
        reactor.netty.http.client.HttpClient c = relayClients.get(k);
        if (c == null) {
            if (relayClients.size() >= MAX_RELAY_CLIENTS) {
                relayClients.clear();
            }
            c = relayClient(sled, api);
            relayClients.put(k, c);
        }
        return c;
    }

    private Mono<Void> relayTo(HttpServerRequest q, HttpServerResponse s, String sled, String api) {
        reactor.netty.http.client.HttpClient c;
        try {
            c = relayClientOf(sled, api);
        } catch (javax.net.ssl.SSLException | sush.gossip.net.GossipTls.TlsException | IllegalStateException e) {
            return error(s, 502, "sled-unreachable", "cannot reach sled " + sled + " at " + api + ": " + e.getMessage());
        }
        io.netty.handler.codec.http.HttpHeaders in = q.requestHeaders();
        q.withConnection(conn -> conn.addHandlerLast("sush-write-stall", new WriteStall(writeStall)));
        return c.headers(h -> {
            for (String name : new String[] {"Authorization", "Range"}) {
                if (in.contains(name)) {
                    h.set(name, in.get(name));
                }
            }
            h.set(RELAYED_BY, cfg.me().baseboard());
        }).get().uri(relayUri(api, q.uri())).response((r, body) -> {
            s.status(r.status());
            for (String name : new String[] {"Content-Type", "Content-Length", "Content-Range"}) {
                if (r.responseHeaders().contains(name)) {
                    s.header(name, r.responseHeaders().get(name));
                }
            }
            return s.send(body.retain()).then();
        }).then().onErrorResume(e -> s.hasSentHeaders() ? Mono.error(e) : error(s, 502, "sled-unreachable",
                "cannot reach sled " + sled + " at " + api + ": " + e.getMessage()));
    }

    /**
     * {@code GET /rack} (D-035): every announced sled's state in one answer, this sled's own entry
     * ({@code GET /rack?sled=B}) from each, the others asked at once by this one with the caller's
     * read token (each checks it itself). A page makes one request where it made two per sled:
     * a browser opens six connections to a host, and 64 relayed requests queued behind them. A
     * sled that has not answered within {@link #RACK_SLED_WAIT} is {@code "reachable": false}
     * with the reason; one that answered with an error is reachable with that error. A signed
     * request names one path and sled and cannot be passed on to others: the whole rack needs a
     * read token, and {@code ?sled=B} takes any login.
     */
    private Publisher<Void> rack(HttpServerRequest q, HttpServerResponse s) {
        String header = q.requestHeaders().get("Authorization");
        if (header == null || !header.startsWith(Authority.READ_SCHEME)) {
            return error(s, 400, "read-token-needed", "GET /rack asks every sled with the caller's read token; a "
                    + "signed request names one path and sled (sush login --web makes a token; or ask /rack?sled=B)");
        }
        if (q.requestHeaders().contains(RELAYED_BY)) {
            return error(s, 508, "relay-loop", "GET /rack is never relayed");
        }
        return runtime.query(v -> {
            Map<String, Object> mine = rackEntry(v);
            List<Map<String, Object>> others = new ArrayList<>();
            if (v.fold() != null) {
                v.fold().announcements().forEach((board, a) -> {
                    if (!board.equals(cfg.me().baseboard())) {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("baseboard", board);
                        m.put("cubby", a.announcement().cubby());
                        m.put("software", a.announcement().software());
                        m.put("api", a.announcement().api());
                        others.add(m);
                    }
                });
            }
            return java.util.Map.entry(mine, others);
        }).flatMap(got -> {
            List<Mono<Map<String, Object>>> asks = new ArrayList<>();
            asks.add(Mono.just(got.getKey()));
            for (Map<String, Object> m : got.getValue()) {
                String board = (String) m.get("baseboard");
                String api = (String) m.get("api");
                if (api == null) {
                    m.put("reachable", false);
                    m.put("error", "announced no API address");
                    asks.add(Mono.just(m));
                    continue;
                }
                asks.add(ask(board, api, "/rack", header).timeout(RACK_SLED_WAIT).map(answer -> {
                    m.put("reachable", true);
                    if ((int) answer[0] == 200 && answer[1] instanceof JsonNode) {
                        // Its own word on its state; its announcement (gossiped) stays as we know it.
                        JsonNode own = (JsonNode) answer[1];
                        m.put("version", own.get("version"));
                        m.put("boundary", own.get("boundary"));
                    } else {
                        m.put("error", answer[0] + " " + answer[1]);
                    }
                    return m;
                }).onErrorResume(e -> {
                    m.put("reachable", false);
                    m.put("error", e instanceof java.util.concurrent.TimeoutException ? "no answer within "
                            + RACK_SLED_WAIT.toMillis() + " ms" : String.valueOf(e.getMessage()));
                    return Mono.just(m);
                }));
            }
            return Flux.mergeSequential(asks).collectList();
        }).flatMap(list -> {
            list.sort(java.util.Comparator.comparing(m -> String.valueOf(m.get("baseboard"))));
            return json(s, 200, Map.of("served_by", cfg.me().baseboard(), "sleds", list));
        }).onErrorResume(e -> error(s, 500, "internal", e.toString()));
    }

    /** This sled's entry of {@code GET /rack}: as announced, and its {@code /version} and {@code /boundary}. */
    private Map<String, Object> rackEntry(SledRuntime.View v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("baseboard", cfg.me().baseboard());
        m.put("cubby", cfg.me().cubby());
        m.put("software", cfg.software());
        m.put("api", v.fold() == null ? null : Optional.ofNullable(v.fold().announcements().get(cfg.me().baseboard()))
                .map(a -> a.announcement().api()).orElse(null));
        m.put("reachable", true);
        m.put("version", version());
        m.put("boundary", boundary(v));
        return m;
    }

    /**
     * Asks {@code GET /health} at {@code url}, the API address this sled announces, through the
     * client another sled's relay would use (over HTTPS, checking that the certificate names this
     * sled). An address that does not answer is a warning in the log: other sleds cannot relay
     * to this one, and the rack page draws it DOWN. It also loads the relay's client before the
     * first page asks the rack (the first {@code GET /rack} of a fresh daemon took about half a
     * second more without it). True when it answered 200.
     */
    public Mono<Boolean> probeAnnounced(String url) {
        reactor.netty.http.client.HttpClient c;
        try {
            // One question on a connection of its own, closed after it (kept idle, it would count
            // against this sled's connection bound as the oldest idle one).
            c = relayClient(cfg.me().baseboard(), url, reactor.netty.resources.ConnectionProvider.newConnection());
        } catch (javax.net.ssl.SSLException | sush.gossip.net.GossipTls.TlsException | IllegalStateException e) {
            LOG.warn("the API address this sled announces, {}, cannot be asked: {}", url, e.getMessage());
            return Mono.just(false);
        }
        return c.get().uri(url + "/health").responseSingle((r, body) -> body.asString().defaultIfEmpty("")
                .map(text -> r.status().code())).timeout(RACK_SLED_WAIT).map(code -> {
                    if (code != 200) {
                        LOG.warn("the API address this sled announces, {}, answered /health with {}", url, code);
                    }
                    return code == 200;
                }).onErrorResume(e -> {
                    LOG.warn("the API address this sled announces, {}, does not answer here ({}): other sleds cannot "
                            + "relay to it and the rack page draws this sled DOWN", url, e.toString());
                    return Mono.just(false);
                });
    }

    /** GET {@code path?sled=B} at sled B's API with {@code auth}: {status, JSON or text}. */
    private Mono<Object[]> ask(String sled, String api, String path, String auth) {
        reactor.netty.http.client.HttpClient c;
        try {
            c = relayClientOf(sled, api);
        } catch (javax.net.ssl.SSLException | sush.gossip.net.GossipTls.TlsException | IllegalStateException e) {
            return Mono.error(e);
        }
        String uri = api + path + "?sled=" + java.net.URLEncoder.encode(sled, java.nio.charset.StandardCharsets.UTF_8);
        return c.headers(h -> h.set("Authorization", auth).set(RELAYED_BY, cfg.me().baseboard())).get().uri(uri)
                .responseSingle((r, body) -> body.asString().defaultIfEmpty("").map(text -> {
                    int code = r.status().code();
                    if (code != 200) {
                        String shown = text.length() > 200 ? text.substring(0, 200) : text;
                        return new Object[] {code, shown.strip()};
                    }
                    return new Object[] {code, Json.MAPPER.readTree(text)};
                }));
    }

    /** How long {@code GET /rack} waits for another sled's state before drawing it unreachable. */
    static final java.time.Duration RACK_SLED_WAIT = java.time.Duration.ofMillis(2_500);

    /** A client of another sled's API: plain for http://, and for https:// the rack CA naming that sled. */
    private reactor.netty.http.client.HttpClient relayClient(String sled, String api)
            throws javax.net.ssl.SSLException, sush.gossip.net.GossipTls.TlsException {
        return relayClient(sled, api, relayPool);
    }

    private reactor.netty.http.client.HttpClient relayClient(String sled, String api,
            reactor.netty.resources.ConnectionProvider pool)
            throws javax.net.ssl.SSLException, sush.gossip.net.GossipTls.TlsException {
        reactor.netty.http.client.HttpClient c = reactor.netty.http.client.HttpClient.create(pool)
                .option(io.netty.channel.ChannelOption.CONNECT_TIMEOUT_MILLIS, 3_000)
                .responseTimeout(RELAY_RESPONSE_TIMEOUT);
        if (!api.startsWith("https://")) {
            return c;
        }
        java.security.cert.X509Certificate ca = relayCa.orElseThrow(() -> new IllegalStateException(
                "this sled has no rack CA to check an HTTPS API with"));
        javax.net.ssl.X509TrustManager trust = sush.gossip.net.GossipTls.apiTrust(ca, Optional.of(sled));
        reactor.netty.tcp.SslProvider.GenericSslContextSpec<?> spec = reactor.netty.http.Http11SslContextSpec.forClient()
                .configure(b -> b.trustManager(trust));
        // Sleds are named by certificate (the trust manager checks it names this one), not by host.
        return c.secure(t -> t.sslContext(spec).handlerConfigurator(h -> {
            javax.net.ssl.SSLParameters p = h.engine().getSSLParameters();
            p.setEndpointIdentificationAlgorithm(null);
            h.engine().setSSLParameters(p);
        }));
    }

    /**
     * This server's own pool of connections to other sleds' APIs (not Reactor Netty's global
     * one, which every daemon of a JVM would share): a relay waits at most
     * {@link #RELAY_ACQUIRE_WAIT} for a connection (the global pool's default is 45 s, longer
     * than any client waits), idle ones are dropped before the other sled's idle timeout would
     * close them, and {@link #closeConnections} ends them all with this server.
     */
    private final reactor.netty.resources.ConnectionProvider relayPool = reactor.netty.resources.ConnectionProvider
            .builder("sush-relay").maxConnections(RELAY_CONNECTIONS).pendingAcquireTimeout(RELAY_ACQUIRE_WAIT)
            .maxIdleTime(RELAY_IDLE).build();
    /** Connections this server holds to one other sled's API at most (a page asks each sled one thing at a time). */
    static final int RELAY_CONNECTIONS = 64;
    /** How long a relay waits for one of them. */
    static final java.time.Duration RELAY_ACQUIRE_WAIT = java.time.Duration.ofSeconds(5);
    /** An idle one is closed after this, before the other sled's {@link #IDLE_TIMEOUT} closes it. */
    static final java.time.Duration RELAY_IDLE = java.time.Duration.ofSeconds(30);

    /** Relay clients kept (a rack has 32 sleds; a moved API adds one); past it they are made again. */
    static final int MAX_RELAY_CLIENTS = 256;
    private final Map<String, reactor.netty.http.client.HttpClient> relayClients =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** How long a relayed request waits for the other sled's answer to begin. */
    static final java.time.Duration RELAY_RESPONSE_TIMEOUT = java.time.Duration.ofSeconds(10);

    // ---- Interactive jobs (issue 19, D-034) ---------------------------------------------------

    /**
     * {@code GET /jobs/{id}/attach}: a WebSocket on a running interactive job's terminal, served
     * by the sled running it. First a text frame {@code {"type":"size","rows","cols","write"}},
     * then the last 64 KiB shown and everything after it as binary frames; at the end
     * {@code {"type":"exit","status":{...}}}. From the client: binary frames are keystrokes,
     * {@code {"type":"resize","rows","cols"}} and {@code {"type":"detach"}}. The session's
     * starter writes; anyone else logged in watches (their input is ignored). A client that
     * falls behind is dropped ({@code {"type":"dropped"}}); the job never waits for one.
     */
    private Publisher<Void> attach(HttpServerRequest q, HttpServerResponse s, Authority.Identity who) {
        JobId job;
        try {
            job = jobId(q.param("jid"));
        } catch (BadRequest e) {
            return error(s, 400, e.code(), e.getMessage());
        }
        Optional<sush.pipeline.exec.Terminal> t = launcher.terminal(job);
        if (t.isEmpty()) {
            return error(s, 404, "not-attachable", "job " + job.codephrase() + " is not an interactive job running on "
                    + "sled " + cfg.me().baseboard() + " (attach where it runs; a job that ended has its output)");
        }
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.sessionOf(job)).map(id ->
                v.fold().access(id, who.key().codephrase())).orElse(Message.Access.NONE)).flatMap(access -> {
                    if (access == Message.Access.NONE) {
                        return error(s, 403, "denied", "the session's starter has not let " + who.key().codephrase()
                                + " attach to its jobs");
                    }
                    boolean writes = access == Message.Access.WRITE;
                    return s.sendWebsocket((in, out) -> terminalSession(job, t.get(), writes, in, out));
                });
    }

    private Publisher<Void> terminalSession(JobId job, sush.pipeline.exec.Terminal t, boolean writes,
            reactor.netty.http.websocket.WebsocketInbound in, reactor.netty.http.websocket.WebsocketOutbound out) {
        Sinks.Empty<Void> detached = Sinks.empty();
        in.receiveFrames().map(f -> new ClientFrame(f instanceof io.netty.handler.codec.http.websocketx.TextWebSocketFrame,
                io.netty.buffer.ByteBufUtil.getBytes(f.content())))
                .publishOn(reactor.core.scheduler.Schedulers.boundedElastic())
                .subscribe(f -> {
                    try {
                        if (!f.text()) {
                            if (writes) {
                                t.input(f.bytes());
                            }
                            return;
                        }
                        JsonNode c = Json.MAPPER.readTree(new String(f.bytes(), StandardCharsets.UTF_8));
                        String type = c.path("type").asString("");
                        if (type.equals("detach")) {
                            detached.tryEmitEmpty();
                        } else if (type.equals("resize") && writes) {
                            t.resize(c.path("rows").asInt(0), c.path("cols").asInt(0));
                        }
                    } catch (java.io.IOException | RuntimeException e) {
                        // A keystroke after the end, a bad size or a malformed control: the
                        // client is told nothing more than the terminal's own output says.
                        LOG.debug("attach {}: {}", job.codephrase(), e.toString());
                    }
                }, err -> detached.tryEmitEmpty(), detached::tryEmitEmpty);
        Flux<io.netty.handler.codec.http.websocketx.WebSocketFrame> frames = Flux.concat(
                Mono.fromCallable(() -> {
                    int[] size = t.size();
                    return control(Map.of("type", "size", "rows", size[0], "cols", size[1], "write", writes));
                }),
                t.attach().map(b -> (io.netty.handler.codec.http.websocketx.WebSocketFrame)
                        new io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame(
                                io.netty.buffer.Unpooled.wrappedBuffer(b)))
                        .onErrorResume(sush.pipeline.exec.Terminal.Lagging.class, e -> Mono.just(control(Map.of(
                                "type", "dropped", "message", e.getMessage())))),
                ownStatus(job).map(st -> control(Map.of("type", "exit", "status", st))));
        return out.sendObject(frames.takeUntilOther(detached.asMono())).then();
    }

    /**
     * {@code GET /jobs/{id}/stream}: a streaming job's stdout as it is produced, to one client
     * (the session's starter), served by the sled running it. The body ends with the output;
     * the client checks it against the status's length and hash. A client that goes away ends
     * the job with an error saying so; a slow one makes the job wait (at most 4 MiB held here).
     */
    private Publisher<Void> stream(HttpServerRequest q, HttpServerResponse s, Authority.Identity who) {
        JobId job;
        try {
            job = jobId(q.param("jid"));
        } catch (BadRequest e) {
            return error(s, 400, e.code(), e.getMessage());
        }
        Optional<sush.pipeline.exec.Outflow> flow = launcher.outflow(job);
        if (flow.isEmpty()) {
            return error(s, 404, "not-streaming", "job " + job.codephrase() + " is not a streaming job running on sled "
                    + cfg.me().baseboard() + " (yet, or any more)");
        }
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.sessionOf(job)).flatMap(id ->
                v.fold().session(id)).map(SessionProjection.Session::starter)).flatMap(starter -> {
                    if (starter.isEmpty() || !starter.get().equals(who.key().codephrase())) {
                        return error(s, 403, "not-starter", "only the session's starter receives its streaming jobs");
                    }
                    if (!flow.get().claim()) {
                        return error(s, 409, "already-streaming", "another client receives job " + job.codephrase());
                    }
                    sush.pipeline.exec.Outflow f = flow.get();
                    java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();
                    Flux<io.netty.buffer.ByteBuf> body = Flux.<byte[]>generate(sink -> {
                        try {
                            byte[] c = null;
                            while (c == null) {
                                c = f.next(1_000);
                            }
                            if (c.length == 0) {
                                ended.set(true);
                                sink.complete();
                            } else {
                                sink.next(c);
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            sink.error(e);
                        }
                    }).subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic(), false)
                            .map(io.netty.buffer.Unpooled::wrappedBuffer)
                            .doFinally(signal -> {
                                if (!ended.get()) {
                                    f.clientGone();
                                }
                            });
                    return s.status(200).header("Content-Type", "application/octet-stream").send(body).then();
                });
    }

    /** One frame a client sent, copied off the event loop's buffer. */
    private record ClientFrame(boolean text, byte[] bytes) {
    }

    private static io.netty.handler.codec.http.websocketx.WebSocketFrame control(Map<String, Object> m) {
        return new io.netty.handler.codec.http.websocketx.TextWebSocketFrame(Json.MAPPER.writeValueAsString(m));
    }

    /** This sled's final status of the job once it reports one (the ending follows the terminal's close). */
    private Mono<Object> ownStatus(JobId job) {
        String me = cfg.me().baseboard();
        return poll(() -> runtime.query(v -> v.fold() == null ? Map.<String, Object>of()
                : Json.statuses(v.fold().statuses().statuses(job))).flatMap(m -> m.get(me) instanceof Map
                        && TERMINAL_STATUSES.contains(String.valueOf(((Map<?, ?>) m.get(me)).get("status")))
                        ? Mono.just(m.get(me)) : Mono.empty()), OWN_STATUS_WAIT.toMillis() / OWN_STATUS_POLL.toMillis(),
                OWN_STATUS_POLL);
    }

    /**
     * Asks {@code ask} until it answers a value, {@code every} after each empty answer, at most
     * {@code polls} times; empty if it never did. (A fixed-rate interval, as the attach's wait
     * for the job's end was, fails with an overflow as soon as one answer takes longer than the
     * period: on a busy sled the client then saw its terminal close without the job's end.)
     */
    static <T> Mono<T> poll(java.util.function.Supplier<Mono<T>> ask, long polls, java.time.Duration every) {
        return Mono.defer(ask).switchIfEmpty(Mono.defer(() -> polls <= 1 ? Mono.empty()
                : Mono.delay(every).then(poll(ask, polls - 1, every))));
    }

    /** How long an attached client's terminal waits, once closed, for the job's end from this sled. */
    static final java.time.Duration OWN_STATUS_WAIT = java.time.Duration.ofSeconds(30);
    private static final java.time.Duration OWN_STATUS_POLL = java.time.Duration.ofMillis(50);

    private static final java.util.Set<String> TERMINAL_STATUSES = java.util.Set.of("stopped", "error", "skipped",
            "cancelled", "interrupted");

    /** Bound on output downloads in progress at once (issue 22); past it a new one is a 503. */
    public static final int MAX_DOWNLOADS = 32;
    /**
     * A download whose client has taken no byte for this long is closed (issue 22); the
     * property {@code sush.api.write-stall-ms} changes it for API fronts made afterwards.
     */
    public static final java.time.Duration WRITE_STALL = java.time.Duration.ofSeconds(30);
    private final java.time.Duration writeStall = java.time.Duration.ofMillis(Long.getLong("sush.api.write-stall-ms",
            WRITE_STALL.toMillis()));
    private final java.util.concurrent.atomic.AtomicInteger downloads = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * Closes a connection whose pending output has not moved for {@code stall}: Netty's idle
     * handler with output observed (a slow reader that keeps taking bytes is not idle), acting
     * only when something is waiting to be written.
     */
    static final class WriteStall extends io.netty.handler.timeout.IdleStateHandler {
        WriteStall(java.time.Duration stall) {
            super(true, 0, stall.toMillis(), 0, java.util.concurrent.TimeUnit.MILLISECONDS);
        }

        @Override
        protected void channelIdle(io.netty.channel.ChannelHandlerContext ctx, io.netty.handler.timeout.IdleStateEvent e) {
            io.netty.channel.ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
            if (e.state() == io.netty.handler.timeout.IdleState.WRITER_IDLE && out != null && out.current() != null) {
                ctx.close();
            }
        }
    }

    // ---- Requests -------------------------------------------------------------------------

    /** The rack's session ordering: the locker's record format says it. */
    private Ordering ordering() {
        return locker.format().ordering().equals("signed") ? Ordering.SIGNED : Ordering.CAUSAL;
    }

    /**
     * {@code POST /sessions/grant} (ordered-sessions.md sections 1 and 6): a grant of a trusted
     * signer, naming the authenticated operator as its starter, is gossiped; every sled checks
     * it again. Re-submitting a grant ({@code sush session resume}) is the same session with the
     * same place in the order. A grant older than the newest this sled knows is refused with the
     * newer one named (a signer clock that went backwards).
     */
    private Mono<Object> grantSession(byte[] body, Authority.Identity who) {
        if (ordering() != Ordering.SIGNED) {
            return Mono.error(new Refused(409, "wrong-ordering", "this rack's ordering is causal: start sessions "
                    + "with POST /sessions/start (sush session start), not grants"));
        }
        sush.projections.job.SignedGrant g;
        try {
            g = SignedRequests.grantFromBody(sush.ops.Bodies.read(body, sush.ops.Bodies.Grant.class));
        } catch (BadRequest e) {
            return Mono.error(new Refused(400, e.code(), e.getMessage()));
        }
        Optional<InvalidJobReason> bad = cfg.trust().grant(g);
        if (bad.isPresent()) {
            return Mono.error(new Refused(403, Json.lower(bad.get()), "grant refused: " + Json.lower(bad.get())));
        }
        if (!g.grant().starter().equals(who.key().codephrase())) {
            return Mono.error(new Refused(403, "not-starter", "the grant names starter " + g.grant().starter()
                    + "; only that operator submits it"));
        }
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.newestGrant())).flatMap(newest -> {
            if (newest.isPresent() && newest.get().grant().rank().newerThan(g.grant().rank())) {
                return Mono.error(new Refused(409, "superseded", "session " + g.grant().session().codephrase()
                        + " (epoch " + g.grant().epoch() + ") is older than session " + newest.get().grant().session()
                        .codephrase() + " (epoch " + newest.get().grant().epoch() + ") known here; a signer whose "
                        + "clock went backwards issues superseded sessions"));
            }
            send(new Message.SessionGrant(g));
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("session_id", g.grant().session().codephrase());
            m.put("epoch", g.grant().epoch());
            return Mono.just((Object) m);
        });
    }

    private Mono<Object> startSession(byte[] body, Authority.Identity who) {
        if (ordering() != Ordering.CAUSAL) {
            return Mono.error(new Refused(409, "wrong-ordering", "this rack's ordering is signed: a session is a "
                    + "grant of the signer (sush session start asks for one; POST /sessions/grant)"));
        }
        return Mono.just(body).map(b -> {
            byte[] client;
            try {
                sush.ops.Bodies.SessionStart start = sush.ops.Bodies.read(b, sush.ops.Bodies.SessionStart.class);
                client = start.clientNonce() == null ? new byte[0] : sush.ops.Bodies.base64(start.clientNonce(),
                        "client_nonce");
            } catch (BadRequest e) {
                throw new Refused(400, e.code(), e.getMessage());
            }
            // The starter is the authenticated operator key, never a name the client asserts.
            String starter = who.key().codephrase();
            if (client.length > 256) {
                throw new Refused(400, "malformed-body", "client_nonce is at most 256 bytes");
            }
            // Section 2: a nonce drawn fresh at every acceptance: the id exists once, in one universe.
            byte[] sledNonce = new byte[SessionIds.NONCE_BYTES];
            entropy.nextBytes(sledNonce);
            SessionId id = SessionIds.compute(cfg.me().baseboard(), sledNonce, client);
            send(new Message.SessionStart(id, cfg.me().baseboard(), sledNonce, client, starter));
            return Map.of("session_id", id.codephrase());
        });
    }

    private Mono<Object> stopSession(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        SessionId id = sessionId(q.param("sid"));
        return starterOnly(id, who).map(ok -> {
            send(new Message.SessionStop(id, who.key().codephrase()));
            return Map.of("session_id", id.codephrase(), "stopping", true);
        });
    }

    /**
     * Only the session's starter may stop or skip in it (security.md section 2): 403 otherwise.
     * Every sled's fold checks it again for what arrives by gossip.
     */
    private Mono<Boolean> starterOnly(SessionId id, Authority.Identity who) {
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.session(id))
                .map(SessionProjection.Session::starter)).flatMap(starter -> {
                    if (starter.isEmpty()) {
                        return Mono.error(new Refused(404, "unknown-session", "no session " + id.codephrase()
                                + " here"));
                    }
                    if (!starter.get().equals(who.key().codephrase())) {
                        return Mono.error(new Refused(403, "not-starter", "only the session's starter "
                                + starter.get() + " may do this"));
                    }
                    return Mono.just(true);
                });
    }

    /**
     * {@code POST /sessions/{sid}/access/{kid}?access=read|write|none} (starter only, issue 19):
     * what an operator key may do on the session's interactive jobs, gossiped to every sled.
     */
    private Mono<Object> access(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        SessionId id = sessionId(q.param("sid"));
        sush.projections.id.KeyId key;
        try {
            key = sush.projections.id.KeyId.parse(q.param("kid"));
        } catch (sush.projections.id.IdException e) {
            throw new BadRequest("bad-codephrase", e.getMessage());
        }
        List<String> given = new io.netty.handler.codec.http.QueryStringDecoder(q.uri()).parameters().get("access");
        Message.Access access;
        try {
            access = Message.Access.valueOf(given == null || given.isEmpty() ? "" : given.get(0).toUpperCase(
                    java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new BadRequest("bad-parameter", "access is read, write or none");
        }
        return starterOnly(id, who).map(ok -> {
            send(new Message.SessionAccess(id, key.codephrase(), access, who.key().codephrase()));
            return Map.of("session_id", id.codephrase(), "key_id", key.codephrase(), "access", Json.lower(access));
        });
    }

    private Mono<Object> skip(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        SessionId id = sessionId(q.param("sid"));
        JobId position = jobId(q.param("jid"));
        return starterOnly(id, who).map(ok -> {
            send(new Message.JobSkip(id, position, who.key().codephrase()));
            return Map.of("session_id", id.codephrase(), "burnt", position.codephrase());
        });
    }

    private Mono<Object> stopJob(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        JobId job = jobId(q.param("jid"));
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.sessionOf(job))).flatMap(session -> {
            if (session.isEmpty()) {
                return Mono.error(new Refused(404, "unknown-job", "no request for job " + job.codephrase() + " here"));
            }
            return starterOnly(session.get(), who);
        }).map(ok -> {
            send(new Message.JobStop(job, who.key().codephrase()));
            return Map.of("job_id", job.codephrase(), "stopping", true);
        });
    }

    private Mono<Object> startJob(HttpServerRequest q, byte[] body) throws BadRequest {
        JobId path = jobId(q.param("jid"));
        return Mono.just(body).flatMap(b -> {
            SignedJob job;
            try {
                job = SignedRequests.fromBody(sush.ops.Bodies.read(b, sush.ops.Bodies.JobStart.class));
            } catch (BadRequest e) {
                return Mono.error(new Refused(400, e.code(), e.getMessage()));
            }
            if (!job.request().job().equals(path)) {
                return Mono.error(new Refused(400, "job-mismatch", "the body is job " + job.request().job().codephrase()
                        + ", the path " + path.codephrase()));
            }
            // Issue 34: a job no sled can run is never given an id. A target no sled can parse,
            // or a request the wire codec would not read back, is refused before it is gossiped.
            try {
                sush.projections.targets.Target.parse(job.request().target());
            } catch (sush.projections.targets.TargetException e) {
                return Mono.error(new Refused(400, "bad-target", "target: " + e.getMessage()));
            }
            try {
                sush.projections.message.MessageCodec.decode(sush.projections.message.MessageCodec.encode(
                        new Message.JobStart(job)));
            } catch (sush.projections.message.MessageException | RuntimeException e) {
                return Mono.error(new Refused(400, "unreadable-request", "no sled could read this request back: "
                        + e.getMessage()));
            }
            // Checked here before gossiping; every sled checks again before running.
            Optional<InvalidJobReason> bad = cfg.trust().check(job, job.request().session());
            if (bad.isPresent()) {
                int code = bad.get() == InvalidJobReason.UNKNOWN_KEY || bad.get() == InvalidJobReason.BAD_SIGNATURE ? 403
                        : 400;
                return Mono.error(new Refused(code, Json.lower(bad.get()), "refused: " + Json.lower(bad.get())));
            }
            if (job.request().mode() != sush.projections.job.JobMode.RECORDED) {
                boolean one;
                try {
                    one = sush.projections.targets.Target.parse(job.request().target()).namesOneSled();
                } catch (sush.projections.targets.TargetException e) {
                    one = false;
                }
                if (!one) {
                    return Mono.error(new Refused(400, "one-sled-only", "refused: " + job.request().mode().wire()
                            + " jobs target exactly one sled (a baseboard or a cubby), not " + job.request().target()));
                }
            }
            // D-031: a limit above this sled's maximum is refused here; another sled with lower
            // maxima refuses it too, on its own, before running it.
            List<String> above = job.request().limits().above(cfg.limits().maxima());
            if (!above.isEmpty()) {
                return Mono.error(new Refused(403, "limit-above-maximum", "refused: " + String.join("; ", above)));
            }
            return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.activeSession()))
                    .flatMap(active -> {
                        if (active.isEmpty() || !active.get().id().equals(job.request().session())) {
                            return Mono.error(new Refused(409, "wrong-session", "session "
                                    + job.request().session().codephrase() + " is not the active session here"));
                        }
                        send(new Message.JobStart(job));
                        return Mono.just((Object) Map.of("job_id", job.request().job().codephrase()));
                    });
        });
    }

    private void send(Message m) {
        try {
            node.send(MessageCodec.encode(m));
        } catch (RuntimeException e) {
            throw new Refused(503, "not-ready", "this sled cannot gossip right now: " + e.getMessage());
        }
    }

    // ---- Events ---------------------------------------------------------------------------

    private void number(SledEvent e) {
        Map<String, Object> data = new LinkedHashMap<>();
        String kind;
        if (e instanceof SledEvent.StatusChanged) {
            SledEvent.StatusChanged c = (SledEvent.StatusChanged) e;
            kind = "status";
            data.put("job_id", c.job().codephrase());
            data.put("baseboard", c.baseboard());
            data.putAll(Json.status(c.status(), c.message()));
        } else if (e instanceof SledEvent.FloorRaised) {
            kind = "floor";
            data.put("cause", Json.lower(((SledEvent.FloorRaised) e).cause()));
        } else if (e instanceof SledEvent.Gossiped && ((SledEvent.Gossiped) e).message() instanceof Message.RackError) {
            Message.RackError r = (Message.RackError) ((SledEvent.Gossiped) e).message();
            kind = "error";
            data.put("error", Json.lower(r.kind()));
            data.put("detail", r.detail());
        } else if (e instanceof SledEvent.Failed) {
            kind = "error";
            data.put("error", "sled");
            data.put("detail", ((SledEvent.Failed) e).what());
        } else {
            return;
        }
        data.put("sled", cfg.me().baseboard());
        events.tryEmitNext(new Numbered(nextEvent.getAndIncrement(), kind, data));
    }

    private Publisher<Void> events(HttpServerRequest q, HttpServerResponse s) {
        long after;
        try {
            String last = q.requestHeaders().get("Last-Event-ID");
            after = last == null ? 0 : Long.parseLong(last.trim());
        } catch (NumberFormatException e) {
            return error(s, 400, "bad-last-event-id", "Last-Event-ID is a number");
        }
        if (eventStreams.incrementAndGet() > MAX_EVENT_STREAMS) {
            eventStreams.decrementAndGet();
            return error(s, 503, "too-many-streams", MAX_EVENT_STREAMS + " event streams are open on this sled");
        }
        int backlog = (int) Math.min(EVENT_HISTORY, Math.max(0, nextEvent.get() - 1 - after));
        Flux<String> frames = followed(events.asFlux().filter(n -> n.id() > after), backlog, MAX_EVENT_LAG)
                .map(n -> "id: " + n.id() + "\nevent: " + n.kind() + "\ndata: " + Json.MAPPER.writeValueAsString(n.data())
                        + "\n\n")
                .doFinally(signal -> eventStreams.decrementAndGet());
        // A subscriber that stops reading: its pending frames stop moving, and it is cut.
        q.withConnection(c -> c.addHandlerLast("sush-write-stall", new WriteStall(writeStall)));
        return s.sse().sendString(frames).then();
    }

    /** Events one stream may fall behind by before it is dropped (its client reconnects with Last-Event-ID). */
    public static final int MAX_EVENT_LAG = 1024;

    /**
     * The events of one stream, at most {@code lag} behind what the sled has emitted: past it the
     * stream ends with an error (the connection closes) instead of holding the sled's history
     * for a client that does not read (issue 22).
     */
    static <T> Flux<T> lagBounded(Flux<T> events, int lag) {
        return events.onBackpressureBuffer(lag, dropped -> { }, reactor.core.publisher.BufferOverflowStrategy.ERROR);
    }

    /**
     * The stream of a new subscriber: the history it is owed ({@code backlog} events, replayed at
     * once on subscription, before the connection can take them), then what follows, within
     * {@code lag} more. The backlog is never counted as lag; the bound stays a bound.
     */
    static <T> Flux<T> followed(Flux<T> events, int backlog, int lag) {
        return lagBounded(events, backlog + lag);
    }

    // ---- Plumbing -------------------------------------------------------------------------

    /** A refusal with an HTTP status and an error code; nothing was changed. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int status;
        final String code;

        Refused(int status, String code, String message) {
            super(message);
            this.status = status;
            this.code = code;
        }
    }

    /** A request handler that may refuse before it returns a Mono. */
    @FunctionalInterface
    private interface Handler {
        Mono<Object> run() throws BadRequest;
    }

    private Publisher<Void> handle(HttpServerResponse s, Handler h) {
        Mono<Object> m;
        try {
            m = h.run();
        } catch (BadRequest e) {
            return error(s, 400, e.code(), e.getMessage());
        } catch (Refused e) {
            return error(s, e.status, e.code, e.getMessage());
        } catch (RuntimeException e) {
            // A handler bug answers a typed error and changes nothing; it never kills the server.
            return error(s, 500, "internal", e.toString());
        }
        return m.flatMap(o -> json(s, 200, o).then()).onErrorResume(Refused.class, e -> error(s, e.status, e.code,
                e.getMessage())).onErrorResume(e -> !(e instanceof Refused), e -> error(s, 500, "internal", e.toString()));
    }

    private <T> Publisher<Void> query(HttpServerResponse s, java.util.function.Function<SledRuntime.View, T> f) {
        return runtime.query(f).flatMap(o -> json(s, 200, o).then())
                .onErrorResume(e -> error(s, 500, "internal", e.toString()));
    }

    private static Mono<Void> json(HttpServerResponse s, int status, Object body) {
        return s.status(status).header("Content-Type", "application/json")
                .sendString(Mono.just(Json.MAPPER.writeValueAsString(body) + "\n")).then();
    }

    private static Mono<Void> error(HttpServerResponse s, int status, String code, String message) {
        // One line per refused request: its status and code (request bodies and job text never).
        if (status >= 500) {
            LOG.warn("request failed: {} {}: {}", status, code, message);
        } else {
            LOG.info("request refused: {} {}: {}", status, code, message);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("error", code);
        m.put("message", message);
        return json(s, status, m);
    }

    /** The body, at most {@link SignedRequests#MAX_BODY_BYTES}; more is a 413. */
    private static Mono<byte[]> body(HttpServerRequest q) {
        String declared = q.requestHeaders().get("Content-Length");
        if (declared != null && Long.parseLong(declared.trim()) > SignedRequests.MAX_BODY_BYTES) {
            return Mono.error(new Refused(413, "body-too-large", "bodies are at most " + SignedRequests.MAX_BODY_BYTES
                    + " bytes"));
        }
        return q.receive().asByteArray().reduce(new ByteArrayOutputStream(), (acc, chunk) -> {
            if (acc.size() + chunk.length > SignedRequests.MAX_BODY_BYTES) {
                throw new Refused(413, "body-too-large", "bodies are at most " + SignedRequests.MAX_BODY_BYTES + " bytes");
            }
            acc.write(chunk, 0, chunk.length);
            return acc;
        }).map(ByteArrayOutputStream::toByteArray).defaultIfEmpty(new byte[0]);
    }

    private static JobId jobId(String phrase) throws BadRequest {
        try {
            return JobId.parse(phrase);
        } catch (IdException e) {
            throw new BadRequest("bad-codephrase", "job id: " + e.getMessage());
        }
    }

    private static SessionId sessionId(String phrase) throws BadRequest {
        try {
            return SessionId.parse(phrase);
        } catch (IdException e) {
            throw new BadRequest("bad-codephrase", "session id: " + e.getMessage());
        }
    }
}
