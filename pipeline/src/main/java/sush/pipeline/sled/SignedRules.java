package sush.pipeline.sled;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

import sush.gossip.set.NetworkId;
import sush.locker.admission.Admission;
import sush.locker.admission.SignedAdmission;
import sush.locker.admission.SignedCommit;
import sush.locker.admission.Verdict;
import sush.locker.record.Outcome;
import sush.locker.record.SignedRecord;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.pipeline.journal.JournalRecord;
import sush.projections.fold.Ordering;
import sush.projections.fold.SessionProjection;
import sush.projections.fold.SledProjection;
import sush.projections.id.JobId;
import sush.projections.id.SessionRank;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * The {@code signed} ordering (ordered-sessions.md): a record of a floor epoch and the last
 * committed job, admission by the signed rank of the active grant, no universe bookkeeping; a
 * session and this life's unfinished commits travel into the universe a migration enters.
 */
final class SignedRules implements OrderingRules {
    private final Locker<SignedRecord> signed;
    private final String me;
    private final Loop loop;
    /**
     * Signed ordering: the newest grant the previous entry's fold held, and whether it was
     * stopped; re-gossiped into the universe a migration enters (section 2).
     */
    private Optional<SignedGrant> carriedGrant = Optional.empty();
    private boolean carriedStopped;

    SignedRules(Locker<SignedRecord> signed, String me, Loop loop) {
        this.signed = signed;
        this.me = me;
        this.loop = loop;
    }

    @Override
    public Ordering ordering() {
        return Ordering.SIGNED;
    }

    @Override
    public AtEntry atEntry(NetworkId network) {
        // Signed ordering: no universe bookkeeping, so no entry plan and no floor (ordered-sessions.md 3).
        return new AtEntry(Optional.empty(), Optional.empty(), signed.trusted() ? signed.newest() : Optional.empty());
    }

    @Override
    public List<SledProjection.Resumption> resumptions(EntryState at) {
        // Signed ordering: the committed session resumes at its successor (section 5).
        return at.signedSnapshot().flatMap(SignedRecord::committed)
                .map(c -> new SledProjection.Resumption(c.session().session(), c.job(), c.successor())).stream()
                .toList();
    }

    @Override
    public void leaving(SledProjection fold) {
        if (fold.newestGrant().isPresent()) {
            carriedGrant = fold.newestGrant();
            carriedStopped = fold.activeGrant().isEmpty();
        }
    }

    /**
     * Signed ordering at entry: an unprovisioned sled says so once per entry (it runs nothing,
     * rule 2, and never writes a record by itself); after a migration the newest grant the sled
     * held, and its stop, are gossiped into the new universe (safe: a signed grant has one place
     * in the order wherever it travels), so a session survives a universe contest.
     */
    @Override
    public void entered(EntryState at, boolean migration, Collection<Launches.Pinned> pinned) {
        if (signed.trusted() && at.signedSnapshot().isEmpty()) {
            loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.ERROR, "", "Unprovisioned"));
            loop.send(new Message.RackError(me, Message.RackErrorKind.UNPROVISIONED, SledRuntime.NO_SESSION,
                    "the boundary slots of " + me + " hold no record: it runs no job until `sush locker provision "
                    + "--floor-epoch E` (E from `sush signer epoch`)"));
        }
        if (migration && carriedGrant.isPresent()) {
            SignedGrant g = carriedGrant.get();
            loop.send(new Message.SessionGrant(g));
            if (carriedStopped) {
                loop.send(new Message.SessionStop(g.grant().session(), g.grant().starter()));
            }
        }
        if (migration) {
            // A job committed here and not ended keeps its starter in the new universe: its
            // session's grant (safe to re-gossip anywhere) and its request travel with it, so
            // that any sled there takes its starter's stop.
            for (Launches.Pinned p : pinned) {
                p.grant().filter(g -> carriedGrant.map(c -> !c.grant().session().equals(g.grant().session()))
                        .orElse(true)).ifPresent(g -> loop.send(new Message.SessionGrant(g)));
                loop.send(new Message.JobStart(p.request()));
            }
        }
    }

    @Override
    public boolean mayAdmit(SledProjection fold) {
        return fold.activeGrant().isPresent();
    }

    @Override
    public Verdict decide(EntryState at, SessionProjection.Session active, JobId id, Admission.Position position) {
        // The newest record handed to the writer, not the entry's: a commit of this entry
        // counts at once (rule 7 sees a reused epoch granted after it).
        SessionRank rank = at.fold().activeGrant().orElseThrow().grant().rank();
        return SignedAdmission.decide(new SignedAdmission.Input(signed.trusted(), signed.newest(), rank, id,
                position));
    }

    @Override
    public Locker.Ticket<?> reserveCommit(EntryState at, SignedJob job, SessionProjection.Session session)
            throws LockerException {
        JobId id = job.request().job();
        SignedCommit.Input in = new SignedCommit.Input(at.fold().activeGrant().orElseThrow().grant().rank(), id,
                job.request().successor());
        return signed.reserve(newest -> SignedCommit.build(newest, in));
    }

    @Override
    public Locker.Ticket<?> reserveEnding(JobId job, Outcome o) throws LockerException {
        return signed.reserve(newest -> SignedCommit.ended(newest.orElseThrow(), job, o).orElseThrow());
    }

    @Override
    public boolean endedRecordChanges(JobId job, Outcome o) {
        return signed.newest().flatMap(r -> SignedCommit.ended(r, job, o)).isPresent();
    }

    @Override
    public Optional<Recorded> recordedCommit(EntryState at) {
        return at.signedSnapshot().flatMap(SignedRecord::committed).map(c -> new Recorded(c.job(), c.outcome()));
    }
}
