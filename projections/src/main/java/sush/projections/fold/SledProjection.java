package sush.projections.fold;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import sush.gossip.clock.Version;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.message.MessageException;
import sush.projections.targets.Sled;

/**
 * Everything one sled folds from its causal stream: the universe view (frontier, every sled's
 * announcement), sessions, the active session's chain as this sled walks it, job statuses, and
 * its own starts for zombie detection. Pure: no clock, no randomness, no I/O; the same
 * {@code (version, payload)} sequence gives the same state. Malformed payloads are counted and
 * skipped, never thrown.
 */
public final class SledProjection {
    /** Bound on the announcements kept (a rack has 32 sleds; replaced sleds add a few). */
    public static final int MAX_SLEDS = 256;

    private final Sled me;
    private final TargetsMe targetsMe;
    /** Jobs are checked before they may take a chain position (pure: verification computes). */
    private final sush.projections.job.Signatures trust;
    /** The rack's session ordering: which of the two session folds below is fed. */
    private final Ordering ordering;
    /** The bounds of this fold's memories ({@link FoldBounds#DEFAULTS} on a sled). */
    private final FoldBounds bounds;
    /** Sessions of the {@code causal} ordering (starts and stops in causal order). */
    private final SessionProjection sessions;
    /** Sessions of the {@code signed} ordering (grants by the signer's total order). */
    private final OrderedSessionProjection grants;
    /**
     * Signed ordering: every valid grant folded, by session, bounded like the causal fold's
     * sessions: who started each (stops of its jobs), and its place in the order.
     */
    private final LinkedHashMap<SessionId, sush.projections.job.SignedGrant> granted = new LinkedHashMap<>();
    /** Session messages of the other ordering (a start in a signed rack, a grant in a causal one): ignored. */
    private long otherOrdering;
    /** Grants that failed their trust check: ignored. */
    private long invalidGrants;
    private final StatusProjection statuses;
    private final Map<String, Announced> announcements = new LinkedHashMap<>();
    /** Own starts without an own terminal status yet (zombie candidates), oldest first. */
    private final LinkedHashMap<JobId, Version> myStarts = new LinkedHashMap<>();
    /** Bound on {@link #myStarts}: past it the oldest candidate is dropped (never reported). */
    public static final int MAX_OWN_STARTS = 65_536;
    /** The job last offered at the head, so each is offered once. */
    private JobId offered;
    /** Bound on the sessions remembered as ended (an id and why each: far smaller than a session). */
    public static final int MAX_ENDED_SESSIONS = 65_536;
    /** Bound on requests held for sessions whose start has not arrived. */
    public static final int MAX_EARLY_MESSAGES = 4096;
    private final LinkedHashMap<SessionId, List<Message>> early = new LinkedHashMap<>();
    private int earlyCount;
    private long droppedEarly;
    /** Sessions that stopped being active (or never were), and why. */
    private final LinkedHashMap<SessionId, SessionProjection.Ending> ended = new LinkedHashMap<>();
    private Version frontier = Version.ZERO;
    private ChainProjection chain;
    /** The last job this sled ran in the active session: a sequential job waits for its end. */
    private JobId lastRan;
    /**
     * Bound on the sessions a snapshot can name for resumption: its own committed job and one per
     * recent universe (the record keeps 16).
     */
    public static final int MAX_RESUMPTIONS = 32;
    /** Where each session named by the boundary snapshot resumes (the first named wins). */
    private final Map<SessionId, Resumption> resumptions = new HashMap<>();
    /** Bound on {@link #jobSessions}: past it the oldest request is forgotten (its stop then refused). */
    public static final int MAX_JOB_SESSIONS = 65_536;
    /** The session of every job request folded: who may stop the job (its session's starter). */
    private final LinkedHashMap<JobId, SessionId> jobSessions = new LinkedHashMap<>();
    /** Requests whose session the bound made this fold forget. */
    private long evictedJobSessions;
    /** Grants the bound made this fold forget. */
    private long evictedGrants;
    /** Session endings the bound made this fold forget. */
    private long evictedEndings;
    private long malformed;
    private long faults;
    private long unknown;
    private long applied;
    /** Scratch for {@link #fold}'s outcomes (the fold is single-threaded). */
    private final List<Outcome> outcomes = new ArrayList<>();

