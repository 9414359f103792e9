package sush.locker.record;

import java.util.Objects;

import sush.projections.id.JobId;
import sush.projections.id.SessionRank;

/**
 * The last job committed to run under the {@code signed} ordering: its session with that
 * session's place in the order, the job, the chain position after it and the job's outcome.
 */
public record SignedCommitted(SessionRank session, JobId job, JobId successor, Outcome outcome) {
    public SignedCommitted {
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(successor, "successor");
        Objects.requireNonNull(outcome, "outcome");
    }

    public SignedCommitted withOutcome(Outcome next) {
        return new SignedCommitted(session, job, successor, next);
    }
}
