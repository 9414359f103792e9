package sush.locker.admission;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import sush.projections.fold.ChainProjection;
import sush.projections.fold.JobStatus;
import sush.projections.fold.SledProjection;
import sush.projections.fold.StatusProjection;
import sush.projections.id.JobId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.targets.Sled;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * What a sled does with the job at its chain head and with a starter's stop (at-most-once.md
 * sections 2 and 6): the one copy of these rules, called by the sled runtime and by the chain
 * check. Pure: it reads the fold it is given and its own memory of this life's commits and
 * launches, and answers; the caller acts (screens, commits, reports, passes the head).
 */
public final class HeadRules {
    /** What to do with a targeted job that stands at the head. */
    public enum AtHead {
        /** Stopped before it started: passed as never run, later jobs still run. */
        CANCELLED,
        /** This sled has its own status for it or committed it in this life: it ran or may have run. */
        ALREADY_HANDLED,
        /** Sequential: it waits until the job this sled ran before it has ended here. */
        WAIT,
        /** Screen it: admission decides whether it runs. */
        SCREEN
    }

    /** What a starter's stop means on this sled. */
    public enum OnStop {
        /** Nothing to do here. */
        NONE,
        /** It runs here: kill it. */
        KILL,
        /** It never started here: report it cancelled (and pass it if it stands at the head). */
        CANCEL
    }

    private final Sled me;
    private final String baseboard;
    // This life.
    private final Set<JobId> committed = new HashSet<>();
    private final Set<JobId> launched = new HashSet<>();
    private final Set<JobId> running = new HashSet<>();
    // This entry.
    private SledProjection fold;
    private final Set<JobId> cancelled = new HashSet<>();
    private final Set<JobId> passed = new HashSet<>();
    private Optional<SignedJob> waiting = Optional.empty();

    public HeadRules(Sled me) {
        this.me = me;
        this.baseboard = me.baseboard();
    }

    /** A fork with the same memory, following {@code fold} (the chain check forks its states). */
    public HeadRules copy(SledProjection fold) {
        HeadRules c = new HeadRules(me);
        c.committed.addAll(committed);
        c.launched.addAll(launched);
        c.running.addAll(running);
        c.fold = fold;
        c.cancelled.addAll(cancelled);
        c.passed.addAll(passed);
        c.waiting = waiting;
        return c;
    }

    /** A new entry folds into {@code fold}: what this entry decided is forgotten, this life's commits are not. */
    public void enter(SledProjection fold) {
        this.fold = fold;
        cancelled.clear();
        passed.clear();
        waiting = Optional.empty();
    }

    // ---- What the caller did ---------------------------------------------------------------

    /** The sled reserved a boundary record for {@code job}: it may run from now on. */
    public void committed(JobId job) {
        committed.add(job);
    }

    /** The sled launched {@code job}. */
    public void launched(JobId job) {
        launched.add(job);
        running.add(job);
    }

    /** {@code job}, launched in this life, ended. */
    public void ended(JobId job) {
        running.remove(job);
    }

    /** The head left {@code job} (run, refused or cancelled): it is never judged as a job behind the head. */
    public void passed(JobId job) {
        passed.add(job);
    }

    // ---- Decisions --------------------------------------------------------------------------

    /** The targeted job {@code job} stands at the head (section 2, defence in depth, section 6). */
    public AtHead atHead(SignedJob job) {
        JobId id = job.request().job();
        Optional<JobStatus> own = ownStatus(id).map(StatusProjection.Entry::status);
        if (cancelled.contains(id) || own.filter(s -> s == JobStatus.CANCELLED).isPresent()) {
            return AtHead.CANCELLED;
        }
        if (own.isPresent() || committed.contains(id) || launched.contains(id)) {
            return AtHead.ALREADY_HANDLED;
        }
        if (!fold.mayStart(job)) {
            waiting = Optional.of(job);
            return AtHead.WAIT;
        }
        return AtHead.SCREEN;
    }