    /** A sled's announcement and the version it arrived with. */
    public record Announced(Message.Announcement announcement, Version version) {
    }

    /** The committed session, its committed job and where its chain resumes (the boundary snapshot). */
    public record Resumption(SessionId session, JobId committed, JobId successor) {
    }

    /** What one message means for this sled; the pipeline acts on these. */
    public sealed interface Outcome {
        /** The job at this sled's head: admission decides whether it runs. */
        record AtHead(sush.projections.job.SignedJob job) implements Outcome {
        }

        /** A session stopped being active; these targeted jobs never ran here. */
        record SessionEnded(SessionId session, SessionProjection.Ending why,
                List<sush.projections.job.SignedJob> queued) implements Outcome {
        }

        /** Two concurrent sessions met; report {@code ConcurrentSessions} once. */
        record ConcurrentSessions(SessionProjection.Session first, SessionProjection.Session second)
                implements Outcome {
        }

        /** The head left this job for this sled behind at a burnt position: it never runs here. */
        record Burnt(sush.projections.job.SignedJob job) implements Outcome {
        }

        /**
         * A request held until its session became active joined the chain now, behind the head
         * (resumed past it): the sled judges it as it judges a request delivered then.
         */
        record Released(sush.projections.job.SignedJob job) implements Outcome {
        }

        /**
         * Two requests claim one position of the active session (ordered-sessions.md section 9): the
         * refused one is a different job at a used position and never runs here; {@code held} is
         * the successor of the request this sled holds, committed or ran there.
         */
        record Conflict(sush.projections.job.SignedJob refused, JobId held) implements Outcome {
        }

        /** The active session's chain is full: the request is not remembered, and never runs here. */
        record ChainFull(sush.projections.job.SignedJob job) implements Outcome {
        }

        /** A job of the active session that fails its checks: it takes no chain position. */
        record InvalidJob(sush.projections.job.SignedJob job, sush.projections.job.InvalidJobReason reason)
                implements Outcome {
        }
    }

    /** A sled's fold in a rack of the {@code causal} ordering. */
    public SledProjection(Sled me, sush.projections.job.Signatures trust) {
        this(me, trust, Ordering.CAUSAL);
    }

    /** A sled's fold in a rack of {@code ordering}. */
    public SledProjection(Sled me, sush.projections.job.Signatures trust, Ordering ordering) {
        this(me, trust, ordering, FoldBounds.DEFAULTS);
    }

    /** A sled's fold in a rack of {@code ordering}, its memories bounded by {@code bounds}. */
    public SledProjection(Sled me, sush.projections.job.Signatures trust, Ordering ordering, FoldBounds bounds) {
        this.me = me;
        this.targetsMe = new TargetsMe(me);
        this.trust = trust;
        this.ordering = java.util.Objects.requireNonNull(ordering, "ordering");
        this.bounds = java.util.Objects.requireNonNull(bounds, "bounds");
        this.sessions = new SessionProjection(bounds.sessions());
        this.grants = new OrderedSessionProjection(bounds.sessionStops());
        this.statuses = new StatusProjection();
    }

    private SledProjection(SledProjection o) {
        this.me = o.me;
        this.targetsMe = new TargetsMe(o.me);
        this.trust = o.trust;
        this.ordering = o.ordering;
        this.bounds = o.bounds;
        this.sessions = new SessionProjection(o.sessions);
        this.grants = new OrderedSessionProjection(o.grants);
        this.granted.putAll(o.granted);
        this.otherOrdering = o.otherOrdering;
        this.invalidGrants = o.invalidGrants;
        this.statuses = new StatusProjection(o.statuses);
        this.announcements.putAll(o.announcements);
        this.accesses.putAll(o.accesses);
        this.myStarts.putAll(o.myStarts);
        this.offered = o.offered;
        o.early.forEach((session, held) -> this.early.put(session, new ArrayList<>(held)));
        this.earlyCount = o.earlyCount;
        this.droppedEarly = o.droppedEarly;
        this.ended.putAll(o.ended);
        this.frontier = o.frontier;
        this.chain = o.chain == null ? null : new ChainProjection(o.chain, targetsMe);
        this.lastRan = o.lastRan;
        this.resumptions.putAll(o.resumptions);
        this.jobSessions.putAll(o.jobSessions);
        this.pins.putAll(o.pins);
        this.evictedJobSessions = o.evictedJobSessions;
        this.evictedGrants = o.evictedGrants;
        this.evictedEndings = o.evictedEndings;
        this.malformed = o.malformed;
        this.faults = o.faults;
        this.unknown = o.unknown;
        this.applied = o.applied;
    }

