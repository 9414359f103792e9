package sush.pipeline.sled;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

import sush.gossip.set.NetworkId;
import sush.locker.admission.Admission;
import sush.locker.admission.FloorCause;
import sush.locker.admission.Verdict;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Outcome;
import sush.locker.record.RecordFormat;
import sush.locker.record.SignedRecord;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.projections.fold.Ordering;
import sush.projections.fold.SessionProjection;
import sush.projections.fold.SledProjection;
import sush.projections.id.JobId;
import sush.projections.job.SignedJob;

/**
 * What the sled does differently by the rack's session ordering: {@code causal}
 * (at-most-once.md: universes, floors, the entry plan) or {@code signed} (ordered-sessions.md: a
 * floor epoch, grants, no universe bookkeeping). The ordering is the locker's record format, so
 * it is chosen once, when the sled is built ({@link #of}), and every branch on it lives in the
 * two implementations, {@link CausalRules} and {@link SignedRules}.
 */
interface OrderingRules {
    /** The committed job of this entry's record and its recorded outcome, of either ordering. */
    record Recorded(JobId job, Outcome outcome) {
    }

    /**
     * The record as an entry finds it: for the causal ordering the entry plan (the snapshot and
     * the cause of a floor the entry raises, if any), for the signed one the record as it stands.
     * The other ordering's part is empty.
     */
    record AtEntry(Optional<BoundaryRecord> snapshot, Optional<FloorCause> floor,
            Optional<SignedRecord> signedSnapshot) {
    }

    /** The rules of the ordering of {@code locker}'s record format: one source, so they never disagree. */
    static OrderingRules of(Locker<?> locker, String me, Loop loop) {
        Optional<Locker<SignedRecord>> signed = locker.as(RecordFormat.SIGNED);
        if (signed.isPresent()) {
            return new SignedRules(signed.get(), me, loop);
        }
        return new CausalRules(locker.as(RecordFormat.CAUSAL).orElseThrow(), me);
    }

    /** The rack's ordering. */
    Ordering ordering();

    /** The record as an entry into universe {@code network} finds it. */
    AtEntry atEntry(NetworkId network);

    /**
     * Section 6 (amended): the sessions the entry's record names, each to resume at its stored
     * successor before anything is screened, in the order they are resumed.
     */
    List<SledProjection.Resumption> resumptions(EntryState at);

    /** The entry folding {@code fold} is left for a new one (its fold is fed no more). */
    void leaving(SledProjection fold);

    /**
     * What the ordering says at an entry, once the entry is built and its sessions resumed.
     *
     * @param migration whether the sled migrated into this universe in this life
     * @param pinned    this life's commits that have not ended
     */
    void entered(EntryState at, boolean migration, Collection<Launches.Pinned> pinned);

    /** Whether the ordering lets {@code fold}'s active session run a job at all (pure). */
    boolean mayAdmit(SledProjection fold);

    /** The admission rules of the rack's ordering (at-most-once.md 5, or ordered-sessions.md 5). */
    Verdict decide(EntryState at, SessionProjection.Session active, JobId id, Admission.Position position);

    /** Reserves the commit of {@code job}, admitted at the head of {@code session}. */
    Locker.Ticket<?> reserveCommit(EntryState at, SignedJob job, SessionProjection.Session session)
            throws LockerException;

    /** Reserves the record of {@code job}'s ending {@code o} over its commit (the newest record names it). */
    Locker.Ticket<?> reserveEnding(JobId job, Outcome o) throws LockerException;

    /** Whether the job's outcome changes the newest record (it is the committed job, and the outcome ranks higher). */
    boolean endedRecordChanges(JobId job, Outcome o);

    /** The committed job of this entry's record and its recorded outcome. */
    Optional<Recorded> recordedCommit(EntryState at);
}
