package sush.projections.fold;

/**
 * One reporter's status of one job, in the total precedence order of at-most-once.md section 7:
 * a status replaces another only if it ranks higher, so every sled ends with the same status
 * whatever the arrival order.
 */
public enum JobStatus {
    QUEUED,
    STARTED,
    /** Running when its sled crashed; a late real ending replaces it. */
    INTERRUPTED,
    SKIPPED,
    CANCELLED,
    /** Any error other than Interrupted. */
    ERROR,
    STOPPED;

    /** Whether the job will not change on that sled any more by itself. */
    public boolean isTerminal() {
        return this != QUEUED && this != STARTED;
    }

    public boolean outranks(JobStatus other) {
        return ordinal() > other.ordinal();
    }
}
