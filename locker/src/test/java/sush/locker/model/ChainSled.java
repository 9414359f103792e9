package sush.locker.model;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import sush.locker.admission.HeadRules;
import sush.projections.fixtures.Signers;
import sush.projections.fold.ChainProjection;
import sush.projections.fold.JobStatus;
import sush.projections.fold.SledProjection;
import sush.projections.fold.StatusProjection;
import sush.projections.id.JobId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * One sled as the chain check sees it: the real {@link SledProjection} of each life and the real
 * {@link HeadRules} (the runtime's: screen at the head, a sequential job waits for the previous
 * one, a stopped job that never started is passed as cancelled, a job with an own status or a
 * commit of this life is never started again). Admission always admits: the chain alone must
 * keep at-most-once for a session the record names (rule 5). The worst case for gossip: this
 * sled's own reports never leave it, so a restart replays only the operator's messages.
 */
final class ChainSled {
    static final int END = 100;
    /** {@code REDELIVER + i}: message i, already delivered, is delivered once more. */
    static final int REDELIVER = 200;
    /**
     * {@code LAUNCH + i}: job i, committed, is launched. The commit and the launch are apart (the
     * boundary write takes its fsyncs between them) only for a job the world stops: that is the
     * window a stop can fall into; every other job launches at its commit.
     */
    static final int LAUNCH = 300;
    static final int CRASH = 999;
    /** The crash whose restart replays the history in reverse send order (also a causal order: all are concurrent). */
    static final int CRASH_REVERSED = 998;
    /**
     * The crash of a whole-rack cold boot: the restart keeps only the boundary record; every
     * message is lost and may arrive again (the client re-sends what it kept).
     */
    static final int CRASH_COLD = 997;
    /**
     * The rack settles the operator's next job of this life (in chain order, as the settlement
     * does: D-058): once this sled holds it, its head passed it and, when it targets this sled,
     * it ended here. The fold, its chain and the head rules forget it as the runtime's settler
     * makes them. Only while {@link ChainCheck#settling} is on.
     */
    static final int SETTLE = 996;

    private final ChainCheck.World world;
    /** How the head rules' answers reach this sled: as they are, or bent on purpose (the check must then fail). */
    private final HeadBreak broken;
    private SledProjection fold;
    private final boolean[] delivered;
    /** The message delivered a second time, or -1. */
    private int redelivered = -1;
    /** Every job this sled started, in any life: the ledger. */
    private final Set<JobId> ledger = new HashSet<>();
    private final Set<JobId> running = new TreeSet<>(java.util.Comparator.comparing(JobId::toString));
    /** Jobs committed in this life and not launched yet (the boundary write in flight). */
    private final Set<JobId> committing = new TreeSet<>(java.util.Comparator.comparing(JobId::toString));
    /** Jobs whose starter's stop this life has delivered: none of them may be launched after it. */
    private final Set<JobId> stopSeen = new TreeSet<>(java.util.Comparator.comparing(JobId::toString));
    /** The runtime's head rules, with their memory of this life. */
    private HeadRules head;
    /** The boundary record's committed job, its successor and whether its ending is recorded. */
    private JobId committed;
    private JobId successor;
    private boolean committedEnded;
    /** The record's outcome for the committed job says it was cancelled before its launch. */
    private boolean committedCancelled;
    boolean crashed;
    /** The operator's jobs settled in this life (a prefix of them); any settling leaves the convergence check. */
    private int settled;
    boolean settledAny;
    String violation;

    /** A sled whose head rules' answers pass through {@code broken} ({@link HeadBreak#NONE}: the product's rules). */
    ChainSled(ChainCheck.World world, HeadBreak broken) {
        this.world = world;
        this.broken = broken;
        this.delivered = new boolean[world.messages().size()];
        newLife();
    }

    /** A fork: the same state, independent from here on. */
    private ChainSled(ChainSled o) {
        this.world = o.world;
        this.broken = o.broken;
        this.fold = o.fold.copy();
        this.head = o.head.copy(this.fold);
        this.delivered = o.delivered.clone();
        this.redelivered = o.redelivered;
        this.ledger.addAll(o.ledger);
        this.running.addAll(o.running);
        this.committing.addAll(o.committing);
        this.stopSeen.addAll(o.stopSeen);
        this.committedCancelled = o.committedCancelled;
        this.committed = o.committed;
        this.successor = o.successor;
        this.committedEnded = o.committedEnded;
        this.crashed = o.crashed;
        this.settled = o.settled;
        this.settledAny = o.settledAny;
        this.violation = o.violation;
    }

