package sush.pipeline.exec;

import java.util.Objects;

import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.JobMode;

/** A job the sled admitted and committed: what the launcher starts. */
public record LaunchRequest(SessionId session, JobId job, String command, String target, Limits limits,
        JobMode mode) {
    public LaunchRequest {
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(mode, "mode");
    }

    /** A recorded job's launch. */
    public LaunchRequest(SessionId session, JobId job, String command, String target, Limits limits) {
        this(session, job, command, target, limits, JobMode.RECORDED);
    }
}
