package sush.locker.record;

import java.util.Objects;

import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * The last job committed to run: its session, its id, the chain position after it (computed at
 * commit time from the signed bytes, so the session resumes without anyone re-sending the job)
 * and its outcome.
 */
public record Committed(SessionId session, JobId job, JobId successor, Outcome outcome) {
    public Committed {
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(successor, "successor");
        Objects.requireNonNull(outcome, "outcome");
    }

    public Committed withOutcome(Outcome next) {
        return new Committed(session, job, successor, next);
    }
}
