package sush.locker.admission;

import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import sush.projections.fold.ChainProjection;
import sush.projections.fold.FoldBounds;
import sush.projections.fold.JobStatus;
import sush.projections.fold.SledProjection;
import sush.projections.fold.StatusProjection;
import sush.projections.fold.Waves;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.targets.Sled;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * What a sled does with the job at its chain head and with a starter's stop (at-most-once.md
 * sections 2 and 6, ordered-sessions.md section 9): the one copy of these rules, called by the
 * sled runtime and by the chain check. Pure: it reads the fold it is given and its own memory of
 * this life's commits, launches and kept stops, and answers; the caller acts (screens, commits,
 * reports, passes the head, kills).
 *
 * <p>A stop is kept until it is honoured: a stop of a running job kills it; of a job committed
 * and not launched yet, it is kept and applied at the launch (the job is not spawned and ends
 * {@code Cancelled}); of a job this sled provably never started (at or ahead of the head, where
 * admission would run it), the job is cancelled at once; of any other job of the active session
 * (its place not known yet), it is kept until the job reaches the head (then cancelled if
 * admission would run it, else refused as admission says) or is found behind it (reported as
 * having run or maybe run); of a request not folded yet, it is kept until the request arrives.
 * {@code Cancelled} is said only where the sled knows it never started the job in any life.
 */
public final class HeadRules {
    /** What to do with a targeted job that stands at the head. */
    public enum AtHead {
        /** Stopped before it started: passed as never run, later jobs still run. */
        CANCELLED,
        /** This sled has its own status for it or committed it in this life: it ran or may have run. */
        ALREADY_HANDLED,
        /**
         * Sequential: it waits until the job this sled ran before it has ended here; or in waves
         * (D-059): it waits until the sleds of the earlier waves are done with it.
         */
        WAIT,
        /** D-059: the starter skipped this sled's part before it started: passed as never run, Skipped{Operator}. */
        OPERATOR_SKIPPED,
        /** D-059: more sleds of the earlier waves failed than the job's budget: passed as never run, Skipped{BudgetSpent}. */
        BUDGET_SPENT,
        /** Screen it: admission decides whether it runs (see {@link #admitted}). */
        SCREEN
    }

    /** What a starter's stop means on this sled now. */
    public enum OnStop {
        /** Nothing to do here (not the starter's, not this sled's job, or it ended). */
        NONE,
        /** It runs here: kill it. */
        KILL,
        /** Committed and not launched yet: kept, and applied at the launch. */
        KEPT_FOR_LAUNCH,
        /** It never started here: report it cancelled (and pass it if it stands at the head). */
        CANCEL,
        /** It stands behind the head: it ran or may have run here; report it as such if not yet. */
        BEHIND_HEAD,
        /** Kept until its request arrives or its place in the chain is known. */
        KEPT
    }

    /** What an admitted job at the head does. */
    public enum Admitted {
        /** Commit and launch it. */
        RUN,
        /** Its starter stopped it before it started: passed as never run, reported cancelled. */
        CANCEL
    }

    private final Sled me;
    private final String baseboard;
    private final int maxStops;
    // This life.
    private final Set<JobId> committed = new HashSet<>();
    private final Set<JobId> launched = new HashSet<>();
    private final Set<JobId> running = new HashSet<>();
    /** Stops of jobs committed and not launched yet: applied at the launch. */
    private final Set<JobId> atLaunch = new HashSet<>();
    /** Jobs whose commit failed: they never launch (a failed write means no launch). */
    private final Set<JobId> failedCommits = new HashSet<>();
    // This entry.
    private SledProjection fold;
    private final Set<JobId> cancelled = new HashSet<>();
    private final Set<JobId> passed = new HashSet<>();
    private Optional<SignedJob> waiting = Optional.empty();
    /**
     * Stops of requests this entry has not folded yet, oldest first. Who sent one cannot be
     * checked before its request arrives, so a flood of them is possible: they are bounded, and
     * past the bound the oldest is forgotten and counted (the sled reports it). Through the API a
     * stop follows its request, so this memory only holds stops that outran their requests.
     */
    private final LinkedHashMap<JobId, Message.JobStop> unmatched = new LinkedHashMap<>();
    /**
     * Stops of targeted jobs of the active session whose place (ahead of the head or behind it) is
     * not known yet: each is a job the chain holds, so the chain's bound bounds them; never evicted.
     */
    private final LinkedHashSet<JobId> stopped = new LinkedHashSet<>();
    /** Kept stops the bound made this entry forget (the sled reports them). */
    private long evictedStops;

    public HeadRules(Sled me) {
        this(me, FoldBounds.DEFAULTS);
    }

