package sush.pipeline.sled;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import sush.locker.admission.HeadRules;
import sush.pipeline.journal.JournalRecord;
import sush.projections.fold.JobStatus;
import sush.projections.fold.StatusProjection;
import sush.projections.id.JobId;
import sush.projections.message.Message;

/**
 * Skips, reaping and adjudication (at-most-once.md sections 6 and 7): what the sled tells of
 * jobs' fates besides its own launches. A replayed request's skip (or a replayed stop's
 * cancellation) waits until local replay drains, and goes only if the job still has no status
 * of this sled's; then the zombies of earlier lives are reaped, the record's committed job is
 * adjudicated, and this life's jobs are told again in a universe that lacks them.
 */
final class Adjudication {
    private final Loop loop;
    private final HeadRules head;
    private final OrderingRules order;
    private final Supplier<EntryState> entry;
    private final Launches launches;
    private final String me;

    /**
     * @param entry the entry folding now
     */
    Adjudication(SledConfig cfg, Loop loop, HeadRules head, OrderingRules order, Supplier<EntryState> entry,
            Launches launches) {
        this.loop = loop;
        this.head = head;
        this.order = order;
        this.entry = entry;
        this.launches = launches;
        this.me = cfg.me().baseboard();
    }

    /**
     * A live request's skip is gossiped at once; a replayed one's after replay, if still without
     * status. Deliveries come in log order and the replayed ones are the log at entry, so until
     * replay drains every request met is a replayed one, and after it every new one is live.
     */
    void skip(JobId job, Message.SkipReason reason) {
        skip(job, reason, null);
    }

    /** As {@link #skip(JobId, Message.SkipReason)}, saying more ({@code detail}, or null). */
    void skip(JobId job, Message.SkipReason reason, String detail) {
        EntryState at = entry.get();
        if (ownStatus(job).isPresent() || !at.skipReported().add(job)) {
            return;
        }
        Message.JobSkipped report = new Message.JobSkipped(me, job, reason, detail);
        if (at.drained()) {
            loop.send(report);
        } else {
            at.deferredReports().add(new EntryState.Deferred(job, report));
        }
    }

    /** Cancelled (never ran here): a replayed stop's report waits for replay, and goes only if the job has no status of ours then. */
    void reportCancelled(JobId id) {
        EntryState at = entry.get();
        if (at.drained()) {
            loop.send(new Message.JobCancelled(me, id));
        } else {
            at.deferredReports().add(new EntryState.Deferred(id, new Message.JobCancelled(me, id)));
        }
    }

    /** Local replay is over: the deferred reports go, then reaping, adjudication and what this life tells again. */
    void onDrained() {
        EntryState at = entry.get();
        for (EntryState.Deferred d : at.deferredReports()) {
            if (ownStatus(d.job()).isEmpty()) {
                loop.send(d.report());
            }
        }
        at.deferredReports().clear();
        reapZombies();
        adjudicate();
        // A bounded copy: at most MAX_ENDINGS_KEPT.
        List.copyOf(launches.endingsThisLife().keySet()).forEach(this::reannounce);
        List.copyOf(launches.running()).forEach(this::reannounce);
        loop.emit(new SledEvent.Drained(at.seq()));
    }

    private void reapZombies() {
        EntryState at = entry.get();
        for (JobId z : at.fold().zombies(at.birth())) {
            if (adjudicatedFromRecord(z)) {
                continue;
            } else if (head.launchedThisLife(z)) {
                // A survivor of a migration: still running reports later; ended re-announces.
                Message ending = launches.endingsThisLife().get(z);
                if (ending != null) {
                    loop.send(ending);
                }
            } else {
                loop.send(new Message.JobErrored(me, z, Message.JobError.INTERRUPTED,
                        "running when an earlier life of this sled ended", 0));
            }
        }
    }

