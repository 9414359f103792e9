package sush.ops.api;

import static sush.ops.api.Replies.error;
import static sush.ops.api.Replies.sledParameter;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.function.BiFunction;

import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.http.server.HttpServerRoutes;
import sush.ops.api.Replies.Refused;
import sush.ops.auth.Authority;
import sush.ops.wire.ApiError;
import sush.ops.wire.Audiences;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;

/**
 * What a request must pass before a resource answers it: an origin-form request-target, a body
 * of at most {@link SignedRequests#MAX_BODY_BYTES} (413 past it), and an identity, checked here
 * and nowhere else (security.md section 2): a signature and sequence number for this sled (or
 * the sled a relaying request names), or a read token, which only reads (D-035).
 */
final class Gate {
    /** The API's one logger name, whichever class logs. */
    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

    private final ApiContext api;
    private final Authority authority;

    Gate(ApiContext api) {
        this.api = api;
        this.authority = api.authority();
    }

    /**
     * Every request-target in origin form before any routing (issue 36, item 4): a relay used
     * to paste {@code @host:port/...} or {@code :port/...} onto the announced address, making
     * the sled connect where the caller chose. Anything else is 400 {@code bad-request-target}.
     */
    static BiFunction<HttpServerRequest, HttpServerResponse, Publisher<Void>> originFormOnly(HttpServerRoutes routes) {
        return (q, s) -> originForm(q.uri()) ? routes.apply(q, s) : ConnectionPolicy.served(q, () -> error(s, 400,
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
                    String d = URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
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
     * The client's address a login challenge is bound to (its IP: a client may log in over
     * another connection than the one that asked).
     */
    static String clientOf(HttpServerRequest q) {
        InetSocketAddress a = q.remoteAddress();
        return a == null ? "" : a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
    }

    /** A handler that runs once the request's body is read and its identity checked. */
    @FunctionalInterface
    interface Guarded {
        Publisher<Void> run(byte[] body, Authority.Identity who);
    }

    /**
     * Reads the body, checks the request's signature and sequence number against the identity
     * it names; a refusal answers 401 with {@code WWW-Authenticate} and changes nothing.
     */
    Publisher<Void> guard(HttpServerRequest q, HttpServerResponse s, Guarded then) {
        return ConnectionPolicy.inFlight(q, body(q).flatMap(b -> {
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
                            api.rackId(), api.cfg().me().baseboard(), Audiences.relaying(q.method().name(),
                                    q.fullPath()) ? sledParameter(q) : Optional.empty()));
                }
            } catch (Authority.Refusal e) {
                return Mono.from(unauthorized(q, s, e));
            }
            return Mono.from(then.run(b, who));
        }).onErrorResume(Refused.class, e -> error(s, e.status, e.code, e.getMessage())));
    }

    /**
     * The endpoints a read token may GET (D-035): state, statuses, outputs, events and plans (a dry
     * run changes nothing, issue 40); never attach or stream.
     */
    static boolean readable(String path) {
        return path.equals("/version") || path.equals("/versions") || path.equals("/rack") || path.equals("/sessions")
                || path.equals("/boundary") || path.equals("/events") || path.equals("/jobs") || path.equals("/plan")
                || path.equals("/certificate") || (path.startsWith("/sessions/") && path.endsWith("/receipts"))
                || (path.startsWith("/jobs/") && (path.endsWith("/status") || path.endsWith("/receipts")
                        || path.contains("/output/")));
    }

    /** 401 (or the refusal's status) with a fresh challenge in {@code WWW-Authenticate}. */
    Publisher<Void> unauthorized(HttpServerRequest q, HttpServerResponse s, Authority.Refusal e) {
        LOG.info("request refused: {} {}: {}", e.status(), e.code(), e.getMessage());
        String nonce = Base64.getEncoder().encodeToString(authority.challenge(clientOf(q)));
        return s.header("WWW-Authenticate", "Sush nonce=\"" + nonce + "\"").status(e.status())
                .header("Content-Type", "application/json").sendString(Mono.just(Json.MAPPER.writeValueAsString(
                        new ApiError(e.code(), e.getMessage())) + "\n")).then();
    }

    /** The body, at most {@link SignedRequests#MAX_BODY_BYTES}; more is a 413. */
    static Mono<byte[]> body(HttpServerRequest q) {
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
}
