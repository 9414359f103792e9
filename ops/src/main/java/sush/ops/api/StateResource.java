package sush.ops.api;

import static sush.ops.api.Replies.error;
import static sush.ops.api.Replies.jobId;
import static sush.ops.api.Replies.json;
import static sush.ops.api.Replies.query;
import static sush.ops.api.Replies.sessionId;
import static sush.ops.api.Replies.sledParameter;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
import sush.ops.wire.ActiveSession;
import sush.ops.wire.Boundary;
import sush.ops.wire.ChainPage;
import sush.ops.wire.Conflict;
import sush.ops.wire.JobPage;
import sush.ops.wire.Json;
import sush.ops.wire.SledStatus;
import sush.ops.wire.StatusReport;
import sush.ops.wire.SignedRequests;
import sush.ops.wire.SignedRequests.BadRequest;
import sush.ops.api.Replies.Refused;
import sush.pipeline.journal.JournalHistory;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.ChainProjection;
import sush.projections.fold.Ordering;
import sush.projections.fold.Waves;
import sush.projections.fold.SessionProjection;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedGrant;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.LongNode;
import tools.jackson.databind.node.StringNode;

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
    static ActiveSession session(SessionProjection.Session a, Optional<SignedGrant> grant, String nextJob) {
        return new ActiveSession(a.id().codephrase(), a.starter(), a.acceptor(), grant.isPresent() ? "signed"
                : "causal", grant.map(g -> g.grant().epoch()).orElse(null), grant.map(g -> g.grant().signer()
                        .codephrase()).orElse(null), nextJob);
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
        // Issue 39: what the fold no longer knows (forgotten, and this sled restarted since) is
        // read back from the journal; nothing is read while this universe forgot nothing.
        return runtime.forgottenHistory().flatMap(extra -> Mono.from(query(runtime, s, v -> jobs(v, extra, limit,
                offset, session)))).onErrorResume(SledRuntime.HistoryUnavailable.class, e -> error(s, 503,
                        "history-unavailable", e.getMessage()));
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

    /**
     * A page of the jobs the fold knows, newest first, after the ones only the journal still holds
     * ({@code extra}: forgotten, so older than every job the fold knows).
     */
    private JobPage jobs(SledRuntime.View v, JournalHistory.Universe extra, int limit, int offset,
            Optional<SessionId> session) {
        List<JobPage.Entry> out = new ArrayList<>();
        int matched = 0;
        List<JobId> ids = new ArrayList<>();
        if (v.fold() != null) {
            // Once the universe forgot anything, the journal's jobs (every job this sled folded in
            // it, in every life, in the order they were delivered) come first, whether the fold
            // still holds them or forgot them as settled (D-054): a job keeps its place, on every
            // sled and across restarts; then any the fold holds that the journal does not.
            List<JobId> known = v.fold().statuses().jobs();
            extra.jobs().keySet().stream().filter(j -> !extra.statuses().statuses(j).isEmpty()
                    || !v.fold().statuses().statuses(j).isEmpty()).forEach(ids::add);
            Set<JobId> first = new HashSet<>(ids);
            known.stream().filter(j -> !first.contains(j)).forEach(ids::add);
        }
        for (int i = ids.size() - 1; i >= 0; i--) {
            JobId id = ids.get(i);
            // The fold's statuses when it holds any, else the journal's; the fold's session of the
            // request when it holds it, else the journal's.
            boolean journal = extra.jobs().containsKey(id) && v.fold().statuses().statuses(id).isEmpty();
            Optional<SessionId> of = v.fold().sessionOf(id).or(() -> Optional.ofNullable(extra.jobs().get(id)));
            if (session.isPresent() && !session.equals(of)) {
                continue;
            }
            matched++;
            if (matched <= offset || out.size() >= limit) {
                continue;
            }
            JobPage.Entry e = jobEntry(id, of, Json.statuses(journal ? extra.statuses().statuses(id)
                    : v.fold().statuses().statuses(id)));
            out.add(new JobPage.Entry(e.jobId(), e.sessionId(), e.statuses(), waves(v.fold(), id)));
        }
        return jobPage(matched, offset, limit, out);
    }

    /** One job of a {@code /jobs} page: its id, its session (null when unknown here) and every sled's status. */
    static JobPage.Entry jobEntry(JobId id, Optional<SessionId> session, Map<String, SledStatus> statuses) {
        return new JobPage.Entry(id.codephrase(), session.map(SessionId::codephrase).orElse(null), statuses);
    }

    /** A {@code /jobs} page: the jobs matched, the page's offset and limit, and its jobs. */
    static JobPage jobPage(int total, int offset, int limit, List<JobPage.Entry> jobs) {
        return new JobPage(total, offset, limit, jobs);
    }

    /** {@code GET /boundary}: the locker's state and its record, as the rack's ordering has it. */
    Boundary boundary(SledRuntime.View v) {
        return boundaryBody(cfg.me().baseboard(), v, locker.load().verdict().name().toLowerCase(Locale.ROOT),
                locker.load().reason(), locker.changed());
    }

    /**
     * The body of {@code /boundary}: sled {@code baseboard}'s view {@code v} of its record, with how
     * its locker loaded ({@code load}, {@code loadReason}) and a change to its slots it did not make.
     */
    static Boundary boundaryBody(String baseboard, SledRuntime.View v, String load, String loadReason,
            Optional<String> changed) {
        // changed: a change to the slots this daemon did not make, found while it runs (issue 22).
        Boundary.Record record = v.ordering() == Ordering.SIGNED
                ? v.record().map(SignedRecord.class::cast).map(StateResource::signedRecord).orElse(null)
                : v.record().map(BoundaryRecord.class::cast).map(StateResource::record).orElse(null);
        return new Boundary(baseboard, v.trusted(), load, loadReason, changed.orElse(null), v.ordering().wireName(),
                floor(v), record);
    }

    /**
     * The floor as {@code /boundary} and {@code /ready} show it: in the signed ordering, with no
     * universe floor, the record's floor epoch (a number); in the causal one the universe floor's
     * version (text); null when there is none.
     */
    static JsonNode floor(SledRuntime.View v) {
        if (v.ordering() == Ordering.SIGNED) {
            return v.record().map(r -> (JsonNode) LongNode.valueOf(((SignedRecord) r).floor())).orElse(null);
        }
        return v.floor().map(f -> (JsonNode) StringNode.valueOf(f.toString())).orElse(null);
    }

    static Boundary.Record signedRecord(SignedRecord r) {
        return new Boundary.Record(r.floor(), null, null, r.committed().map(c -> committed(c.session().session(),
                c.job(), c.successor(), c.outcome(), c.session().epoch(), c.session().signer().codephrase()))
                .orElse(null), null, null, null);
    }

    /**
     * A committed job as {@code /boundary} shows it, in either ordering's record (the session's
     * epoch and signer in the signed one, else null).
     */
    private static Boundary.Committed committed(SessionId session, JobId job, JobId successor, Outcome outcome,
            Long epoch, String signer) {
        return new Boundary.Committed(session.codephrase(), job.codephrase(), successor.codephrase(),
                outcome.isEnded() ? Json.lower(outcome.status()) : "committed", outcome.code(), epoch, signer);
    }

    static Boundary.Record record(BoundaryRecord r) {
        return new Boundary.Record(null, r.network().toString(), r.executed().toString(), r.committed().map(c ->
                committed(c.session(), c.job(), c.successor(), c.outcome(), null, null)).orElse(null),
                r.recent().stream().map(l -> l.network().toString()).toList(), r.burned().fill(), r.amnesiac());
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
        // A job of which the fold holds no status (settled and forgotten, D-054, or forgotten before
        // this sled restarted) is read back from the journal, which holds every delivery the fold
        // took and the earlier ones: its own status re-told from the boundary record (no times)
        // comes after the original. Nothing is read while the universe forgot nothing.
        return runtime.query(v -> v.fold() == null ? new Folded(Map.of(), Map.of(), null)
                : new Folded(Json.statuses(v.fold().statuses().statuses(job)),
                        Json.conflicts(v.fold().statuses().conflicts(job)), waves(v.fold(), job)))
                .flatMap(known -> (!known.statuses().isEmpty() ? Mono.just(known)
                        : fromJournal(job).map(j -> j.getKey().isEmpty() ? known
                                : new Folded(j.getKey(), j.getValue(), known.waves()))).flatMap(both -> {
                    Map<String, SledStatus> all = both.statuses();
                    Map<String, SledStatus> m = sled.isEmpty() ? all : all.containsKey(sled.get())
                            ? Map.of(sled.get(), all.get(sled.get())) : Map.of();
                    // A job in waves whose first sleds have not reported is known: its waves are shown.
                    if (m.isEmpty() && (sled.isPresent() || both.waves() == null)) {
                        return Mono.error(new Refused(404, "unknown-job", "no status for job " + job.codephrase()
                                + sled.map(b -> " from sled " + b).orElse("")));
                    }
                    StatusReport r = statusBody(job, m, both.conflicts());
                    return Mono.just((Object) new StatusReport(r.jobId(), r.statuses(), r.conflicts(), both.waves()));
                }));
    }

    /** What the fold knows of a job: its statuses, its conflicts, and where its waves stand (null: none). */
    private record Folded(Map<String, SledStatus> statuses, Map<String, Conflict> conflicts,
            StatusReport.WaveProgress waves) {
    }

    /** Issue 40: where job {@code job}'s waves stand by this sled's fold, when it is a job in waves it holds. */
    private static StatusReport.WaveProgress waves(sush.projections.fold.SledProjection fold, JobId job) {
        return fold.chain().flatMap(c -> c.known(job)).flatMap(j -> Waves.progress(j, fold))
                .map(p -> new StatusReport.WaveProgress(p.size(), p.budget(), p.wave(), p.awaited(), p.failures(),
                        p.spent())).orElse(null);
    }

    /**
     * A job's statuses and conflicts as this sled's journal holds them (issue 39): a job the rack
     * settled is forgotten from gossip, and a sled that restarted since folds it no more; its
     * journal still says what every sled reported. A journal that cannot be read is a 503.
     */
    private Mono<Map.Entry<Map<String, SledStatus>, Map<String, Conflict>>> fromJournal(JobId job) {
        return runtime.journalStatuses(job).map(p -> Map.entry(Json.statuses(p.statuses(job)),
                Json.conflicts(p.conflicts(job)))).onErrorMap(SledRuntime.HistoryUnavailable.class, e -> new Refused(503,
                        "history-unavailable", e.getMessage()));
    }

    /**
     * The body of {@code /jobs/{jid}/status}: the job, the statuses shown, and the conflicts of
     * {@code allConflicts} reported by a sled shown, when any.
     */
    static StatusReport statusBody(JobId job, Map<String, SledStatus> statuses, Map<String, Conflict> allConflicts) {
        Map<String, Conflict> conflicts = new TreeMap<>(allConflicts);
        conflicts.keySet().retainAll(statuses.keySet());
        return new StatusReport(job.codephrase(), statuses, conflicts.isEmpty() ? null : conflicts);
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
        JobId after = given == null || given.isEmpty() ? Chain.first(id) : jobId("after", given.get(0));
        return runtime.query(v -> Optional.ofNullable(v.fold()).filter(f -> f.activeSession()
                .map(a -> a.id().equals(id)).orElse(false)).flatMap(f -> f.chain())
                .map(c -> c.from(after, page + 1))).flatMap(links -> {
                    if (links.isEmpty()) {
                        return Mono.error(new Refused(404, "not-active", "session " + id.codephrase()
                                + " is not the active session here"));
                    }
                    if (links.get().isEmpty()) {
                        // Issue 39: nothing held here; the rack may have settled and forgotten it.
                        return runtime.continuesAt(id, after).map(to -> (Object) new ChainPage(id.codephrase(),
                                after.codephrase(), List.of(), false, to.map(JobId::codephrase).orElse(null)));
                    }
                    List<ChainPage.Link> out = new ArrayList<>();
                    for (ChainProjection.Link l : links.get().subList(0, Math.min(page, links.get().size()))) {
                        out.add(new ChainPage.Link(l.position().codephrase(), l.request().map(r ->
                                Json.MAPPER.<JsonNode>valueToTree(SignedRequests.toJson(r))).orElse(null),
                                l.request().isPresent() ? null : true));
                    }
                    return Mono.just((Object) new ChainPage(id.codephrase(), after.codephrase(), out,
                            links.get().size() > page));
                });
    }
}
