package sush.ops.api;

import static sush.ops.api.Replies.jobId;
import static sush.ops.api.Replies.sessionId;

import java.util.List;
import java.util.Map;
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
import sush.projections.fold.Waves;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.InvalidJobReason;
import sush.projections.job.JobLimits;
import sush.projections.job.JobMode;
import sush.projections.job.JobRequest;
import sush.projections.job.JobWave;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.message.MessageException;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * Jobs, as requests that become gossip: a signed job started in the active session (checked
 * here as every sled checks it again before running), a position of a session skipped, and a
 * job stopped; skips and stops by the session's starter only.
 */
final class JobsResource {
    private final ApiContext api;
    private final SledConfig cfg;
    private final SledRuntime runtime;
    private final SessionsResource sessions;

    JobsResource(ApiContext api, SessionsResource sessions) {
        this.api = api;
        this.cfg = api.cfg();
        this.runtime = api.runtime();
        this.sessions = sessions;
    }

    /** {@code POST /sessions/{sid}/skip/{jid}} (starter only): the position is burnt, no job runs there. */
    Mono<Object> skip(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        SessionId id = sessionId(q.param("sid"));
        JobId position = jobId(q.param("jid"));
        return sessions.starterOnly(id, who).map(ok -> {
            api.send(new Message.JobSkip(id, position, who.key().codephrase()));
            return new Answers.PositionBurnt(id.codephrase(), position.codephrase());
        });
    }

