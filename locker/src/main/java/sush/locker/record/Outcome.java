package sush.locker.record;

import java.util.Objects;

import sush.projections.fold.JobStatus;

/**
 * What the record knows of its committed job's fate: {@link #COMMITTED} (written before the spawn,
 * no ending recorded yet) or a terminal status with its exit code or signal and a short detail
 * (an error kind's wire name). Metadata only: never output. Ranks follow the status precedence of
 * at-most-once.md section 7, with {@code Committed} below every ending.
 */
public record Outcome(JobStatus status, long code, String detail) {
    /** Bound on the detail text: a wire name such as {@code output-limit}, never job output. */
    public static final int MAX_DETAIL_CHARS = 64;

    /** Written before each spawn: the job may run from now on. */
    public static final Outcome COMMITTED = new Outcome(JobStatus.STARTED, 0, "");

    public Outcome {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(detail, "detail");
        if (status == JobStatus.QUEUED) {
            throw new IllegalArgumentException("a committed job is never queued");
        }
        if (status == JobStatus.STARTED && (code != 0 || !detail.isEmpty())) {
            throw new IllegalArgumentException("Committed carries no code or detail");
        }
        if (detail.length() > MAX_DETAIL_CHARS) {
            throw new IllegalArgumentException("outcome detail over " + MAX_DETAIL_CHARS + " characters");
        }
    }

    /** An ending; {@code status} must be terminal. */
    public static Outcome ended(JobStatus status, long code, String detail) {
        if (!status.isTerminal()) {
            throw new IllegalArgumentException(status + " is not an ending");
        }
        return new Outcome(status, code, detail);
    }

    public boolean isEnded() {
        return status.isTerminal();
    }

    /** Whether this outcome may replace {@code current} (section 7: only a higher rank does). */
    public boolean outranks(Outcome current) {
        return status.outranks(current.status);
    }
}
