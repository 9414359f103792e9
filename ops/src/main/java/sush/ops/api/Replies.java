package sush.ops.api;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.handler.codec.http.QueryStringDecoder;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import sush.ops.wire.ApiError;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests.BadRequest;
import sush.pipeline.sled.SledRuntime;
import sush.projections.id.IdException;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;

/**
 * How the API answers and refuses: JSON bodies, typed errors with their status and code (one
 * log line each), the refusals a handler throws, and the ids and parameters of a request read
 * into values or refused as 400s. Every resource answers through these, so a refusal looks the
 * same whichever resource made it.
 */
final class Replies {
    /** The API's one logger name, whichever class logs. */
    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

    private Replies() {
    }

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
    interface Handler {
        Mono<Object> run() throws BadRequest;
    }

    /**
     * Answers what {@code h} gives as JSON with 200; a refusal, before or after, answers its
     * status and code, and a handler bug a 500 {@code internal}.
     */
    static Publisher<Void> handle(HttpServerResponse s, Handler h) {
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

    /** Answers {@code f} of the sled's view, asked on its loop, as JSON with 200. */
    static <T> Publisher<Void> query(SledRuntime runtime, HttpServerResponse s, Function<SledRuntime.View, T> f) {
        return runtime.query(f).flatMap(o -> json(s, 200, o).then())
                .onErrorResume(e -> error(s, 500, "internal", e.toString()));
    }

    static Mono<Void> json(HttpServerResponse s, int status, Object body) {
        return s.status(status).header("Content-Type", "application/json")
                .sendString(Mono.just(Json.MAPPER.writeValueAsString(body) + "\n")).then();
    }

    static Mono<Void> error(HttpServerResponse s, int status, String code, String message) {
        // One line per refused request: its status and code (request bodies and job text never).
        if (status >= 500) {
            LOG.warn("request failed: {} {}: {}", status, code, message);
        } else {
            LOG.info("request refused: {} {}: {}", status, code, message);
        }
        return json(s, status, new ApiError(code, message));
    }

    static JobId jobId(String phrase) throws BadRequest {
        try {
            return JobId.parse(phrase);
        } catch (IdException e) {
            throw new BadRequest("bad-codephrase", "job id: " + e.getMessage());
        }
    }

    /** A job id given in the parameter {@code name}; a refusal names the parameter. */
    static JobId jobId(String name, String phrase) throws BadRequest {
        try {
            return JobId.parse(phrase);
        } catch (IdException e) {
            throw new BadRequest("bad-codephrase", name + ": " + e.getMessage());
        }
    }

    static SessionId sessionId(String phrase) throws BadRequest {
        try {
            return SessionId.parse(phrase);
        } catch (IdException e) {
            throw new BadRequest("bad-codephrase", "session id: " + e.getMessage());
        }
    }

    /** The {@code {kid}} of the path: an operator key's id, else 400 {@code bad-codephrase}. */
    static KeyId keyParam(HttpServerRequest q) throws BadRequest {
        try {
            return KeyId.parse(q.param("kid"));
        } catch (IdException e) {
            throw new BadRequest("bad-codephrase", "key id: " + e.getMessage());
        }
    }

    /** The {@code sled} query parameter, when given. */
    static Optional<String> sledParameter(HttpServerRequest q) {
        List<String> given = new QueryStringDecoder(q.uri()).parameters().get("sled");
        return given == null || given.isEmpty() ? Optional.empty() : Optional.of(given.get(0));
    }
}
