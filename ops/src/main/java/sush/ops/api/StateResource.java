package sush.ops.api;

import static sush.ops.api.Replies.error;
import static sush.ops.api.Replies.jobId;
import static sush.ops.api.Replies.json;
import static sush.ops.api.Replies.query;
import static sush.ops.api.Replies.sessionId;
import static sush.ops.api.Replies.sledParameter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.reactivestreams.Publisher;

import io.netty.handler.codec.http.QueryStringDecoder;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Outcome;
import sush.locker.record.SignedRecord;
import sush.locker.store.Locker;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;
import sush.ops.wire.SignedRequests.BadRequest;
import sush.ops.api.Replies.Refused;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.ChainProjection;
import sush.projections.fold.Ordering;
import sush.projections.fold.SessionProjection;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedGrant;

/**
 * The sled's state as its fold and locker hold it, read on its loop: the active session, the
 * jobs this sled knows (a page of them, newest first), a job's statuses, an active session's
 * chain, and the boundary record with how this API shows either ordering's record.
 */
final class StateResource {
    private final ApiContext api;
    private final SledConfig cfg;
    private final SledRuntime runtime;
    private final Locker<?> locker;

    StateResource(ApiContext api) {
        this.api = api;
        this.cfg = api.cfg();
        this.runtime = api.runtime();
        this.locker = api.locker();
    }

