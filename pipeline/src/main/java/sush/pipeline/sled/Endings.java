package sush.pipeline.sled;

import java.util.List;

import sush.locker.record.Outcome;
import sush.pipeline.exec.Ending;
import sush.pipeline.exec.Output;
import sush.projections.fold.JobStatus;
import sush.projections.id.Hashes;
import sush.projections.id.JobId;
import sush.projections.message.Message;

/** How endings become gossip events and record outcomes, and how a recorded outcome is announced. */
final class Endings {
    private static final byte[] EMPTY_SHA3 = Hashes.sha3Raw(new byte[0]);

    private Endings() {
    }

    static Message message(String me, JobId job, Ending e, boolean shutdown) {
        if (e instanceof Ending.Exited) {
            Ending.Exited x = (Ending.Exited) e;
            return stopped(me, job, x.code(), x.output());
        }
        if (e instanceof Ending.Killed) {
            Ending.Killed k = (Ending.Killed) e;
            if (k.cause() == Ending.Cause.OUTPUT_LIMIT) {
                return new Message.JobErrored(me, job, Message.JobError.OUTPUT_LIMIT, "output limit reached"
                        + leftovers(k.leftovers()), k.signal());
            }
            if (k.cause() == Ending.Cause.CLIENT_GONE) {
                return new Message.JobErrored(me, job, Message.JobError.KILLED, "the streaming client went away before "
                        + "the end" + leftovers(k.leftovers()), k.signal());
            }
            if (k.cause() != Ending.Cause.STOP) {
                return new Message.JobErrored(me, job, Message.JobError.LIMIT, limitName(k.cause()) + " limit reached"
                        + leftovers(k.leftovers()), k.signal());
            }
            String why = (shutdown ? "the sled's daemon shut down" : "stopped by an operator") + leftovers(k.leftovers());
            return new Message.JobErrored(me, job, Message.JobError.KILLED, why, k.signal());
        }
        Ending.Failed f = (Ending.Failed) e;
        if (f.kind() == Ending.Failed.Kind.SPAWN) {
            return new Message.JobStopped(me, job, null, f.reason(), 0, EMPTY_SHA3, 0, EMPTY_SHA3);
        }
        return new Message.JobErrored(me, job, Message.JobError.IO, f.reason(), 0);
    }

    /** A limit's name in an error's detail (the names of {@link sush.projections.job.JobLimits.Kind}). */
    private static String limitName(Ending.Cause c) {
        return c == Ending.Cause.CPU_LIMIT ? "cpu" : c == Ending.Cause.FILE_SIZE_LIMIT ? "file-size" : "wall-time";
    }

    /** What else of the job was killed, for an error's detail (the list itself is in the job's directory). */
    private static String leftovers(List<String> killed) {
        return killed.isEmpty() ? "" : "; also killed " + killed.size() + (killed.size() == 1 ? " process" : " processes")
                + " it started";
    }

    static Message.JobStopped stopped(String me, JobId job, int code, Output o) {
        return new Message.JobStopped(me, job, code, null, o.stdoutBytes(), o.stdoutSha3(), o.stderrBytes(),
                o.stderrSha3());
    }

    /** The record's outcome for an ending (section 7's order decides whether it replaces one). */
    static Outcome outcome(Ending e) {
        if (e instanceof Ending.Exited) {
            return Outcome.ended(JobStatus.STOPPED, ((Ending.Exited) e).code(), "");
        }
        if (e instanceof Ending.Killed) {
            Ending.Killed k = (Ending.Killed) e;
            return Outcome.ended(JobStatus.ERROR, k.signal(), k.cause() == Ending.Cause.OUTPUT_LIMIT ? "output-limit"
                    : k.cause() == Ending.Cause.STOP || k.cause() == Ending.Cause.CLIENT_GONE ? "killed" : "limit");
        }
        Ending.Failed f = (Ending.Failed) e;
        return f.kind() == Ending.Failed.Kind.SPAWN ? Outcome.ended(JobStatus.STOPPED, -1, "spawn")
                : Outcome.ended(JobStatus.ERROR, 0, "io");
    }

    /**
     * Adjudication (section 7): the recorded ending of the committed job, or {@code Interrupted}
     * when the record holds none. Output lengths and hashes are not in the record (metadata only):
     * an adjudicated stop reports none.
     */
    static List<Message> recorded(String me, JobId job, Outcome o) {
        if (o.status() == JobStatus.CANCELLED) {
            // Its starter's stop reached it between its commit and its launch: it never ran.
            return List.of(new Message.JobCancelled(me, job));
        }
        if (!o.isEnded() || o.status() == JobStatus.INTERRUPTED) {
            return List.of(new Message.JobErrored(me, job, Message.JobError.INTERRUPTED,
                    "committed before this sled's last life ended; no ending was recorded", 0));
        }
        if (o.status() == JobStatus.STOPPED) {
            if (o.detail().equals("spawn")) {
                return List.of(new Message.JobStopped(me, job, null, "the process did not start", 0, EMPTY_SHA3, 0,
                        EMPTY_SHA3));
            }
            return List.of(new Message.JobStarted(me, job), new Message.JobStopped(me, job, (int) o.code(), null, 0,
                    EMPTY_SHA3, 0, EMPTY_SHA3));
        }
        Message.JobError kind = o.detail().equals("output-limit") ? Message.JobError.OUTPUT_LIMIT
                : o.detail().equals("io") ? Message.JobError.IO : o.detail().equals("limit") ? Message.JobError.LIMIT
                : Message.JobError.KILLED;
        return List.of(new Message.JobStarted(me, job), new Message.JobErrored(me, job, kind,
                "recorded before this sled's last life ended", (int) o.code()));
    }

    /** {@code report} (an ending's message) with the sled's start and end times and the duration. */
    static Message timed(Message report, long startedAt, long endedAt, long durationMs) {
        if (report instanceof Message.JobStopped) {
            return ((Message.JobStopped) report).timed(startedAt, endedAt, Math.max(0, durationMs));
        } else if (report instanceof Message.JobErrored) {
            return ((Message.JobErrored) report).timed(startedAt, endedAt, Math.max(0, durationMs));
        }
        return report;
    }
}
