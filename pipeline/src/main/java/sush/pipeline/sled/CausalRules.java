package sush.pipeline.sled;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import sush.gossip.set.NetworkId;
import sush.locker.admission.Admission;
import sush.locker.admission.Commit;
import sush.locker.admission.Entry;
import sush.locker.admission.Verdict;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Committed;
import sush.locker.record.Left;
import sush.locker.record.Outcome;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.projections.fold.Ordering;
import sush.projections.fold.SessionProjection;
import sush.projections.fold.SledProjection;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;

/**
 * The {@code causal} ordering (at-most-once.md): a record of universes with their executed
 * joins, the entry plan and its floors, admission by causal order within a universe.
 */
final class CausalRules implements OrderingRules {
    private final Locker<BoundaryRecord> causal;
    private final String me;

    CausalRules(Locker<BoundaryRecord> causal, String me) {
        this.causal = causal;
        this.me = me;
    }

    @Override
    public Ordering ordering() {
        return Ordering.CAUSAL;
    }

    @Override
    public AtEntry atEntry(NetworkId network) {
        Entry plan = causal.trusted() ? Entry.enter(causal.newest(), network)
                : new Entry(Optional.empty(), Optional.empty());
        return new AtEntry(plan.snapshot(), plan.floor(), Optional.empty());
    }

    /**
     * Section 6 (amended): the committed session of the snapshot or of any {@code recent} entry,
     * whatever the current universe, resumes at its stored successor before anything is
     * screened. A session id exists once, so seeing it anywhere means resuming it; where several
     * entries name it, the most recent wins (the record's own, else the most recently left).
     */
    @Override
    public List<SledProjection.Resumption> resumptions(EntryState at) {
        List<SledProjection.Resumption> out = new ArrayList<>();
        Optional<BoundaryRecord> snapshot = at.snapshot();
        if (snapshot.isEmpty()) {
            return out;
        }
        List<Committed> named = new ArrayList<>();
        snapshot.get().committed().ifPresent(named::add);
        List<Left> recent = snapshot.get().recent();
        for (int i = recent.size() - 1; i >= 0; i--) {
            recent.get(i).committed().ifPresent(named::add);
        }
        Set<SessionId> seen = new HashSet<>();
        for (Committed c : named) {
            if (seen.add(c.session())) {
                out.add(new SledProjection.Resumption(c.session(), c.job(), c.successor()));
            }
        }
        return out;
    }

    @Override
    public void leaving(SledProjection fold) {
        // Nothing travels: a causal session lives in its universe.
    }

    @Override
    public void entered(EntryState at, boolean migration, Collection<Launches.Pinned> pinned) {
        // Nothing more: the entry plan's floor was raised as the sled entered.
    }

    @Override
    public boolean mayAdmit(SledProjection fold) {
        return true;
    }

    @Override
    public Verdict decide(EntryState at, SessionProjection.Session active, JobId id, Admission.Position position) {
        return Admission.decide(new Admission.Input(causal.trusted(), at.floor(), at.snapshot(), at.network(),
                active.id(), active.start(), id, position));
    }

    @Override
    public Locker.Ticket<?> reserveCommit(EntryState at, SignedJob job, SessionProjection.Session session)
            throws LockerException {
        JobId id = job.request().job();
        Commit.Input in = new Commit.Input(me, at.network(), session.id(), session.start(), id,
                job.request().successor(), at.floor().isPresent() && !at.committedAboveFloor());
        return causal.reserve(newest -> Commit.build(newest, in));
    }

    @Override
    public Locker.Ticket<?> reserveEnding(JobId job, Outcome o) throws LockerException {
        return causal.reserve(newest -> Commit.ended(newest.orElseThrow(), job, o).orElseThrow());
    }

    @Override
    public boolean endedRecordChanges(JobId job, Outcome o) {
        return causal.newest().flatMap(r -> Commit.ended(r, job, o)).isPresent();
    }

    @Override
    public Optional<Recorded> recordedCommit(EntryState at) {
        return at.snapshot().flatMap(BoundaryRecord::committed).map(c -> new Recorded(c.job(), c.outcome()));
    }
}