    /**
     * An independent projection in the same state: folding into one never changes the other. It
     * is what folding the same messages into a new projection would give, without the replay;
     * the chain check forks its states with it, and an engineer can try a what-if on a replayed
     * sled. The copy checks signatures with the same
     * {@link sush.projections.job.Signatures} (shared, as the original was given it).
     */
    public SledProjection copy() {
        return new SledProjection(this);
    }

    /**
     * Sets where a session named by the boundary snapshot resumes, before any job of it is
     * screened (at-most-once.md section 6), once per entry; the first resumption given for a
     * session wins (the caller gives the most recent first).
     */
    public void resume(Resumption at) {
        if (resumptions.size() < MAX_RESUMPTIONS) {
            resumptions.putIfAbsent(at.session(), at);
        }
    }

    /** Folds one delivered message. */
    public List<Outcome> apply(Version version, byte[] payload) {
        Message m;
        try {
            m = MessageCodec.decode(payload);
        } catch (MessageException e) {
            applied++;
            frontier = frontier.join(version);
            malformed++;
            return List.of();
        }
        return apply(version, m);
    }

    /**
     * Folds one delivered message its caller already decoded (the sled runtime reads each
     * message once); the same state as {@link #apply(Version, byte[])} with its bytes.
     */
    public List<Outcome> apply(Version version, Message m) {
        applied++;
        frontier = frontier.join(version);
        try {
            return fold(version, m);
        } catch (RuntimeException e) {
            // Defence in depth: a message that trips a fold bug must not crash every sled that
            // replays it. Counted (and visible in the digest) so tests catch the bug itself.
            faults++;
            return List.of();
        }
    }

    /**
     * What the bounds made this fold forget so far, by memory: {@code job-sessions}, {@code grants},
     * {@code sessions}, {@code session-endings}, {@code session-stops}, {@code early-messages} and the
     * active session's {@code chain} (jobs, burns and walked positions not remembered). Named so
     * that a sled can say which memory was full.
     */
    public Map<String, Long> evictions() {
        Map<String, Long> out = new java.util.TreeMap<>();
        out.put("job-sessions", evictedJobSessions);
        out.put("grants", evictedGrants);
        out.put("sessions", sessions.evicted());
        out.put("session-endings", evictedEndings);
        out.put("session-stops", grants.evictedStops());
        out.put("early-messages", droppedEarly);
        out.put("chain", chain == null ? 0 : chain.overflow());
        return out;
    }

    /** The sum of {@link #evictions()}, cheap enough to ask after every message. */
    public long evictionsTotal() {
        return evictedJobSessions + evictedGrants + sessions.evicted() + evictedEndings + grants.evictedStops()
                + droppedEarly + (chain == null ? 0 : chain.overflow());
    }

    /** Messages that raised an unexpected error inside a fold (a bug, always zero in tests). */
    public long faults() {
        return faults;
    }