    /** {@code GET /sessions}: the active session, or 404 {@code no-session}. */
    Publisher<Void> activeSession(HttpServerResponse s) {
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.activeSession()
                .map(a -> session(a, f.activeGrant(), f.chain().map(c -> c.nextFree().codephrase()).orElse(null)))))
                .flatMap(a -> a.isEmpty() ? error(s, 404, "no-session", "no session is active")
                        : json(s, 200, a.get()).then())
                .onErrorResume(e -> error(s, 500, "internal", e.toString()));
    }

    /** The body of {@code /sessions}: the active session {@code a}, its grant in the signed ordering, its next job. */
    static Map<String, Object> session(SessionProjection.Session a, Optional<SignedGrant> grant,
            String nextJob) {
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

    /**
     * {@code GET /jobs?limit=N&offset=M&session=S}: the jobs this sled knows in the current
     * universe, newest first, {@code offset} of them skipped, at most {@code limit}, only
     * session S's when given; each with its session and every sled's status; {@code total} counts
     * the jobs matched. A limit, offset or session that is not one is a 400.
     */
    Publisher<Void> history(HttpServerRequest q, HttpServerResponse s) {
        QueryStringDecoder d = new QueryStringDecoder(q.uri());
        int limit;
        int offset;
        Optional<SessionId> session;
        try {
            limit = (int) queryNumber(d, "limit", api.limits().historyLimit(), 1, api.limits().historyMaxLimit());
            offset = (int) queryNumber(d, "offset", 0, 0, Integer.MAX_VALUE);
            List<String> given = d.parameters().get("session");
            session = given == null || given.isEmpty() ? Optional.empty() : Optional.of(sessionId(given.get(0)));
        } catch (BadRequest e) {
            return error(s, 400, e.code(), e.getMessage());
        }
        return query(runtime, s, v -> jobs(v, limit, offset, session));
    }

    private static long queryNumber(QueryStringDecoder d, String name, long otherwise, long min, long max)
            throws BadRequest {
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
                out.add(jobEntry(id, of, Json.statuses(v.fold().statuses().statuses(id))));
            }
        }
        return jobPage(matched, offset, limit, out);
    }

    /** One job of a {@code /jobs} page: its id, its session (null when unknown here) and every sled's status. */
    static Map<String, Object> jobEntry(JobId id, Optional<SessionId> session, Map<String, Object> statuses) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("job_id", id.codephrase());
        m.put("session_id", session.map(SessionId::codephrase).orElse(null));
        m.put("statuses", statuses);
        return m;
    }

    /** A {@code /jobs} page: the jobs matched, the page's offset and limit, and its jobs. */
    static Map<String, Object> jobPage(int total, int offset, int limit, List<Object> jobs) {
        Map<String, Object> page = new LinkedHashMap<>();
        page.put("total", total);
        page.put("offset", offset);
        page.put("limit", limit);
        page.put("jobs", jobs);
        return page;
    }

    /** {@code GET /boundary}: the locker's state and its record, as the rack's ordering has it. */
    Object boundary(SledRuntime.View v) {
        return boundaryBody(cfg.me().baseboard(), v, locker.load().verdict().name().toLowerCase(Locale.ROOT),
                locker.load().reason(), locker.changed());
    }

    /**
     * The body of {@code /boundary}: sled {@code baseboard}'s view {@code v} of its record, with how
     * its locker loaded ({@code load}, {@code loadReason}) and a change to its slots it did not make.
     */
    static Map<String, Object> boundaryBody(String baseboard, SledRuntime.View v, String load, String loadReason,
            Optional<String> changed) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("baseboard", baseboard);
        m.put("trusted", v.trusted());
        m.put("load", load);
        m.put("load_reason", loadReason);
        // A change to the slots this daemon did not make, found while it runs (issue 22).
        m.put("changed", changed.orElse(null));
        m.put("ordering", v.ordering().wireName());
        if (v.ordering() == Ordering.SIGNED) {
            // No universe floor in the signed ordering: the record's floor epoch is the floor.
            Optional<SignedRecord> r = v.record().map(SignedRecord.class::cast);
            m.put("floor", r.map(x -> (Object) x.floor()).orElse(null));
            m.put("record", r.map(StateResource::signedRecord).orElse(null));
        } else {
            m.put("floor", v.floor().map(Object::toString).orElse(null));
            Optional<BoundaryRecord> r = v.record().map(BoundaryRecord.class::cast);
            m.put("record", r.map(StateResource::record).orElse(null));
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
    private static Map<String, Object> committed(SessionId session, JobId job, JobId successor, Outcome outcome) {
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
    Mono<Object> status(HttpServerRequest q) throws BadRequest {
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
                    return Mono.just((Object) statusBody(job, m, both.get(1)));
                });
    }

    /**
     * The body of {@code /jobs/{jid}/status}: the job, the statuses shown, and the conflicts of
     * {@code allConflicts} reported by a sled shown, when any.
     */
    static Map<String, Object> statusBody(JobId job, Map<String, Object> statuses, Map<String, Object> allConflicts) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("job_id", job.codephrase());
        out.put("statuses", statuses);
        Map<String, Object> conflicts = new TreeMap<>(allConflicts);
        conflicts.keySet().retainAll(statuses.keySet());
        if (!conflicts.isEmpty()) {
            out.put("conflicts", conflicts);
        }
        return out;
    }

    /**
     * {@code GET /sessions/{sid}/chain?after=P}: the requests and burns this sled holds of active
     * session {@code sid}'s chain from position P on (the session's first when not given), in
     * chain order, at most {@link ApiLimits#chainPage()} ({@code more} says whether the chain goes
     * on). What a client extends the chain it keeps by before it places a job (ordered-sessions.md
     * section 9): it never places one at a position a sled merely names.
     */
    Mono<Object> chain(HttpServerRequest q) throws BadRequest {
        int page = api.limits().chainPage();
        SessionId id = sessionId(q.param("sid"));
        List<String> given = new QueryStringDecoder(q.uri()).parameters().get("after");
        JobId after = given == null || given.isEmpty() ? Chain.first(id) : jobId(given.get(0));
        return runtime.query(v -> Optional.ofNullable(v.fold()).filter(f -> f.activeSession()
                .map(a -> a.id().equals(id)).orElse(false)).flatMap(f -> f.chain())
                .map(c -> c.from(after, page + 1))).flatMap(links -> {
                    if (links.isEmpty()) {
                        return Mono.error(new Refused(404, "not-active", "session " + id.codephrase()
                                + " is not the active session here"));
                    }
                    List<Object> out = new ArrayList<>();
                    for (ChainProjection.Link l : links.get().subList(0, Math.min(page, links.get().size()))) {
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
                            "links", out, "more", links.get().size() > page));
                });
    }
}