    /** {@code POST /jobs/{jid}/stop} (its session's starter only). */
    Mono<Object> stop(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        JobId job = jobId(q.param("jid"));
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.sessionOf(job))).flatMap(session -> {
            if (session.isEmpty()) {
                return Mono.error(new Refused(404, "unknown-job", "no request for job " + job.codephrase() + " here"));
            }
            return sessions.starterOnly(session.get(), who);
        }).map(ok -> {
            api.send(new Message.JobStop(job, who.key().codephrase()));
            return new Answers.JobStopping(job.codephrase(), true);
        });
    }

    /**
     * {@code POST /jobs/{jid}/skip-sled/{cubby}} (its session's starter only, issue 40): later
     * waves stop waiting for that sled's part; the sled itself skips it if it has not started it.
     */
    Mono<Object> skipSled(HttpServerRequest q, Authority.Identity who) throws BadRequest {
        JobId job = jobId(q.param("jid"));
        int cubby;
        try {
            cubby = Integer.parseInt(q.param("cubby"));
        } catch (NumberFormatException e) {
            cubby = -1;
        }
        if (cubby < Target.MIN_CUBBY || cubby > Target.MAX_CUBBY) {
            throw new BadRequest("bad-cubby", "a cubby is a number from " + Target.MIN_CUBBY + " to " + Target.MAX_CUBBY
                    + ", not " + q.param("cubby"));
        }
        int c = cubby;
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.sessionOf(job))).flatMap(session -> {
            if (session.isEmpty()) {
                return Mono.error(new Refused(404, "unknown-job", "no request for job " + job.codephrase() + " here"));
            }
            return sessions.starterOnly(session.get(), who);
        }).map(ok -> {
            api.send(new Message.JobSledSkip(job, c, who.key().codephrase()));
            return new Answers.SledPartSkipped(job.codephrase(), c);
        });
    }

    /**
     * {@code GET /plan?target=T[&wave_size=N&max_failures=K&concurrent=true&mode=M&LIMIT=V]} (issue
     * 40, {@code sush job plan}): what this sled would do now with such a job at the active
     * session's next position, committing, signing and gossiping nothing. Relayed with
     * {@code sled=B}. A target no sled can parse, or a malformed field, is a 400.
     */
    Mono<Object> plan(HttpServerRequest q) throws BadRequest {
        Map<String, List<String>> p = new QueryStringDecoder(q.uri()).parameters();
        String target = first(p, "target");
        if (target == null) {
            throw new BadRequest("bad-target", "target is required (*, cubbies, baseboards or serials)");
        }
        try {
            Target.parse(target);
        } catch (TargetException e) {
            throw new BadRequest("bad-target", "target: " + e.getMessage());
        }
        JobWave wave;
        JobLimits limits;
        JobMode mode;
        try {
            Integer size = number(p, "wave_size") == null ? null : Math.toIntExact(number(p, "wave_size"));
            Long budget = number(p, "max_failures");
            wave = size == null ? JobWave.NONE : new JobWave(size, budget == null ? 0 : Math.toIntExact(budget));
            long[] v = new long[SignedRequests.LIMIT_FIELDS.length];
            for (int i = 0; i < v.length; i++) {
                Long n = number(p, SignedRequests.LIMIT_FIELDS[i]);
                v[i] = n == null ? 0 : n;
            }
            limits = new JobLimits(v[0], v[1], v[2], v[3], v[4]);
            mode = first(p, "mode") == null ? JobMode.RECORDED : JobMode.parse(first(p, "mode"));
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new BadRequest("malformed-query", e.getMessage());
        }
        boolean concurrent = "true".equals(first(p, "concurrent"));
        JobWave w = wave;
        JobLimits l = limits;
        JobMode m = mode;
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.activeSession()).map(a -> a.id()))
                .flatMap(session -> runtime.plan(position -> new JobRequest(session.orElse(NO_SESSION), position,
                        "plan", target, concurrent, l, m, w)))
                .map(plan -> new Answers.Plan(cfg.me().baseboard(), cfg.me().cubby(), plan.verdict(), plan.reason(),
                        plan.wave(), plan.waitingFor()));
    }

    /** The session a plan names when none is active here (its verdict then says it waits). */
    private static final SessionId NO_SESSION = new SessionId(new byte[sush.projections.id.Id88.BYTES]);

    private static String first(Map<String, List<String>> p, String name) {
        List<String> v = p.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    private static Long number(Map<String, List<String>> p, String name) throws BadRequest {
        String v = first(p, name);
        if (v == null) {
            return null;
        }
        try {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new BadRequest("malformed-query", name + " is not a number: " + v);
        }
    }

    /**
     * {@code POST /jobs/{jid}/start}: a signed job of the active session, gossiped once this
     * sled found it well-formed, runnable somewhere, signed by a trusted key and within its limits.
     */
    Mono<Object> start(HttpServerRequest q, byte[] body) throws BadRequest {
        JobId path = jobId(q.param("jid"));
        return Mono.just(body).flatMap(b -> {
            SignedJob job;
            try {
                job = SignedRequests.fromBody(Bodies.read(b, Bodies.JobStart.class));
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
                Target.parse(job.request().target());
            } catch (TargetException e) {
                return Mono.error(new Refused(400, "bad-target", "target: " + e.getMessage()));
            }
            try {
                MessageCodec.decode(MessageCodec.encode(new Message.JobStart(job)));
            } catch (MessageException | RuntimeException e) {
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
            if (job.request().wave().isSet() && Waves.members(job).isEmpty()) {
                return Mono.error(new Refused(400, "waves-need-cubbies", "refused: a job in waves targets a list of "
                        + "cubbies (every sled ranks the same sleds), not " + job.request().target()));
            }
            if (job.request().mode() != JobMode.RECORDED && !namesOneSled(job)) {
                return Mono.error(new Refused(400, "one-sled-only", "refused: " + job.request().mode().wire()
                        + " jobs target exactly one sled (a baseboard or a cubby), not " + job.request().target()));
            }
            // D-031: a limit above this sled's maximum is refused here; another sled with lower
            // maxima refuses it too, on its own, before running it.
            List<String> above = job.request().limits().above(cfg.limits().maxima());
            if (!above.isEmpty()) {
                return Mono.error(new Refused(403, "limit-above-maximum", "refused: " + String.join("; ", above)));
            }
            return inActiveSession(job);
        });
    }

    /** Whether {@code job}'s target names exactly one sled (an interactive or streaming job's must). */
    private static boolean namesOneSled(SignedJob job) {
        try {
            return Target.parse(job.request().target()).namesOneSled();
        } catch (TargetException e) {
            return false;
        }
    }

    /** Gossips {@code job} when its session is the active one here; 409 {@code wrong-session} otherwise. */
    private Mono<Object> inActiveSession(SignedJob job) {
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.activeSession()))
                .flatMap(active -> {
                    if (active.isEmpty() || !active.get().id().equals(job.request().session())) {
                        return Mono.error(new Refused(409, "wrong-session", "session "
                                + job.request().session().codephrase() + " is not the active session here"));
                    }
                    api.send(new Message.JobStart(job));
                    return Mono.just((Object) new Answers.JobStarted(job.request().job().codephrase()));
                });
    }
}