    private List<Outcome> fold(Version version, Message m) {
        // Most messages mean nothing for this sled: one list reused, copied only when not empty.
        List<Outcome> out = outcomes;
        out.clear();
        if (m instanceof Message.SessionAccess) {
            Message.SessionAccess a = (Message.SessionAccess) m;
            String k = a.session().codephrase() + " " + a.key();
            if (accesses.containsKey(k) || accesses.size() < MAX_ACCESSES) {
                accesses.remove(k);
                accesses.put(k, a);
            }
        } else if (m instanceof Message.SessionGrant) {
            onGrant(((Message.SessionGrant) m).grant(), out);
        } else if (m instanceof Message.SessionStart && ordering == Ordering.SIGNED) {
            otherOrdering++;
        } else if (m instanceof Message.SessionStop && ordering == Ordering.SIGNED) {
            Message.SessionStop stop = (Message.SessionStop) m;
            Optional<SessionProjection.Session> before = activeSession();
            grants.onStop(stop.session(), stop.by());
            signedChange(before, out);
        } else if (m instanceof Message.SessionStart) {
            Message.SessionStart start = (Message.SessionStart) m;
            boolean known = sessions.session(start.session()).isPresent();
            for (SessionProjection.Change c : sessions.onStart(version, start)) {
                onSessionChange(c, out);
            }
            boolean absorbed = !known && sessions.session(start.session()).isPresent()
                    && !sessions.active().map(a -> a.id().equals(start.session())).orElse(false)
                    && !ended.containsKey(start.session());
            if (absorbed) {
                // Never activated: its requests, early or late, can never run here.
                endSession(start.session(), SessionProjection.Ending.SUPERSEDED);
                releaseEarly(start.session(), out);
            }
        } else if (m instanceof Message.SessionStop) {
            Message.SessionStop stop = (Message.SessionStop) m;
            if (sessions.session(stop.session()).isEmpty()) {
                holdEarly(stop.session(), m);
            }
            for (SessionProjection.Change c : sessions.onStop(stop)) {
                onSessionChange(c, out);
            }
        } else if (m instanceof Message.JobStart) {
            sush.projections.job.SignedJob job = ((Message.JobStart) m).job();
            if (jobSessions.putIfAbsent(job.request().job(), job.request().session()) == null
                    && jobSessions.size() > bounds.jobSessions()) {
                jobSessions.remove(jobSessions.keySet().iterator().next());
                evictedJobSessions++;
            }
            onJobStart(job, m, out);
        } else if (m instanceof Message.JobSkip) {
            Message.JobSkip skip = (Message.JobSkip) m;
            var active = activeSession();
            if (session(skip.session()).isEmpty()) {
                holdEarly(skip.session(), m);
            } else if (chain != null && active.isPresent() && active.get().id().equals(skip.session())
                    && active.get().starter().equals(skip.by())) {
                chain.onBurn(skip.position());
            }
        } else if (m instanceof Message.Announcement) {
            Message.Announcement a = (Message.Announcement) m;
            if (announcements.containsKey(a.baseboard()) || announcements.size() < MAX_SLEDS) {
                announcements.put(a.baseboard(), new Announced(a, version));
            }
        } else if (m instanceof Message.Unknown) {
            unknown++;
        } else if (m instanceof Message.OperatorLogin || m instanceof Message.OperatorRevoked
                || m instanceof Message.OperatorUnrevoked) {
            // Who may ask: the API's concern (ops), not the chain's.
        } else {
            if (m instanceof Message.JobStarted && ((Message.JobStarted) m).baseboard().equals(me.baseboard())) {
                myStarts.put(((Message.JobStarted) m).job(), version);
                if (myStarts.size() > MAX_OWN_STARTS) {
                    myStarts.remove(myStarts.keySet().iterator().next());
                }
            }
            statuses.apply(m);
            forgetEndedOwnStart(m);
        }
        offerHead(out);
        return out.isEmpty() ? List.of() : List.copyOf(out);
    }

    private void onJobStart(sush.projections.job.SignedJob job, Message m, List<Outcome> out) {
        SessionId session = job.request().session();
        boolean active = chain != null && activeSession().map(s -> s.id().equals(session)).orElse(false);
        if (active) {
            Optional<sush.projections.job.InvalidJobReason> refusal = trust.check(job, session);
            Resumption r = resumptions.get(session);
            if (refusal.isPresent()) {
                out.add(new Outcome.InvalidJob(job, refusal.get()));
            } else if (r != null && r.committed().equals(job.request().job())
                    && !r.successor().equals(job.request().successor())) {
                // The record committed another request at this position: this one is another job.
                out.add(new Outcome.Conflict(job, r.successor()));
            } else {
                ChainProjection.Taken taken = chain.onJob(job);
                if (taken instanceof ChainProjection.Taken.Conflicting) {
                    ChainProjection.Conflict c = ((ChainProjection.Taken.Conflicting) taken).conflict();
                    out.add(new Outcome.Conflict(c.refused(), c.held().request().successor()));
                } else if (taken instanceof ChainProjection.Taken.Full) {
                    out.add(new Outcome.ChainFull(job));
                }
            }
        } else if (ended.containsKey(session)) {
            if (targetsMe(job)) {
                out.add(new Outcome.SessionEnded(session, ended.get(session), List.of(job)));
            }
        } else if (session(session).isEmpty()) {
            holdEarly(session, m);
        }
    }

