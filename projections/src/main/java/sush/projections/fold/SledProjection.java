package sush.projections.fold;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import sush.gossip.clock.Version;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.InvalidJobReason;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.job.Signatures;
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

    /** Bound on the own starts kept as zombie candidates: past it the oldest candidate is dropped (never reported). */
    public static final int MAX_OWN_STARTS = 65_536;
    /** Bound on the sessions remembered as ended (an id and why each: far smaller than a session). */
    public static final int MAX_ENDED_SESSIONS = 65_536;
    /** Bound on requests held for sessions whose start has not arrived. */
    public static final int MAX_EARLY_MESSAGES = 4096;
    /**
     * Bound on the sessions a snapshot can name for resumption: its own committed job and one per
     * recent universe (the record keeps 16).
     */
    public static final int MAX_RESUMPTIONS = 32;
    /** Bound on the job requests whose session is remembered: past it the oldest request is forgotten (its stop then refused). */
    public static final int MAX_JOB_SESSIONS = 65_536;
    /** Bound on the access settings kept (each is one per session and key). */
    public static final int MAX_ACCESSES = 4096;

    /** The fold of each message into this sled's memories, which it owns. */
    private final MessageFold fold;
    private Version frontier = Version.ZERO;
    private long malformed;
    private long faults;
    private long applied;

    /** A sled's announcement and the version it arrived with. */
    public record Announced(Message.Announcement announcement, Version version) {
    }

    /** The committed session, its committed job and where its chain resumes (the boundary snapshot). */
    public record Resumption(SessionId session, JobId committed, JobId successor) {
    }

    /** What one message means for this sled; the pipeline acts on these. */
    public sealed interface Outcome {
        /** The job at this sled's head: admission decides whether it runs. */
        record AtHead(SignedJob job) implements Outcome {
        }

        /** A session stopped being active; these targeted jobs never ran here. */
        record SessionEnded(SessionId session, SessionProjection.Ending why,
                List<SignedJob> queued) implements Outcome {
        }

        /** Two concurrent sessions met; report {@code ConcurrentSessions} once. */
        record ConcurrentSessions(SessionProjection.Session first, SessionProjection.Session second)
                implements Outcome {
        }

        /** The head left this job for this sled behind at a burnt position: it never runs here. */
        record Burnt(SignedJob job) implements Outcome {
        }

        /**
         * A request held until its session became active joined the chain now, behind the head
         * (resumed past it): the sled judges it as it judges a request delivered then.
         */
        record Released(SignedJob job) implements Outcome {
        }

        /**
         * Two requests claim one position of the active session (ordered-sessions.md section 9): the
         * refused one is a different job at a used position and never runs here; {@code held} is
         * the successor of the request this sled holds, committed or ran there.
         */
        record Conflict(SignedJob refused, JobId held) implements Outcome {
        }

        /** The active session's chain is full: the request is not remembered, and never runs here. */
        record ChainFull(SignedJob job) implements Outcome {
        }

        /** A job of the active session that fails its checks: it takes no chain position. */
        record InvalidJob(SignedJob job, InvalidJobReason reason)
                implements Outcome {
        }
    }

    /** A sled's fold in a rack of the {@code causal} ordering. */
    public SledProjection(Sled me, Signatures trust) {
        this(me, trust, Ordering.CAUSAL);
    }

    /** A sled's fold in a rack of {@code ordering}. */
    public SledProjection(Sled me, Signatures trust, Ordering ordering) {
        this(me, trust, ordering, FoldBounds.DEFAULTS);
    }

    /** A sled's fold in a rack of {@code ordering}, its memories bounded by {@code bounds}. */
    public SledProjection(Sled me, Signatures trust, Ordering ordering, FoldBounds bounds) {
        this.fold = new MessageFold(me, trust, Objects.requireNonNull(ordering, "ordering"),
                Objects.requireNonNull(bounds, "bounds"));
    }

    private SledProjection(SledProjection o) {
        this.fold = new MessageFold(o.fold);
        this.frontier = o.frontier;
        this.malformed = o.malformed;
        this.faults = o.faults;
        this.applied = o.applied;
    }

    /**
     * An independent projection in the same state: folding into one never changes the other. It
     * is what folding the same messages into a new projection would give, without the replay;
     * the chain check forks its states with it, and an engineer can try a what-if on a replayed
     * sled. The copy checks signatures with the same
     * {@link Signatures} (shared, as the original was given it).
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
        fold.walk.resume(at);
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
            return fold.fold(version, m);
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
        ChainProjection chain = fold.walk.chain();
        Map<String, Long> out = new TreeMap<>();
        out.put("job-sessions", fold.jobSessions.evicted());
        out.put("grants", fold.sessions.evictedGrants());
        out.put("sessions", fold.sessions.causal.evicted());
        out.put("session-endings", fold.ended.evicted());
        out.put("session-stops", fold.sessions.signed.evictedStops());
        out.put("early-messages", fold.early.dropped());
        out.put("chain", chain == null ? 0 : chain.overflow());
        return out;
    }

    /** The sum of {@link #evictions()}, cheap enough to ask after every message. */
    public long evictionsTotal() {
        ChainProjection chain = fold.walk.chain();
        return fold.jobSessions.evicted() + fold.sessions.evictedGrants() + fold.sessions.causal.evicted()
                + fold.ended.evicted() + fold.sessions.signed.evictedStops()
                + fold.early.dropped() + (chain == null ? 0 : chain.overflow());
    }

    /** Messages that raised an unexpected error inside a fold (a bug, always zero in tests). */
    public long faults() {
        return faults;
    }

    /** The active session of either ordering. */
    /** The sessions remembered as ended here (superseded, stopped or annihilated), oldest first. */
    public List<SessionId> endedSessions() {
        return fold.ended.ids();
    }

    public Optional<SessionProjection.Session> activeSession() {
        return fold.sessions.active();
    }

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
        Message.SessionAccess a = fold.accesses.get(id, key);
        return a != null && a.by().equals(starter.get()) ? a.access() : Message.Access.READ;
    }

    /** A session this fold knows (started, or granted), of either ordering. */
    public Optional<SessionProjection.Session> session(SessionId id) {
        return fold.sessions.session(id);
    }

    /** Signed ordering: the active session's grant (its place in the order), if any. */
    public Optional<SignedGrant> activeGrant() {
        return fold.sessions.activeGrant();
    }

    /** Signed ordering: the newest grant this fold holds, stopped or not. */
    public Optional<SignedGrant> newestGrant() {
        return fold.sessions.newestGrant();
    }

    /** Signed ordering: the grant of session {@code id}, if this fold folded it. */
    public Optional<SignedGrant> grant(SessionId id) {
        return fold.sessions.grant(id);
    }

    public Ordering ordering() {
        return fold.sessions.ordering;
    }

    /** Session messages of the other ordering, ignored. */
    public long otherOrdering() {
        return fold.otherOrdering();
    }

    /** Grants that failed the trust check, ignored. */
    public long invalidGrants() {
        return fold.sessions.invalidGrants();
    }

    /**
     * This sled passed {@code job}, the job at its head, as {@code how} says (started it, or
     * decided it never will): the head moves on. Refused if the head has moved since the job was
     * offered.
     */
    public List<Outcome> passHead(JobId job, ChainProjection.Passed how) {
        return fold.walk.passHead(job, how);
    }

    /**
     * The rack forgot the active session's positions from the head {@code from} up to {@code to}
     * (the settlement says so: {@link Settlement#pastEverywhere}, {@link Settlement#nextLive}):
     * the head jumps there, as if it had walked them ({@link ChainProjection#jump}). Nothing if
     * the head moved or something is known at it.
     */
    public List<Outcome> jumpHead(JobId from, JobId to) {
        return fold.walk.jumpHead(from, to);
    }

    /**
     * The sequential/concurrent rule: a job flagged concurrent starts as soon as it is at the
     * head; any other waits until the previous job this sled ran has ended on this sled.
     */
    public boolean mayStart(SignedJob job) {
        return fold.walk.mayStart(job, fold.statuses, fold.me().baseboard());
    }

    /**
     * Own job starts from before this entry (not above {@code birth}) with no terminal status
     * from this sled: they were running when an earlier life ended.
     */
    public List<JobId> zombies(Version birth) {
        return fold.ownStarts.zombies(birth, fold.statuses, fold.me().baseboard());
    }

    public Version frontier() {
        return frontier;
    }

    public Map<String, Announced> announcements() {
        return Collections.unmodifiableMap(fold.announcements);
    }

    public SessionProjection sessions() {
        return fold.sessions.causal;
    }

    public StatusProjection statuses() {
        return fold.statuses;
    }

    public Optional<ChainProjection> chain() {
        return Optional.ofNullable(fold.walk.chain());
    }

    public long malformed() {
        return malformed;
    }

    public long unknown() {
        return fold.unknown();
    }

    /**
     * The session of {@code job}: its pin's, else its request's as remembered, else its
     * request's in the active session's chain.
     */
    public Optional<SessionId> sessionOf(JobId job) {
        Pin p = fold.jobSessions.pin(job);
        if (p != null) {
            return Optional.of(p.session());
        }
        SessionId s = fold.jobSessions.get(job);
        if (s != null) {
            return Optional.of(s);
        }
        // The active session's chain holds its requests even when the bounded map forgot them.
        ChainProjection chain = fold.walk.chain();
        return chain == null ? Optional.empty() : chain.known(job).map(j -> j.request().session());
    }

    /**
     * Forgets what this fold keeps of jobs the rack settled (their statuses, conflicts and
     * remembered sessions) as their messages leave the gossip set (D-054): what an operator asks
     * of them is answered from the journal. A settled job ended on every sled it targets, so no
     * pin holds it, and a sequential job after it no longer waits on its status; the active
     * session's chain keeps its own memory, bounded by the session.
     */
    public void forgetSettled(Collection<JobId> jobs) {
        for (JobId job : jobs) {
            fold.walk.settled(job);
            fold.statuses.forget(job);
            fold.jobSessions.forget(job);
        }
    }

    /**
     * The rack settled these positions (jobs' and burns', in chain order): the active session's
     * chain forgets those behind its head (D-058), so that it follows the session's live work.
     */
    public void forgetSettledPositions(Collection<JobId> positions) {
        fold.walk.settledPositions(positions);
    }

    /** Who may stop a job this sled committed and has not seen end: its session and that session's starter. */
    public record Pin(SessionId session, String starter) {
    }

    /**
     * Ordered-sessions.md section 9: while {@code job} is committed here and has not ended, its
     * session and starter are kept whatever the bounded memories forget (and carried into a new
     * universe by the sled), so its starter can always stop it. The sled unpins it at its end.
     */
    public void pin(JobId job, Pin pin) {
        fold.jobSessions.pin(job, pin);
    }

    public void unpin(JobId job) {
        fold.jobSessions.unpin(job);
    }

    /** The pinned jobs (committed here, not ended). */
    public Map<JobId, Pin> pins() {
        return fold.jobSessions.pins();
    }

    /**
     * Whether a stop of a job comes from its session's starter (security.md section 2): only the
     * starter stops jobs, as only the starter stops or skips in the session. A stop of a job whose
     * request this sled has not folded is not honoured.
     */
    public boolean mayStop(Message.JobStop stop) {
        return fold.starterOf(stop.job()).map(stop.by()::equals).orElse(false);
    }

    /**
     * The state that decides what this sled does next with its chain: the chain's whole state,
     * the job last offered and the last one run. Equal keys, equal futures for the same inputs;
     * the chain check (locker's {@code ChainCheck}) merges states by it.
     */
    public String chainKey() {
        return fold.walk.key();
    }

    /**
     * A canonical summary of the whole state, equal for equal states: what replay and the
     * determinism tests compare.
     */
    public String digest() {
        ChainProjection chain = fold.walk.chain();
        StringBuilder b = new StringBuilder();
        b.append("frontier=").append(frontier).append(";applied=").append(applied).append(";malformed=").append(malformed)
                .append(";faults=").append(faults)
                .append(";unknown=").append(fold.unknown()).append(";ordering=").append(ordering())
                .append(";grants=").append(fold.sessions.grants()).append(";otherOrdering=").append(fold.otherOrdering())
                .append(";invalidGrants=").append(fold.sessions.invalidGrants()).append(";active=")
                .append(activeSession().map(s -> s.id().codephrase()).orElse("-")).append(";head=")
                .append(chain == null ? "-" : chain.head().codephrase()).append(";jobs=").append(fold.statuses.size())
                .append(";announced=").append(fold.announcements.keySet()).append(";starts=").append(fold.ownStarts.size())
                .append(";early=").append(fold.early.count()).append(";ended=").append(fold.ended.size())
                .append(";accesses=").append(fold.accesses.size());
        return b.toString();
    }
}