    /**
     * A job this life committed, whose request this universe holds and whose status of this sled
     * it lacks (it started, ended, or failed its commit in a universe the sled has since left):
     * its start and its ending are told here once, so that no sled waits for them (a sequential
     * job) and no status is missing. A job still committing reports when it launches.
     */
    void reannounce(JobId job) {
        EntryState at = entry.get();
        Message ending = launches.endingsThisLife().get(job);
        if (!at.drained() || !head.committedThisLife(job) || ownStatus(job).isPresent()
                || at.fold().sessionOf(job).isEmpty() || (ending == null && !launches.running().contains(job))
                || !at.reannounced().add(job)) {
            return; // not ours to tell, told already, or ended so long ago that its ending is no longer kept
        }
        boolean told = !head.launchedThisLife(job) || loop.send(new Message.JobStarted(me, job));
        if (!told || (ending != null && !loop.send(ending))) {
            at.reannounced().remove(job); // the node refused it (still bootstrapping): a later request or entry tells it
        }
    }

    /** Once per record: the committed job's fate leaves the sled, from the record if nothing else tells it. */
    private void adjudicate() {
        // Section 6 and 7 (amended): the snapshot's committed job, whatever the current universe.
        Optional<OrderingRules.Recorded> c = order.recordedCommit(entry.get());
        // Once per entry, after replay: what this sled told in an earlier entry is in the replay
        // when it reached this universe's log, and told again when it did not (an announcement
        // into a universe the sled then left, or into a replica it then dropped for a peer's).
        if (c.isEmpty()) {
            return;
        }
        if (head.launchedThisLife(c.get().job())) {
            // Launched in this life and ended in a universe the sled has since left: its fate is
            // told here too (a session that survives the migration, as a signed one does, has a
            // sequential job waiting for it). One still running reports its ending when it ends.
            Message ending = launches.endingsThisLife().get(c.get().job());
            if (ending != null && ownStatus(c.get().job()).isEmpty()) {
                boolean told = loop.send(new Message.JobStarted(me, c.get().job())) && loop.send(ending);
                loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ENDING,
                        c.get().job().codephrase(), told ? "told again in this universe"
                                : "not told: the node refused the send"));
            }
            return;
        }
        JobId job = c.get().job();
        if (head.committedThisLife(job)) {
            // Committed in this life and not launched: its commit failed, or a stop cancelled it
            // at its launch (its ending is kept either way), or its record is still being stored
            // (it reports when it launches). The record knows less than this life: never told
            // Interrupted from it (seed 258 of the receipts' audit: an IO error and an
            // interruption, both said of one job that never started).
            Message ending = launches.endingsThisLife().get(job);
            if (ending != null && ownStatus(job).isEmpty() && entry.get().reannounced().add(job)) {
                loop.send(ending);
            }
            return;
        }
        Optional<JobStatus> own = ownStatus(job).map(StatusProjection.Entry::status);
        boolean recordedEnding = c.get().outcome().isEnded() && c.get().outcome().status() != JobStatus.INTERRUPTED;
        // The record's ending is announced even when this sled's own Started is in gossip
        // without a terminal status: the crash lost the Stopped message, not the record's outcome.
        if (own.isEmpty() || (recordedEnding && !own.get().isTerminal())) {
            for (Message m : Endings.recorded(me, job, c.get().outcome())) {
                if (!(m instanceof Message.JobStarted && own.isPresent()) && !loop.send(m)) {
                    return; // not told (a node still bootstrapping into this universe): the next entry tells it
                }
            }
        }
    }

    /** Section 7: the record's committed job is adjudicated, never reaped, when the record holds its ending. */
    private boolean adjudicatedFromRecord(JobId job) {
        return order.recordedCommit(entry.get())
                .filter(c -> c.job().equals(job) && c.outcome().isEnded() && c.outcome().status() != JobStatus.INTERRUPTED)
                .isPresent() && !head.launchedThisLife(job);
    }

    /** This sled's own status of the job (the head rules' reading: queued and conflicts aside). */
    private Optional<StatusProjection.Entry> ownStatus(JobId job) {
        return head.ownStatus(job);
    }
}