    /**
     * Ordered-sessions.md section 2: a valid grant takes its place in the signer's order; the
     * newest one not stopped is active. A grant older than the newest never becomes active, so
     * its requests end here as superseded. Grants of a causal rack and grants that fail the
     * trust check are counted and ignored.
     */
    private void onGrant(sush.projections.job.SignedGrant g, List<Outcome> out) {
        if (ordering != Ordering.SIGNED) {
            otherOrdering++;
            return;
        }
        if (trust.grant(g).isPresent()) {
            invalidGrants++;
            return;
        }
        SessionId id = g.grant().session();
        if (!granted.containsKey(id)) {
            granted.put(id, g);
            evictGrant(id);
        }
        Optional<SessionProjection.Session> before = activeSession();
        boolean newest = grants.onGrant(g);
        signedChange(before, out);
        boolean isNewest = grants.newest().map(n -> n.grant().session().equals(id)).orElse(false);
        if (!isNewest && !ended.containsKey(id)) {
            // Older than a grant this sled holds: it is never active here.
            endSession(id, SessionProjection.Ending.SUPERSEDED);
            releaseEarly(id, out);
        } else if (newest && grants.active().isEmpty() && !ended.containsKey(id)) {
            // Its starter's stop arrived first: it was never active.
            endSession(id, SessionProjection.Ending.STOPPED);
            releaseEarly(id, out);
        }
    }

    /** The signed fold's active session moved: the one before ends, the new one is activated. */
    private void signedChange(Optional<SessionProjection.Session> before, List<Outcome> out) {
        Optional<SessionProjection.Session> after = activeSession();
        if (before.map(SessionProjection.Session::id).equals(after.map(SessionProjection.Session::id))) {
            return;
        }
        if (before.isPresent()) {
            boolean stillNewest = grants.newest().map(n -> n.grant().session().equals(before.get().id())).orElse(false);
            onSessionChange(new SessionProjection.Change.Ended(before.get(), stillNewest
                    ? SessionProjection.Ending.STOPPED : SessionProjection.Ending.SUPERSEDED), out);
        }
        if (after.isPresent()) {
            onSessionChange(new SessionProjection.Change.Activated(after.get()), out);
        }
    }

    /** A grant as the session the chain, the runtime and the API see (no causal start, no acceptor). */
    private static SessionProjection.Session asSession(sush.projections.job.SignedGrant g) {
        return new SessionProjection.Session(g.grant().session(), Version.ZERO, g.grant().starter(), "");
    }

    /** The active session of either ordering. */
    public Optional<SessionProjection.Session> activeSession() {
        return ordering == Ordering.SIGNED ? grants.active().map(SledProjection::asSession) : sessions.active();
    }

    /** A session this fold knows (started, or granted), of either ordering. */
    /**
     * What {@code key} may do on session {@code id}'s interactive jobs: write for its starter,
     * else what the starter last set for the key (issue 19), else read.
     */
    public Message.Access access(SessionId id, String key) {
        Optional<String> starter = session(id).map(SessionProjection.Session::starter);
        if (starter.isEmpty()) {
            return Message.Access.NONE;
        }
        if (starter.get().equals(key)) {
            return Message.Access.WRITE;
        }
        Message.SessionAccess a = accesses.get(id.codephrase() + " " + key);
        return a != null && a.by().equals(starter.get()) ? a.access() : Message.Access.READ;
    }