    /**
     * The waiting job, if it may now start: offered at the head again. A burn that moved the head
     * off it drops it: a job is screened only while it stands at the head.
     */
    public Optional<SignedJob> retry() {
        if (waiting.isPresent() && !atHead(waiting.get().request().job())) {
            waiting = Optional.empty();
        }
        if (waiting.isPresent() && fold.mayStart(waiting.get())) {
            SignedJob j = waiting.get();
            waiting = Optional.empty();
            return Optional.of(j);
        }
        return Optional.empty();
    }

    /** Drops the waiting job if it is {@code job} (it left the head some other way). */
    public void unwait(JobId job) {
        waiting = waiting.filter(w -> !w.request().job().equals(job));
    }

    /** Drops the waiting job if it belongs to {@code session} (the session ended). */
    public void unwaitSession(sush.projections.id.SessionId session) {
        waiting = waiting.filter(w -> !w.request().session().equals(session));
    }

    /**
     * A starter's stop (section 2): a running job is killed; a targeted job of the active session
     * that this sled has not started (ahead of the head, or waiting at it) is cancelled here.
     */
    public OnStop onStop(Message.JobStop stop) {
        JobId id = stop.job();
        if (!fold.mayStop(stop)) {
            return OnStop.NONE;
        }
        if (running.contains(id)) {
            return OnStop.KILL;
        }
        Optional<ChainProjection> chain = fold.chain();
        Optional<SignedJob> job = chain.flatMap(c -> c.known(id));
        if (job.isEmpty() || !targetsMe(job.get()) || chain.get().precedesHead(id) || ownStatus(id).isPresent()
                || committed.contains(id)) {
            return OnStop.NONE;
        }
        cancelled.add(id);
        if (chain.get().isHead(id)) {
            unwait(id);
        }
        return OnStop.CANCEL;
    }

    /**
     * Whether a targeted request of the active session that stands behind the head is to be
     * judged (section 6: it ran or may have run here, and is reported instead of hanging queued).
     * This life's own commits report their real statuses, and jobs passed at the head in this
     * entry were judged there.
     */
    public boolean behindHead(SignedJob job) {
        JobId id = job.request().job();
        boolean active = fold.activeSession().map(s -> s.id().equals(job.request().session())).orElse(false);
        return active && fold.chain().isPresent() && fold.chain().get().precedesHead(id) && targetsMe(job)
                && ownStatus(id).isEmpty() && !committed.contains(id) && !passed.contains(id);
    }

    // ---- What the rules read ----------------------------------------------------------------

    /** Whether this life committed {@code job}. */
    public boolean committedThisLife(JobId job) {
        return committed.contains(job);
    }

    /** Whether this life launched {@code job}. */
    public boolean launchedThisLife(JobId job) {
        return launched.contains(job);
    }

    /** Whether {@code job} is the position at the head. */
    public boolean atHead(JobId job) {
        return fold.chain().map(c -> c.isHead(job)).orElse(false);
    }

    /** This sled's own status of {@code job}, queued aside. */
    public Optional<StatusProjection.Entry> ownStatus(JobId job) {
        return fold.statuses().status(job, baseboard).filter(e -> e.status() != JobStatus.QUEUED);
    }

    /** Whether {@code job} targets this sled (an unparsable target targets no one). */
    public boolean targetsMe(SignedJob job) {
        try {
            return Target.parse(job.request().target()).runsOn(me);
        } catch (TargetException e) {
            return false;
        }
    }

    /** Everything that decides this sled's future at the head, canonical: the chain check merges states by it. */
    public String key() {
        return sorted(committed) + "|" + sorted(launched) + "|" + sorted(running) + "|" + sorted(cancelled) + "|"
                + sorted(passed) + "|" + waiting.map(w -> w.request().job().toString()).orElse("-");
    }

    private static java.util.List<String> sorted(Set<JobId> ids) {
        return ids.stream().map(JobId::toString).sorted().toList();
    }
}
