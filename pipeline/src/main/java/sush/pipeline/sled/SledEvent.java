package sush.pipeline.sled;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.locker.admission.FloorCause;
import sush.locker.admission.Verdict;
import sush.locker.record.Outcome;
import sush.pipeline.exec.Ending;
import sush.projections.fold.JobStatus;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.message.Message;

/** What a sled did, in order: for the event stream, the journal's readers and tests. */
public sealed interface SledEvent {
    /** An entry finished its steps (section 3); {@code floor} is raised at entry if present. */
    record Entered(long sequence, NetworkId network, String cause, Optional<FloorCause> floor) implements SledEvent {
    }

    /** A floor was raised to {@code version}. */
    record FloorRaised(FloorCause cause, Version version) implements SledEvent {
    }

    /** Local replay drained: zombies and the committed job were adjudicated. */
    record Drained(long sequence) implements SledEvent {
    }

    /** An operator's login or revocation arrived (the API's authority honours it). */
    record Operator(Message message) implements SledEvent {
    }

    /** The sled gossiped this message. */
    record Gossiped(Message message) implements SledEvent {
    }

    /** A job's request was delivered to this sled and folded (whether or not it targets this sled). */
    record Requested(JobId job) implements SledEvent {
    }

    /** Admission's verdict for a job at the head. */
    record Screened(JobId job, Verdict verdict) implements SledEvent {
    }

    /** A boundary record committing the job was handed to the writer: from now on it may run. */
    record Reserved(JobId job) implements SledEvent {
    }

    /**
     * A starter's stop of a job committed and not launched yet: kept, and applied at the launch
     * (the job is not spawned and ends {@code Cancelled}).
     */
    record StopKept(JobId job) implements SledEvent {
    }

    /**
     * One of the fold's bounded memories forgot something ({@code memory} names it, {@code count}
     * is how much so far in this entry): the bounds are explicit, never a silent gap.
     */
    record Evicted(String memory, long count) implements SledEvent {
    }

    /**
     * The boundary record committing the job is on every slot: record {@code seq} of this life's
     * locker, stored in {@code micros} microseconds (every slot's write, fsync, rename and
     * directory fsync). The launch follows.
     */
    record Committed(JobId job, long seq, long micros) implements SledEvent {
    }

    /**
     * The current universe's gossip set crossed {@code percent} (80, then 100) of the messages it
     * can hold: sends are refused at 100 until a new universe (a whole-rack cold boot).
     */
    record SetFill(int percent, int messages, int capacity) implements SledEvent {
    }

    /**
     * The active session's chain crossed {@code percent} (80, then 100) of the positions it can
     * remember ({@link sush.projections.fold.ChainProjection#remembered()}): at 100 later jobs
     * of the session wait behind a hole until a new session.
     */
    record ChainFill(SessionId session, int percent, int positions, int capacity) implements SledEvent {
    }

    /**
     * The sled forgot {@code versions} from its gossip set (issue 39): what its settlement found
     * no sled of the rack needs any more; its fold forgot what it kept of {@code jobs}, the jobs
     * among them that the rack settled (D-054).
     */
    record Forgot(List<Version> versions, List<JobId> jobs) implements SledEvent {
        public Forgot {
            versions = List.copyOf(versions);
            jobs = List.copyOf(jobs);
        }
    }

    /**
     * The chain's skeleton (issue 39): the head stood at {@code from}, a position the rack forgot,
     * and jumped to {@code to}, the first live one after it.
     */
    record Jumped(SessionId session, JobId from, JobId to) implements SledEvent {
    }

    /** The boundary commit for the job is on both slots and its process was started. */
    record Launched(JobId job) implements SledEvent {
    }

    /** A launched job ended. */
    record Ended(JobId job, Ending ending) implements SledEvent {
        /**
         * The ending as a log line may show it: status, code and a fixed word (never the job's
         * command text, output or leftover processes).
         */
        public String summary() {
            Outcome o = Endings.outcome(ending);
            return o.status().name().toLowerCase(Locale.ROOT) + " " + o.code()
                    + (o.detail().isEmpty() ? "" : " (" + o.detail() + ")");
        }
    }

    /** A reporter's status of a job changed in this sled's fold (any sled's report). */
    record StatusChanged(JobId job, String baseboard, JobStatus status, Message message)
            implements SledEvent {
    }

    /** Something failed that the operator should know (a boundary write, a full queue, a send). */
    record Failed(String what) implements SledEvent {
    }

    /**
     * A gossip send the node refused because the sled is still bootstrapping into a universe (it
     * has no identity to stamp messages with yet): expected after a restart, not a failure. What
     * was not sent is told again once the sled has entered the universe (the entry's
     * adjudication and re-announcements, or the next request).
     */
    record Deferred(Message message) implements SledEvent {
    }

    /**
     * A stage of the sled's loop failed unexpectedly: the sled admits nothing more in this life,
     * and the daemon exits with its own status so that a supervisor restarts it.
     */
    record Halted(String stage, String error) implements SledEvent {
    }
}