    /** Bound on the access settings kept (each is one per session and key). */
    public static final int MAX_ACCESSES = 4096;
    private final Map<String, Message.SessionAccess> accesses = new LinkedHashMap<>();

    public Optional<SessionProjection.Session> session(SessionId id) {
        return ordering == Ordering.SIGNED ? Optional.ofNullable(granted.get(id)).map(SledProjection::asSession)
                : sessions.session(id);
    }

    /** Signed ordering: the active session's grant (its place in the order), if any. */
    public Optional<sush.projections.job.SignedGrant> activeGrant() {
        return ordering == Ordering.SIGNED ? grants.active() : Optional.empty();
    }

    /** Signed ordering: the newest grant this fold holds, stopped or not. */
    public Optional<sush.projections.job.SignedGrant> newestGrant() {
        return ordering == Ordering.SIGNED ? grants.newest() : Optional.empty();
    }

    /** Signed ordering: the grant of session {@code id}, if this fold folded it. */
    public Optional<sush.projections.job.SignedGrant> grant(SessionId id) {
        return Optional.ofNullable(granted.get(id));
    }

    public Ordering ordering() {
        return ordering;
    }

    /** Session messages of the other ordering, ignored. */
    public long otherOrdering() {
        return otherOrdering;
    }

    /** Grants that failed the trust check, ignored. */
    public long invalidGrants() {
        return invalidGrants;
    }

    /**
     * Keeps a request whose session's start has not arrived: concurrent with the start, it may
     * be delivered first on some sleds, and dropping it there would make sleds disagree.
     */
    private void holdEarly(SessionId session, Message m) {
        if (earlyCount >= bounds.earlyMessages()) {
            SessionId oldest = early.keySet().iterator().next();
            earlyCount -= early.remove(oldest).size();
            droppedEarly++;
        }
        early.computeIfAbsent(session, k -> new ArrayList<>()).add(m);
        earlyCount++;
    }

    /** Applies what was held for {@code session}, in the order it arrived. */
    private void releaseEarly(SessionId session, List<Outcome> out) {
        List<Message> held = early.remove(session);
        if (held == null) {
            return;
        }
        earlyCount -= held.size();
        for (Message m : held) {
            if (m instanceof Message.JobStart) {
                onJobStart(((Message.JobStart) m).job(), m, out);
                sush.projections.job.SignedJob job = ((Message.JobStart) m).job();
                if (chain != null && activeSession().map(s -> s.id().equals(session)).orElse(false)
                        && chain.precedesHead(job.request().job())) {
                    out.add(new Outcome.Released(job));
                }
            } else if (m instanceof Message.JobSkip) {
                Message.JobSkip skip = (Message.JobSkip) m;
                var active = activeSession();
                if (chain != null && active.isPresent() && active.get().id().equals(session)
                        && active.get().starter().equals(skip.by())) {
                    chain.onBurn(skip.position());
                }
            } else if (m instanceof Message.SessionStop && ordering == Ordering.CAUSAL) {
                for (SessionProjection.Change c : sessions.onStop((Message.SessionStop) m)) {
                    onSessionChange(c, out);
                }
            }
        }
    }

    private boolean targetsMe(sush.projections.job.SignedJob job) {
        return targetsMe.test(job.request().target());
    }

    /**
     * Past the bound, forgets the oldest grant that no one relies on: never the newest grant (the
     * active session's, or the one a stop left inactive), never the one just folded, never the
     * session of a job committed here and not ended. What it forgets is older than the newest,
     * so its session already ended here (superseded) and its late requests end at once.
     */
    private void evictGrant(SessionId justFolded) {
        if (granted.size() <= bounds.sessions()) {
            return;
        }
        Optional<SessionId> newest = grants.newest().map(n -> n.grant().session());
        java.util.Set<SessionId> pinned = new java.util.HashSet<>();
        pins.values().forEach(p -> pinned.add(p.session()));
        for (java.util.Iterator<SessionId> it = granted.keySet().iterator(); it.hasNext();) {
            SessionId s = it.next();
            if (!s.equals(justFolded) && !newest.map(s::equals).orElse(false) && !pinned.contains(s)) {
                it.remove();
                evictedGrants++;
                return;
            }
        }
    }

