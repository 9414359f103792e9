package sush.ops.api;

import static sush.ops.api.Replies.keyParam;
import static sush.ops.api.Replies.sessionId;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import io.netty.handler.codec.http.QueryStringDecoder;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import sush.ops.wire.Answers;
import sush.ops.wire.Bodies;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;
import sush.ops.wire.SignedRequests.BadRequest;
import sush.ops.api.Replies.Refused;
import sush.ops.auth.Authority;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.Ordering;
import sush.projections.fold.SessionProjection;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.InvalidJobReason;
import sush.projections.job.SignedGrant;
import sush.projections.message.Message;

/**
 * Sessions, as requests that become gossip (ordered-sessions.md, security.md section 2): a
 * signer's grant in the signed ordering, a start in the causal one, a stop, and which keys may
 * watch or write a session's interactive jobs; only the session's starter stops it or changes
 * that, and every sled's fold checks it again.
 */
final class SessionsResource {
    private final ApiContext api;
    private final SledConfig cfg;
    private final SledRuntime runtime;

    SessionsResource(ApiContext api) {
        this.api = api;
        this.cfg = api.cfg();
        this.runtime = api.runtime();
    }

    /**
     * {@code POST /sessions/grant} (ordered-sessions.md sections 1 and 6): a grant of a trusted
     * signer, naming the authenticated operator as its starter, is gossiped; every sled checks
     * it again. Re-submitting a grant ({@code sush session resume}) is the same session with the
     * same place in the order. A grant older than the newest this sled knows is refused with the
     * newer one named (a signer clock that went backwards).
     */
    Mono<Object> grant(byte[] body, Authority.Identity who) {
        if (api.ordering() != Ordering.SIGNED) {
            return Mono.error(new Refused(409, "wrong-ordering", "this rack's ordering is causal: start sessions "
                    + "with POST /sessions/start (sush session start), not grants"));
        }
        SignedGrant g;
        try {
            g = SignedRequests.grantFromBody(Bodies.read(body, Bodies.Grant.class));
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
            api.send(new Message.SessionGrant(g));
            return Mono.just((Object) new Answers.SessionStarted(g.grant().session().codephrase(), g.grant().epoch()));
        });
    }

    /** {@code POST /sessions/start} (causal ordering): a session this sled accepts, started by the caller. */
    Mono<Object> start(byte[] body, Authority.Identity who) {
        if (api.ordering() != Ordering.CAUSAL) {
            return Mono.error(new Refused(409, "wrong-ordering", "this rack's ordering is signed: a session is a "
                    + "grant of the signer (sush session start asks for one; POST /sessions/grant)"));
        }
        return Mono.just(body).map(b -> {
            byte[] client;
            try {
                Bodies.SessionStart start = Bodies.read(b, Bodies.SessionStart.class);
                client = start.clientNonce() == null ? new byte[0] : Bodies.base64(start.clientNonce(),
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
            api.entropy().nextBytes(sledNonce);
            SessionId id = SessionIds.compute(cfg.me().baseboard(), sledNonce, client);
            api.send(new Message.SessionStart(id, cfg.me().baseboard(), sledNonce, client, starter));
            return new Answers.SessionStarted(id.codephrase(), null);
        });
    }

    /** {@code POST /sessions/{sid}/stop} (starter only). */
    Mono<Object> stop(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        SessionId id = sessionId(q.param("sid"));
        return starterOnly(id, who).map(ok -> {
            api.send(new Message.SessionStop(id, who.key().codephrase()));
            return new Answers.SessionStopping(id.codephrase(), true);
        });
    }

    /**
     * Only the session's starter may stop or skip in it (security.md section 2): 403 otherwise.
     * Every sled's fold checks it again for what arrives by gossip.
     */
    Mono<Boolean> starterOnly(SessionId id, Authority.Identity who) {
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
    Mono<Object> access(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        SessionId id = sessionId(q.param("sid"));
        KeyId key = keyParam(q);
        List<String> given = new QueryStringDecoder(q.uri()).parameters().get("access");
        Message.Access access;
        try {
            access = Message.Access.valueOf(given == null || given.isEmpty() ? "" : given.get(0).toUpperCase(
                    Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new BadRequest("bad-parameter", "access is read, write or none");
        }
        return starterOnly(id, who).map(ok -> {
            api.send(new Message.SessionAccess(id, key.codephrase(), access, who.key().codephrase()));
            return new Answers.AccessSet(id.codephrase(), key.codephrase(), Json.lower(access));
        });
    }
}
