package sush.pipeline.sled;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import sush.locker.admission.HeadRules;
import sush.locker.record.Outcome;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.pipeline.exec.Ending;
import sush.pipeline.exec.LaunchRequest;
import sush.pipeline.exec.Launcher;
import sush.pipeline.journal.JournalRecord;
import sush.projections.fold.ChainProjection;
import sush.projections.fold.JobStatus;
import sush.projections.fold.SessionProjection;
import sush.projections.fold.SledProjection;
import sush.projections.id.JobId;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * This life's commits and launches (at-most-once.md section 3): a job admitted at the head is
 * committed (its boundary record reserved and handed to the writer), launched once the record
 * is on every slot and never otherwise, and its ending recorded over its commit and told. Holds
 * what a life keeps of its jobs: the running ones, the pinned ones (committed and not ended),
 * and the endings told again after a migration. A second commit or launch of a job in one life
 * is refused by the head rules and fails the sled closed.
 */
final class Launches {
    /** A job committed in this life and not ended: its request and who may stop it (ordered-sessions.md section 9). */
    record Pinned(SignedJob request, SledProjection.Pin pin, Optional<SignedGrant> grant) {
    }

    private final SledConfig cfg;
    private final Loop loop;
    private final HeadRules head;
    private final OrderingRules order;
    private final Supplier<EntryState> entry;
    private final Locker<?> locker;
    private final Launcher launcher;
    private final BoundaryWriter writer;
    private final String me;
    private final Map<JobId, Launcher.Running> running = new HashMap<>();
    /** Wall and monotonic clock at each running job's launch, when the sled keeps times. */
    private final Map<JobId, long[]> startTimes = new HashMap<>();
    /** Jobs committed in this life and not ended: pinned in every entry's fold, re-gossiped into a new universe. */
    private final Map<JobId, Pinned> pinned = new LinkedHashMap<>();
    /**
     * The endings of jobs this life launched, the most recent {@link SledRuntime#MAX_ENDINGS_KEPT}:
     * told again in a universe the sled migrates into, where its own statuses are not.
     */
    private final Map<JobId, Message> endingsThisLife = new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<JobId, Message> eldest) {
            return size() > SledRuntime.MAX_ENDINGS_KEPT;
        }
    };
    /** Written on the loop only; volatile so that metrics read it from their own thread. */
    private volatile int pendingLaunches;
    private final Receipts receipts;
    /** Set by a graceful stop: jobs killed now were killed by the shutdown, not an operator. */
    private boolean shuttingDown;

    /**
     * @param entry the entry folding now (read when a commit or an ending acts on the fold)
     */
    Launches(SledConfig cfg, Loop loop, HeadRules head, OrderingRules order, Supplier<EntryState> entry,
            Locker<?> locker, Launcher launcher, BoundaryWriter writer, Receipts receipts) {
        this.receipts = receipts;
        this.cfg = cfg;
        this.loop = loop;
        this.head = head;
        this.order = order;
        this.entry = entry;
        this.locker = locker;
        this.launcher = launcher;
        this.writer = writer;
        this.me = cfg.me().baseboard();
    }

    /** Commits reserved and not yet launched or failed, read from any thread (metrics). */
    int pendingLaunches() {
        return pendingLaunches;
    }

    /** The jobs running now (a live, read-only view). */
    Set<JobId> running() {
        return Collections.unmodifiableSet(running.keySet());
    }

    /** The endings of this life's jobs kept to be told again, oldest first (a live, read-only view). */
    Map<JobId, Message> endingsThisLife() {
        return Collections.unmodifiableMap(endingsThisLife);
    }

    /** This life's commits that have not ended, in commit order (a live, read-only view). */
    Map<JobId, Pinned> pinned() {
        return Collections.unmodifiableMap(pinned);
    }

    /** Its starter's stop of running job {@code id}: it is killed. */
    void kill(JobId id) {
        running.get(id).stop();
    }

    /** Graceful shutdown: every running job is stopped (their endings are still reported). */
    void stopAll() {
        shuttingDown = true;
        List.copyOf(running.values()).forEach(Launcher.Running::stop);
    }

    /**
     * Commits {@code job}, admitted at the head of {@code session}, and returns how the head
     * passes it: {@code RAN} once its record is reserved and handed to the writer (it launches
     * when the record is stored), {@code MAY_HAVE_RUN} when it is refused before anything is
     * committed (the launch queue or the disk is full, or the record cannot be reserved).
     */
    ChainProjection.Passed commit(SignedJob job, SessionProjection.Session session) {
        JobId id = job.request().job();
        if (head.committedThisLife(id)) {
            // The at-most-once invariant (issue 37): admission never commits a job twice in a
            // life. Should it, the loop fails closed before a second record is even reserved.
            throw new IllegalStateException("job " + id + " reached its commit a second time in this life: the "
                    + "at-most-once invariant is broken");
        }
        if (pendingLaunches >= SledRuntime.MAX_PENDING_LAUNCHES) {
            loop.send(new Message.JobErrored(me, id, Message.JobError.IO, "launch queue full ("
                    + SledRuntime.MAX_PENDING_LAUNCHES + " commits in flight)", 0));
            return ChainProjection.Passed.MAY_HAVE_RUN;
        }
        Optional<String> shortOfSpace = cfg.disk().shortage();
        if (shortOfSpace.isPresent()) {
            // A full output disk is a state, not a fault (issue 35): the job is refused with the
            // reason, before anything is committed, and the sled serves again once space returns.
            loop.send(new Message.JobErrored(me, id, Message.JobError.NO_SPACE, shortOfSpace.get(), 0));
            return ChainProjection.Passed.MAY_HAVE_RUN;
        }
        EntryState at = entry.get();
        Locker.Ticket<?> t;
        try {
            t = order.reserveCommit(at, job, session);
        } catch (LockerException | RuntimeException e) {
            loop.send(new Message.JobErrored(me, id, Message.JobError.IO, "recording the execution boundary: "
                    + e.getMessage(), 0));
            return ChainProjection.Passed.MAY_HAVE_RUN;
        }
        at.committed();
        head.committed(id);
        // Who may stop it, kept whatever the fold's bounded memories forget, and into a new universe.
        SledProjection.Pin pin = new SledProjection.Pin(session.id(), session.starter());
        pinned.put(id, new Pinned(job, pin, at.fold().grant(session.id())));
        at.fold().pin(id, pin);
        loop.emit(new SledEvent.Reserved(id));
        pendingLaunches++;
        loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.COMMIT, id.codephrase(), "reserved"));
        // Records reach the writer in the order they were reserved: this store is submitted
        // before passing the head can reserve the next job's (a concurrent one commits at once).
        long seq = t.seq();
        String life = t.life();
        writer.store(t).publishOn(loop.scheduler()).subscribe(micros -> loop.guarded("commit result", () -> {
            loop.emit(new SledEvent.Committed(id, seq, micros));
            launch(job);
            receipts.committed(job, life, seq); // after the launch: signing is not on its path
        }), err -> loop.guarded("commit result", () -> commitFailed(id, err)));
        // The newest record names this job now: the head is past it, as resumption would put it.
        return ChainProjection.Passed.RAN;
    }

    private void commitFailed(JobId job, Throwable err) {
        pendingLaunches--;
        head.commitFailed(job);
        unpin(job);
        String why = "recording the execution boundary failed: " + err.getMessage();
        loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ERROR, job.codephrase(), why));
        loop.emit(new SledEvent.Failed(why));
        // The job does not start: a failed write means no launch.
        Message report = new Message.JobErrored(me, job, Message.JobError.IO, why, 0);
        endingsThisLife.put(job, report);
        loop.send(report);
    }

    private void launch(SignedJob job) {
        pendingLaunches--;
        JobId id = job.request().job();
        if (!head.launch(id)) {
            cancelledAtLaunch(id);
            return;
        }
        Launcher.Running r = launcher.launch(new LaunchRequest(job.request().session(), id, job.request().command(),
                job.request().target(), cfg.limits().forJob(job.request().limits()), job.request().mode()));
        running.put(id, r);
        loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.LAUNCH, id.codephrase(), ""));
        loop.emit(new SledEvent.Launched(id));
        Long startedAt = null;
        if (cfg.clock().isPresent()) {
            SledClock c = cfg.clock().get();
            startedAt = c.wallMillis();
            startTimes.put(id, new long[] {startedAt, c.monotonicNanos()});
        }
        loop.send(new Message.JobStarted(me, id, startedAt));
        r.ending().publishOn(loop.scheduler()).subscribe(e -> loop.guarded("ending", () -> onEnded(id, e)),
                err -> loop.guarded("ending", () -> loop.failClosed("ending", err)));
    }

    /**
     * Its starter's stop was kept while the commit was on its way to the slots: the job is not
     * spawned; it ends {@code Cancelled}, and that ending is recorded over the commit (a restart
     * then reads {@code Ended(Cancelled)}, not a job that may have run).
     */
    private void cancelledAtLaunch(JobId id) {
        loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ENDING, id.codephrase(),
                "cancelled before its launch: its starter's stop arrived while its commit was stored"));
        Message report = new Message.JobCancelled(me, id);
        endingsThisLife.put(id, report);
        recordOutcome(id, Outcome.ended(JobStatus.CANCELLED, 0, ""));
        unpin(id);
        loop.send(report);
    }

    private void unpin(JobId job) {
        pinned.remove(job);
        EntryState at = entry.get();
        if (at != null && at.folding()) {
            at.fold().unpin(job);
        }
    }

    private void onEnded(JobId job, Ending e) {
        running.remove(job);
        head.ended(job);
        Message report = Endings.message(me, job, e, shuttingDown);
        long[] started = startTimes.remove(job);
        if (started != null) {
            SledClock c = cfg.clock().orElseThrow();
            report = Endings.timed(report, started[0], c.wallMillis(), (c.monotonicNanos() - started[1]) / 1_000_000);
        }
        endingsThisLife.put(job, report);
        loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ENDING, job.codephrase(), e.toString()));
        loop.emit(new SledEvent.Ended(job, e));
        recordOutcome(job, Endings.outcome(e));
        unpin(job);
        loop.send(report);
    }

    /** Writes {@code job}'s ending over its commit when the newest record still names it and the ending ranks higher. */
    private void recordOutcome(JobId job, Outcome o) {
        if (locker.trusted() && order.endedRecordChanges(job, o)) {
            try {
                Locker.Ticket<?> t = order.reserveEnding(job, o);
                writer.store(t).publishOn(loop.scheduler()).subscribe(null, err -> loop.guarded("outcome result",
                        () -> loop.emit(new SledEvent.Failed("outcome write for " + job + ": " + err.getMessage()))));
            } catch (LockerException | RuntimeException ex) {
                loop.emit(new SledEvent.Failed("outcome write for " + job + ": " + ex.getMessage()));
            }
        }
    }
}