    private void endSession(SessionId session, SessionProjection.Ending why) {
        ended.put(session, why);
        if (ended.size() > bounds.sessionEndings()) {
            ended.remove(ended.keySet().iterator().next());
            evictedEndings++;
        }
    }

    /** An own start that ended here is no zombie candidate any more. */
    private void forgetEndedOwnStart(Message m) {
        JobId job = m instanceof Message.JobStopped ? ((Message.JobStopped) m).job()
                : m instanceof Message.JobErrored ? ((Message.JobErrored) m).job()
                : m instanceof Message.JobSkipped ? ((Message.JobSkipped) m).job()
                : m instanceof Message.JobCancelled ? ((Message.JobCancelled) m).job() : null;
        if (job != null && myStarts.containsKey(job)
                && statuses.status(job, me.baseboard()).map(e -> e.status().isTerminal()).orElse(false)) {
            myStarts.remove(job);
        }
    }

    /** Offers the job at the head once, when it first stands there. */
    private void offerHead(List<Outcome> out) {
        if (chain == null) {
            offered = null;
            return;
        }
        for (sush.projections.job.SignedJob b : chain.drainBurnt()) {
            out.add(new Outcome.Burnt(b));
        }
        sush.projections.job.SignedJob at = chain.jobAtHead();
        if (at != null && !at.request().job().equals(offered)) {
            offered = at.request().job();
            out.add(new Outcome.AtHead(at));
        }
    }

    private void onSessionChange(SessionProjection.Change c, List<Outcome> out) {
        if (c instanceof SessionProjection.Change.Activated) {
            SessionProjection.Session s = ((SessionProjection.Change.Activated) c).session();
            Optional<Resumption> resumed = Optional.ofNullable(resumptions.get(s.id()));
            chain = new ChainProjection(targetsMe, s.id(), resumed.map(r -> new JobId[] {r.committed(), r.successor()}),
                    bounds.chainPositions());
            // The committed job may still run (a survivor): a sequential job waits for it too.
            lastRan = resumed.map(Resumption::committed).orElse(null);
            releaseEarly(s.id(), out);
        } else if (c instanceof SessionProjection.Change.Ended) {
            SessionProjection.Change.Ended e = (SessionProjection.Change.Ended) c;
            endSession(e.session().id(), e.why());
            List<sush.projections.job.SignedJob> queued = chain == null ? List.of() : chain.queuedForMe();
            out.add(new Outcome.SessionEnded(e.session().id(), e.why(), queued));
            chain = null;
            lastRan = null;
        } else {
            SessionProjection.Change.Concurrent k = (SessionProjection.Change.Concurrent) c;
            out.add(new Outcome.ConcurrentSessions(k.first(), k.second()));
            endSession(k.second().id(), SessionProjection.Ending.ANNIHILATED);
            releaseEarly(k.second().id(), out);
        }
    }

    /**
     * This sled passed {@code job}, the job at its head, as {@code how} says (started it, or
     * decided it never will): the head moves on. Refused if the head has moved since the job was
     * offered.
     */
    public List<Outcome> passHead(JobId job, ChainProjection.Passed how) {
        if (chain == null) {
            throw new IllegalStateException("no active session");
        }
        chain.passHead(job, how);
        if (how == ChainProjection.Passed.RAN) {
            lastRan = job;
        }
        List<Outcome> out = new ArrayList<>(1);
        offerHead(out);
        return out;
    }

    /**
     * The sequential/concurrent rule: a job flagged concurrent starts as soon as it is at the
     * head; any other waits until the previous job this sled ran has ended on this sled.
     */
    public boolean mayStart(sush.projections.job.SignedJob job) {
        if (job.request().concurrent() || lastRan == null) {
            return true;
        }
        return statuses.status(lastRan, me.baseboard()).map(e -> e.status().isTerminal()).orElse(false);
    }

