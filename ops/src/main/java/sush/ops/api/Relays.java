package sush.ops.api;

import static sush.ops.api.Replies.error;
import static sush.ops.api.Replies.sledParameter;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.X509TrustManager;

import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Mono;
import reactor.netty.http.Http11SslContextSpec;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.tcp.SslProvider;
import sush.gossip.net.GossipTls;
import sush.ops.wire.Json;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledRuntime;

/**
 * Any sled answers for any sled (issue 18, D-032): a request naming another sled goes on, as
 * the operator signed it, to the API that sled announced, through clients this server keeps
 * per sled on its own bounded pool (over HTTPS, checking the certificate names that sled); and
 * the one-question asks of another sled that {@code GET /rack} and the announce probe make.
 */
final class Relays {
    /** The API's one logger name, whichever class logs. */
    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);
    /** Set on a request one sled relays to another: a relayed request is never relayed again. */
    static final String RELAYED_BY = "X-Sush-Relayed-By";

    private final ApiContext context;
    private final SledConfig cfg;
    private final SledRuntime runtime;
    private final ApiLimits limits;
    /**
     * This server's own pool of connections to other sleds' APIs (not Reactor Netty's global
     * one, which every daemon of a JVM would share): a relay waits at most
     * {@link ApiLimits#relayAcquireWait()} for a connection (the global pool's default is 45 s,
     * longer than any client waits), idle ones are dropped before the other sled's idle timeout
     * would close them, and {@link #closePool} ends them all with this server.
     */
    private final ConnectionProvider relayPool;
    private final Map<String, HttpClient> relayClients = new ConcurrentHashMap<>();

    Relays(ApiContext context) {
        this.context = context;
        this.cfg = context.cfg();
        this.runtime = context.runtime();
        this.limits = context.limits();
        this.relayPool = ConnectionProvider.builder("sush-relay").maxConnections(limits.relayConnections())
                .pendingAcquireTimeout(limits.relayAcquireWait()).maxIdleTime(limits.relayIdle()).build();
    }

    /** The {@code sled} query parameter when it names another sled than this one (the request is relayed). */
    Optional<String> elsewhere(HttpServerRequest q) {
        return sledParameter(q).filter(b -> !b.equals(cfg.me().baseboard()));
    }

    /** Ends the pool's connections to other sleds (the server stops). */
    void closePool() {
        relayPool.disposeLater().subscribe(null, e -> LOG.debug("closing the relay pool: {}", e.toString()));
    }

    /**
     * Any sled answers for any sled (issue 18, D-032): the request goes on, as the operator signed
     * it (same path, query and {@code Authorization}), to the API that sled announced to the rack;
     * that sled checks the operator itself. Its status, length, range and bytes come back as they
     * stream (never held whole); over HTTPS its certificate must name that sled.
     */
    Publisher<Void> relay(HttpServerRequest q, HttpServerResponse s, String sled) {
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
                    if (!context.startDownload()) {
                        return error(s, 503, "too-many-downloads", limits.maxDownloads() + " output downloads are in "
                                + "progress on this sled; try again");
                    }
                    return relayTo(q, s, sled, api.get()).doFinally(signal -> context.endDownload());
                });
    }

    /**
     * The URI of a relayed request: the announced API's scheme, host and port, and the request's
     * origin-form path and query (checked before routing); never the caller's text pasted on.
     */
    static String relayUri(String api, String target) {
        if (!Gate.originForm(target)) {
            throw new IllegalArgumentException("not an origin-form request-target");
        }
        URI a = URI.create(api);
        return a.getScheme() + "://" + a.getHost() + (a.getPort() < 0 ? "" : ":" + a.getPort()) + target;
    }

    /** The kept client of sled {@code sled} at {@code api}, made at first use. */
    private HttpClient relayClientOf(String sled, String api) throws SSLException, GossipTls.TlsException {
        // One client per sled and address, kept: a page reads every sled's state every few seconds.
        String k = sled + " " + api;
        HttpClient c = relayClients.get(k);
        if (c == null) {
            if (relayClients.size() >= limits.maxRelayClients()) {
                relayClients.clear();
            }
            c = relayClient(sled, api);
            relayClients.put(k, c);
        }
        return c;
    }

    private Mono<Void> relayTo(HttpServerRequest q, HttpServerResponse s, String sled, String api) {
        HttpClient c;
        try {
            c = relayClientOf(sled, api);
        } catch (SSLException | GossipTls.TlsException | IllegalStateException e) {
            return error(s, 502, "sled-unreachable", "cannot reach sled " + sled + " at " + api + ": " + e.getMessage());
        }
        HttpHeaders in = q.requestHeaders();
        WriteStall.install(q, limits.writeStall());
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

    /** GET {@code path?sled=B} at sled B's API with {@code auth}: {status, JSON or text}. */
    Mono<Object[]> ask(String sled, String api, String path, String auth) {
        HttpClient c;
        try {
            c = relayClientOf(sled, api);
        } catch (SSLException | GossipTls.TlsException | IllegalStateException e) {
            return Mono.error(e);
        }
        String uri = api + path + "?sled=" + URLEncoder.encode(sled, StandardCharsets.UTF_8);
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

    /** A client of another sled's API: plain for http://, and for https:// the rack CA naming that sled. */
    private HttpClient relayClient(String sled, String api) throws SSLException, GossipTls.TlsException {
        return relayClient(sled, api, relayPool);
    }

    /** {@link #relayClient(String, String)} on the connections of {@code pool}. */
    HttpClient relayClient(String sled, String api, ConnectionProvider pool)
            throws SSLException, GossipTls.TlsException {
        HttpClient c = HttpClient.create(pool).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 3_000)
                .responseTimeout(limits.relayResponseTimeout());
        if (!api.startsWith("https://")) {
            return c;
        }
        X509Certificate ca = context.relayCa().orElseThrow(() -> new IllegalStateException(
                "this sled has no rack CA to check an HTTPS API with"));
        X509TrustManager trust = GossipTls.apiTrust(ca, Optional.of(sled));
        SslProvider.GenericSslContextSpec<?> spec = Http11SslContextSpec.forClient()
                .configure(b -> b.trustManager(trust));
        // Sleds are named by certificate (the trust manager checks it names this one), not by host.
        return c.secure(t -> t.sslContext(spec).handlerConfigurator(h -> {
            SSLParameters p = h.engine().getSSLParameters();
            p.setEndpointIdentificationAlgorithm(null);
            h.engine().setSSLParameters(p);
        }));
    }
}