    ChainSled copy() {
        return new ChainSled(this);
    }

    private void newLife() {
        // The model's jobs carry no signatures: every one is taken as good (the check is of the chain).
        fold = new SledProjection(ChainCheck.ME, Signers.UNCHECKED);
        if (committed != null) {
            fold.resume(new SledProjection.Resumption(ChainCheck.S, committed, successor));
        }
        head = new HeadRules(ChainCheck.ME);
        head.enter(fold);
        running.clear();
        committing.clear();
        stopSeen.clear();
        settled = 0;
        fold(ChainCheck.START);
    }

    /** What may happen next: a message delivered, a running job ending, the crash. */
    List<Integer> actions(boolean crashAllowed, boolean redeliverAllowed) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < delivered.length; i++) {
            if (!delivered[i]) {
                out.add(i);
            } else if (redeliverAllowed && redelivered < 0) {
                out.add(REDELIVER + i);
            }
        }
        for (JobId j : running) {
            out.add(END + jobIndex(j));
        }
        for (JobId j : committing) {
            out.add(LAUNCH + jobIndex(j));
        }
        if (ChainCheck.settling && settleable()) {
            out.add(SETTLE);
        }
        if (crashAllowed && !crashed) {
            out.add(CRASH);
            out.add(CRASH_REVERSED);
            out.add(CRASH_COLD);
        }
        return out;
    }

    void act(int action) {
        if (violation != null) {
            return;
        }
        try {
            if (action == SETTLE) {
                settle();
            } else if (action == CRASH_COLD) {
                coldBoot();
            } else if (action == CRASH || action == CRASH_REVERSED) {
                crash(action == CRASH_REVERSED);
            } else if (action >= LAUNCH) {
                launch(world.jobs().get(action - LAUNCH).request().job());
            } else if (action >= REDELIVER) {
                redelivered = action - REDELIVER;
                deliver(world.messages().get(redelivered));
            } else if (action >= END) {
                end(world.jobs().get(action - END).request().job(), false);
            } else {
                delivered[action] = true;
                deliver(world.messages().get(action));
            }
            check();
        } catch (RuntimeException e) {
            violation = "the sled failed: " + e;
        }
    }

    String describe(int action) {
        if (action == SETTLE) {
            return "the rack settles job " + settled + " (its messages, statuses and chain position are forgotten)";
        } else if (action == CRASH_COLD) {
            return "whole-rack cold boot: resume after " + (committed == null ? "nothing" : world.position(committed))
                    + ", every message lost (each may arrive again)";
        } else if (action == CRASH || action == CRASH_REVERSED) {
            return "crash and restart: resume after " + (committed == null ? "nothing" : world.position(committed))
                    + ", replay what was delivered" + (action == CRASH ? "" : " in reverse order");
        } else if (action >= LAUNCH) {
            return "job " + (action - LAUNCH) + " is launched (its commit landed)";
        } else if (action >= REDELIVER) {
            return "deliver m" + (action - REDELIVER) + " again (" + world.label(world.messages().get(action - REDELIVER))
                    + ")";
        } else if (action >= END) {
            return "job " + (action - END) + " ends";
        }
        return "deliver m" + action + " (" + world.label(world.messages().get(action)) + ")";
    }

    /** Whether the rack may settle the operator's next job of this life now (see {@link #SETTLE}). */
    private boolean settleable() {
        if (settled >= world.jobs().size() || fold.chain().isEmpty()) {
            return false;
        }
        SignedJob j = world.jobs().get(settled);
        JobId id = j.request().job();
        ChainProjection chain = fold.chain().get();
        if (chain.known(id).isEmpty() || !chain.precedesHead(id)) {
            return false;
        }
        boolean mine = j.request().target().equals("0");
        return !mine || ownStatus(id).map(e -> e.status().isTerminal()).orElse(false);
    }

    /** The settler's forgetting, in the runtime's order (pipeline's {@code Settler}). */
    private void settle() {
        JobId id = world.jobs().get(settled).request().job();
        List<JobId> jobs = List.of(id);
        fold.forgetSettled(jobs);
        fold.forgetSettledPositions(jobs);
        head.forgetSettled(jobs);
        settled++;
        settledAny = true;
    }

    /** A cold boot: a new life with nothing replayed; every message may be delivered again. */
    private void coldBoot() {
        crashed = true;
        newLife();
        java.util.Arrays.fill(delivered, false);
        redelivered = -1;
        adjudicate();
    }

    private void crash(boolean reversed) {
        crashed = true;
        JobId recorded = committed;
        boolean recordedEnded = committedEnded;
        boolean recordedCancelled = committedCancelled;
        newLife();
        // The copy was sent after every original: last in send order, first in reverse.
        if (reversed && redelivered >= 0) {
            deliver(world.messages().get(redelivered));
        }
        for (int k = 0; k < delivered.length; k++) {
            int i = reversed ? delivered.length - 1 - k : k;
            if (delivered[i]) {
                deliver(world.messages().get(i));
            }
        }
        if (!reversed && redelivered >= 0) {
            deliver(world.messages().get(redelivered));
        }
        // The job the record named when this life began, as the runtime reads it at its start: a
        // job the replay committed is this life's own, running or about to (with settling, D-058,
        // adjudicating it as an earlier life's let the rack settle it while its launch was pending).
        adjudicate(recorded, recordedEnded, recordedCancelled);
    }

    /** Adjudication (section 7): the record's committed job gets its ending from the record. */
    private void adjudicate() {
        adjudicate(committed, committedEnded, committedCancelled);
    }

    private void adjudicate(JobId job, boolean ended, boolean cancelled) {
        if (job != null && ownStatus(job).isEmpty()) {
            fold(cancelled ? new Message.JobCancelled(ChainCheck.ME.baseboard(), job)
                    : ended ? stopped(job) : new Message.JobErrored(ChainCheck.ME.baseboard(), job,
                    Message.JobError.INTERRUPTED, "running when an earlier life ended", 0));
        }
    }

    private void deliver(Message m) {
        fold(m);
        if (m instanceof Message.JobStop) {
            stopSeen.add(((Message.JobStop) m).job());
            onStop((Message.JobStop) m);
        } else if (m instanceof Message.JobStart) {
            head.stopFor(((Message.JobStart) m).job().request().job()).ifPresent(this::onStop);
        }
    }

    /** A starter's stop, as the runtime applies it (admission always admits here). */
    private void onStop(Message.JobStop stop) {
        JobId job = stop.job();
        HeadRules.OnStop what = broken.onStop(() -> head.onStop(stop, j -> true));
        if (what == HeadRules.OnStop.KILL) {
            end(job, true);
        } else if (what == HeadRules.OnStop.CANCEL) {
            fold(new Message.JobCancelled(ChainCheck.ME.baseboard(), job));
            if (head.atHead(job)) {
                pass(job, ChainProjection.Passed.NEVER_RAN);
            }
        }
    }

    private void fold(Message m) {
        handle(fold.apply(ChainCheck.V, m));
        retryWaiting();
    }

    private void handle(List<SledProjection.Outcome> outcomes) {
        for (SledProjection.Outcome o : outcomes) {
            if (o instanceof SledProjection.Outcome.AtHead) {
                atHead(((SledProjection.Outcome.AtHead) o).job());
            }
        }
    }

    private void pass(JobId job, ChainProjection.Passed how) {
        head.passed(job);
        handle(fold.passHead(job, how));
    }

    private void atHead(SignedJob job) {
        JobId id = job.request().job();
        switch (broken.atHead(head.atHead(job))) {
            case CANCELLED -> pass(id, ChainProjection.Passed.NEVER_RAN);
            case ALREADY_HANDLED -> pass(id, ChainProjection.Passed.MAY_HAVE_RUN);
            case WAIT -> { }
            case SCREEN -> {
                if (broken.admitted(head.admitted(id)) == HeadRules.Admitted.RUN) {
                    start(job);
                } else {
                    fold(new Message.JobCancelled(ChainCheck.ME.baseboard(), id));
                    pass(id, ChainProjection.Passed.NEVER_RAN);
                }
            }
        }
    }

    private void retryWaiting() {
        head.retry().ifPresent(this::atHead);
    }

    /** Admission admits: the job is committed (its record written before the spawn) and the head moves past it. */
    private void start(SignedJob job) {
        JobId id = job.request().job();
        head.committed(id);
        // Who may stop it, kept whatever the fold forgets (the runtime's Launches pins it at its commit).
        fold.pin(id, new SledProjection.Pin(ChainCheck.S, ChainCheck.START.starter()));
        committed = id;
        successor = job.request().successor();
        committedEnded = false;
        committedCancelled = false;
        committing.add(id);
        pass(id, ChainProjection.Passed.RAN);
        if (!world.stopped(id) && committing.contains(id)) {
            launch(id);
        }
    }

    /** The commit landed: the job is launched, unless a stop kept for it says otherwise. */
    private void launch(JobId id) {
        committing.remove(id);
        if (!broken.launch(head.launch(id))) {
            // Its starter's stop was kept for the launch: never spawned, ended Cancelled on the record.
            committedCancelled = id.equals(committed);
            fold.unpin(id);
            fold(new Message.JobCancelled(ChainCheck.ME.baseboard(), id));
            return;
        }
        if (stopSeen.contains(id)) {
            violation = world.position(id) + " was launched after the starter's stop of it reached this sled";
            return;
        }
        if (!ledger.add(id)) {
            violation = world.position(id) + " started twice on this sled";
            return;
        }
        running.add(id);
        fold(new Message.JobStarted(ChainCheck.ME.baseboard(), id));
    }

    private void end(JobId job, boolean killed) {
        running.remove(job);
        head.ended(job);
        fold.unpin(job);
        if (job.equals(committed)) {
            committedEnded = true;
        }
        fold(killed ? new Message.JobErrored(ChainCheck.ME.baseboard(), job, Message.JobError.KILLED, "stopped", 15)
                : stopped(job));
    }

    private static Message.JobStopped stopped(JobId job) {
        byte[] none = new byte[32];
        return new Message.JobStopped(ChainCheck.ME.baseboard(), job, 0, null, 0, none, 0, none);
    }

    /**
     * The head never stands at or before a position this sled started, in any life; and this
     * sled never says it cancelled (never ran) a job it launched in any life.
     */
    private void check() {
        if (violation != null) {
            return;
        }
        for (JobId started : ledger) {
            if (ownStatus(started).filter(e -> e.status() == JobStatus.CANCELLED).isPresent()) {
                violation = world.position(started) + " is reported cancelled (never ran) by this sled, which launched it";
                return;
            }
        }
        if (fold.chain().isEmpty()) {
            return;
        }
        JobId head = fold.chain().get().head();
        for (JobId started : ledger) {
            if (world.atOrBefore(head, started)) {
                violation = "the head stands at " + world.position(head) + ", at or before "
                        + world.position(started) + ", which this sled started";
                return;
            }
        }
    }

    private Optional<StatusProjection.Entry> ownStatus(JobId job) {
        return fold.statuses().status(job, ChainCheck.ME.baseboard()).filter(e -> e.status() != JobStatus.QUEUED);
    }

    private int jobIndex(JobId job) {
        for (int i = 0; i < world.jobs().size(); i++) {
            if (world.jobs().get(i).request().job().equals(job)) {
                return i;
            }
        }
        throw new IllegalStateException("not a job of the world: " + job);
    }

    String head() {
        return fold.chain().map(c -> world.position(c.head())).orElse("-");
    }

    String deliveredSet() {
        StringBuilder b = new StringBuilder();
        for (boolean d : delivered) {
            b.append(d ? '1' : '0');
        }
        return b.append('+').append(redelivered).toString();
    }

    String startedSet() {
        return new TreeSet<>(ledger.stream().map(JobId::toString).toList()).toString();
    }

    /** Everything that decides this sled's future: merged states have equal futures. */
    String key() {
        StringBuilder own = new StringBuilder();
        for (SignedJob j : world.jobs()) {
            own.append(ownStatus(j.request().job()).map(e -> e.status().name()).orElse("-")).append(',');
        }
        return crashed + "|" + settled + settledAny + "|" + deliveredSet() + "|" + startedSet() + "|" + running
                + committing + stopSeen + "|"
                + head.key() + "|" + committed + committedEnded + committedCancelled + "|" + fold.chainKey() + "|" + own;
    }
}