    /**
     * Own job starts from before this entry (not above {@code birth}) with no terminal status
     * from this sled: they were running when an earlier life ended.
     */
    public List<JobId> zombies(Version birth) {
        List<JobId> out = new ArrayList<>();
        myStarts.forEach((job, version) -> {
            boolean previousEntry = !birth.lessThan(version);
            boolean ended = statuses.status(job, me.baseboard()).map(e -> e.status().isTerminal()).orElse(false);
            if (previousEntry && !ended) {
                out.add(job);
            }
        });
        out.sort(java.util.Comparator.comparing(j -> java.util.HexFormat.of().formatHex(j.toBytes())));
        return out;
    }

    public Version frontier() {
        return frontier;
    }

    public Map<String, Announced> announcements() {
        return java.util.Collections.unmodifiableMap(announcements);
    }

    public SessionProjection sessions() {
        return sessions;
    }

    public StatusProjection statuses() {
        return statuses;
    }

    public Optional<ChainProjection> chain() {
        return Optional.ofNullable(chain);
    }

    public long malformed() {
        return malformed;
    }

    public long unknown() {
        return unknown;
    }

    /**
     * The state that decides what this sled does next with its chain: the chain's whole state,
     * the job last offered and the last one run. Equal keys, equal futures for the same inputs;
     * the chain check (locker's {@code ChainCheck}) merges states by it.
     */
    public Optional<SessionId> sessionOf(JobId job) {
        Pin p = pins.get(job);
        if (p != null) {
            return Optional.of(p.session());
        }
        SessionId s = jobSessions.get(job);
        if (s != null) {
            return Optional.of(s);
        }
        // The active session's chain holds its requests even when the bounded map forgot them.
        return chain == null ? Optional.empty() : chain.known(job).map(j -> j.request().session());
    }

    /** Who may stop a job this sled committed and has not seen end: its session and that session's starter. */
    public record Pin(SessionId session, String starter) {
    }

    /** Jobs committed here and not ended, with who may stop them: no bounded memory forgets these. */
    private final Map<JobId, Pin> pins = new HashMap<>();

    /**
     * Ordered-sessions.md section 9: while {@code job} is committed here and has not ended, its
     * session and starter are kept whatever the bounded memories forget (and carried into a new
     * universe by the sled), so its starter can always stop it. The sled unpins it at its end.
     */
    public void pin(JobId job, Pin pin) {
        pins.put(job, pin);
    }

    public void unpin(JobId job) {
        pins.remove(job);
    }

    /** The pinned jobs (committed here, not ended). */
    public Map<JobId, Pin> pins() {
        return java.util.Collections.unmodifiableMap(pins);
    }

    /**
     * Whether a stop of a job comes from its session's starter (security.md section 2): only the
     * starter stops jobs, as only the starter stops or skips in the session. A stop of a job whose
     * request this sled has not folded is not honoured.
     */
    public boolean mayStop(Message.JobStop stop) {
        Pin p = pins.get(stop.job());
        if (p != null) {
            return p.starter().equals(stop.by());
        }
        return sessionOf(stop.job()).flatMap(this::session).map(s -> s.starter().equals(stop.by())).orElse(false);
    }

    public String chainKey() {
        return (chain == null ? "-" : chain.fingerprint()) + "|offered=" + offered + "|lastRan=" + lastRan;
    }

    /**
     * A canonical summary of the whole state, equal for equal states: what replay and the
     * determinism tests compare.
     */
    public String digest() {
        StringBuilder b = new StringBuilder();
        b.append("frontier=").append(frontier).append(";applied=").append(applied).append(";malformed=").append(malformed)
                .append(";faults=").append(faults)
                .append(";unknown=").append(unknown).append(";ordering=").append(ordering)
                .append(";grants=").append(granted.size()).append(";otherOrdering=").append(otherOrdering)
                .append(";invalidGrants=").append(invalidGrants).append(";active=")
                .append(activeSession().map(s -> s.id().codephrase()).orElse("-")).append(";head=")
                .append(chain == null ? "-" : chain.head().codephrase()).append(";jobs=").append(statuses.size())
                .append(";announced=").append(announcements.keySet()).append(";starts=").append(myStarts.size())
                .append(";early=").append(earlyCount).append(";ended=").append(ended.size())
                .append(";accesses=").append(accesses.size());
        return b.toString();
    }
}
