package sush.locker.admission;

import java.util.Objects;
import java.util.Optional;

import sush.locker.record.Outcome;
import sush.locker.record.SignedCommitted;
import sush.locker.record.SignedRecord;
import sush.projections.id.JobId;
import sush.projections.id.SessionRank;

/**
 * The records a sled of the {@code signed} ordering writes (ordered-sessions.md section 5): the
 * commit before each launch, and the outcome after the ending. The floor never changes; the
 * committed session never moves back (O1, checked on every record built here).
 */
public final class SignedCommit {
    private SignedCommit() {
    }

    /** What a commit records: the admitted job of session {@code session} and its successor. */
    public record Input(SessionRank session, JobId job, JobId successor) {
        public Input {
            Objects.requireNonNull(session, "session");
            Objects.requireNonNull(job, "job");
            Objects.requireNonNull(successor, "successor");
        }
    }

    /**
     * The record naming {@code in.job()} as committed. A commit needs a record: a sled whose
     * slots loaded Empty runs nothing (rule 2), so there is nothing to build on.
     */
    public static SignedRecord build(Optional<SignedRecord> newest, Input in) {
        SignedRecord r = newest.orElseThrow(() -> new IllegalStateException("no record: an unprovisioned sled "
                + "commits nothing"));
        SignedRecord next = new SignedRecord(r.baseboard(), r.floor(), Optional.of(new SignedCommitted(in.session(),
                in.job(), in.successor(), Outcome.COMMITTED)));
        SignedRecord.checkO1(newest, next);
        return next;
    }

    /**
     * The outcome update for {@code job}: only when it is the committed job and the outcome ranks
     * higher (at-most-once.md section 7). Empty when nothing changes, so a straggler never
     * replaces a newer record.
     */
    public static Optional<SignedRecord> ended(SignedRecord newest, JobId job, Outcome outcome) {
        return newest.committed().filter(c -> c.job().equals(job) && outcome.outranks(c.outcome()))
                .map(c -> new SignedRecord(newest.baseboard(), newest.floor(), Optional.of(c.withOutcome(outcome))));
    }
}