    /** The rules of sled {@code me}, keeping at most {@code bounds.jobStops()} stops of each kind. */
    public HeadRules(Sled me, FoldBounds bounds) {
        this.me = me;
        this.baseboard = me.baseboard();
        this.maxStops = bounds.jobStops();
    }

    /** A fork with the same memory, following {@code fold} (the chain check forks its states). */
    public HeadRules copy(SledProjection fold) {
        HeadRules c = new HeadRules(me, new FoldBounds(1, 1, 1, 1, 1, 1, maxStops));
        c.committed.addAll(committed);
        c.launched.addAll(launched);
        c.running.addAll(running);
        c.atLaunch.addAll(atLaunch);
        c.failedCommits.addAll(failedCommits);
        c.fold = fold;
        c.cancelled.addAll(cancelled);
        c.passed.addAll(passed);
        c.waiting = waiting;
        c.unmatched.putAll(unmatched);
        c.stopped.addAll(stopped);
        c.evictedStops = evictedStops;
        return c;
    }

    /** A new entry folds into {@code fold}: what this entry decided is forgotten; this life's commits, launches and stops kept for a launch are not. */
    public void enter(SledProjection fold) {
        this.fold = fold;
        cancelled.clear();
        passed.clear();
        waiting = Optional.empty();
        unmatched.clear();
        stopped.clear();
        evictedStops = 0;
    }

    /**
     * The rack settled {@code jobs} (issue 39, D-054): each ended on every sled it targets, this
     * one included, and every sled's head passed it, so none of them stands at this sled's head
     * or ahead of it again. What this life and entry remember of them goes, unless one still runs
     * here: these sets grew by a job per job for the whole life (the soak's heap), and at most
     * once never rested on them (the boundary record does; they are defence in depth for live
     * jobs).
     */
    public void forgetSettled(Collection<JobId> jobs) {
        for (JobId job : jobs) {
            if (running.contains(job) || atLaunch.contains(job)) {
                continue;
            }
            committed.remove(job);
            launched.remove(job);
            failedCommits.remove(job);
            cancelled.remove(job);
            passed.remove(job);
        }
    }

    // ---- What the caller did ---------------------------------------------------------------

    /** The sled reserved a boundary record for {@code job}: it may run from now on. */
    public void committed(JobId job) {
        // The at-most-once invariant in this life (issue 37): a job is committed once. A second
        // commit is a bug upstream; it is refused here, and the sled's loop fails closed.
        if (!committed.add(job)) {
            throw new IllegalStateException("job " + job + " was committed twice in this life: the at-most-once "
                    + "invariant is broken");
        }
    }

    /**
     * The commit of {@code job} landed: whether it is launched now. False when its starter's stop
     * was kept for the launch: the job is not spawned, it ends {@code Cancelled} and that ending
     * is recorded over the commit.
     */
    public boolean launch(JobId job) {
        if (atLaunch.remove(job)) {
            return false;
        }
        if (!launched.add(job)) {
            throw new IllegalStateException("job " + job + " was launched twice in this life: the at-most-once "
                    + "invariant is broken");
        }
        running.add(job);
        return true;
    }

    /** The commit of {@code job} failed: it never launches, and a stop kept for it has nothing left to do. */
    public void commitFailed(JobId job) {
        atLaunch.remove(job);
        failedCommits.add(job);
    }

    /** {@code job}, launched in this life, ended. */
    public void ended(JobId job) {
        running.remove(job);
    }

    /** The head left {@code job} (run, refused or cancelled): it is never judged as a job behind the head. */
    public void passed(JobId job) {
        passed.add(job);
        stopped.remove(job);
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
        if (operatorSkipped(job)) {
            return AtHead.OPERATOR_SKIPPED;
        }
        // A stopped job does not wait for the job before it: it is screened, and never runs.
        if (!stopped.contains(id) && !fold.mayStart(job)) {
            waiting = Optional.of(job);
            return AtHead.WAIT;
        }
        Waves.Gate gate = Waves.gate(job, me.cubby(), fold);
        if (gate instanceof Waves.Gate.Spent) {
            return AtHead.BUDGET_SPENT;
        }
        // D-059: a later wave waits here, at the head, as a sequential job does: passing it would be
        // final (what is behind the head ran or may have run, at-most-once.md section 6), so a job
        // this sled has not started is never passed to let later jobs go first.
        if (!stopped.contains(id) && gate instanceof Waves.Gate.Await) {
            waiting = Optional.of(job);
            return AtHead.WAIT;
        }
        return AtHead.SCREEN;
    }

    /** Whether the starter skipped this sled's part of {@code job} (D-059). */
    private boolean operatorSkipped(SignedJob job) {
        return fold.statuses().skippedSleds(job.request().job()).contains(me.cubby());
    }

    /** Whether {@code job}, waiting at the head, still waits: for the job before it, or for earlier waves. */
    private boolean stillWaits(SignedJob job) {
        if (stopped.contains(job.request().job()) || operatorSkipped(job)) {
            return false;
        }
        return !fold.mayStart(job) || Waves.gate(job, me.cubby(), fold) instanceof Waves.Gate.Await;
    }

    /**
     * Admission admitted {@code job} at the head: it runs, unless its starter's stop is kept for
     * it (it stands at the head, after everything this sled started: it provably never started).
     */
    public Admitted admitted(JobId job) {
        if (stopped.remove(job)) {
            cancelled.add(job);
            return Admitted.CANCEL;
        }
        return Admitted.RUN;
    }

    /**
     * The waiting job, if it may now start: offered at the head again. A burn that moved the head
     * off it drops it: a job is screened only while it stands at the head.
     */
    public Optional<SignedJob> retry() {
        if (waiting.isPresent() && !atHead(waiting.get().request().job())) {
            waiting = Optional.empty();
        }
        if (waiting.isPresent() && !stillWaits(waiting.get())) {
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
    public void unwaitSession(SessionId session) {
        waiting = waiting.filter(w -> !w.request().session().equals(session));
    }

    /**
     * A starter's stop (section 2, ordered-sessions.md section 9). {@code admits} says whether
     * admission would run a job at the head now: only then is a job at or ahead of the head
     * provably never started here (the head walks forward from where the record resumed it).
     */
    public OnStop onStop(Message.JobStop stop, Predicate<SignedJob> admits) {
        JobId id = stop.job();
        if (running.contains(id) && fold.mayStop(stop)) {
            return OnStop.KILL;
        }
        if (committed.contains(id) && fold.mayStop(stop)) {
            if (launched.contains(id) || failedCommits.contains(id)) {
                return OnStop.NONE; // it ran here in this life and ended, or never will: its ending stands
            }
            atLaunch.add(id);
            return OnStop.KEPT_FOR_LAUNCH;
        }
        if (fold.sessionOf(id).isEmpty()) {
            // Its request has not arrived (a stop may travel ahead of it): kept until it does.
            keep(unmatched, id, stop);
            return OnStop.KEPT;
        }
        if (!fold.mayStop(stop)) {
            return OnStop.NONE;
        }
        Optional<ChainProjection> chain = fold.chain();
        Optional<SignedJob> job = chain.flatMap(c -> c.known(id));
        if (job.isEmpty() || !targetsMe(job.get()) || ownStatus(id).isPresent()) {
            return OnStop.NONE;
        }
        if (chain.get().precedesHead(id)) {
            return OnStop.BEHIND_HEAD;
        }
        if (chain.get().aheadOfHead(id) && admits.test(job.get())) {
            cancelled.add(id);
            stopped.remove(id);
            unwait(id);
            return OnStop.CANCEL;
        }
        stopped.add(id);
        return OnStop.KEPT;
    }

    /** A request arrived: the stop kept for it, if one arrived first (the caller applies it with {@link #onStop}). */
    public Optional<Message.JobStop> stopFor(JobId job) {
        return Optional.ofNullable(unmatched.remove(job));
    }

    /** Whether a stop of {@code job} is kept, for its launch or its place in the chain. */
    public boolean stopKept(JobId job) {
        return atLaunch.contains(job) || stopped.contains(job) || unmatched.containsKey(job);
    }

    private void keep(LinkedHashMap<JobId, Message.JobStop> into, JobId id, Message.JobStop stop) {
        if (!into.containsKey(id) && into.size() >= maxStops) {
            into.remove(into.keySet().iterator().next());
            evictedStops++;
        }
        into.putIfAbsent(id, stop);
    }

    /** Stops this entry kept and the bound made it forget (bounded memories are reported, never silent). */
    public long evictedStops() {
        return evictedStops;
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

    /**
     * This sled's own status of {@code job}, queued aside, and a conflict aside: a conflict is
     * about another request at the position, never a sign that this one ran.
     */
    public Optional<StatusProjection.Entry> ownStatus(JobId job) {
        return fold.statuses().status(job, baseboard)
                .filter(e -> e.status() != JobStatus.QUEUED && !(e.message() instanceof Message.JobConflict));
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
        return sorted(committed) + "|" + sorted(launched) + "|" + sorted(running) + "|" + sorted(atLaunch) + "|"
                + sorted(failedCommits) + "|"
                + sorted(cancelled) + "|" + sorted(passed) + "|" + waiting.map(w -> w.request().job().toString())
                        .orElse("-") + "|" + sorted(unmatched.keySet()) + "|" + sorted(stopped);
    }

    private static List<String> sorted(Set<JobId> ids) {
        return ids.stream().map(JobId::toString).sorted().toList();
    }
}
