package sush.projections.fold;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * Who may stop a job: the session of every job request folded, bounded by
 * {@link FoldBounds#jobSessions()} (past it the oldest request is forgotten, its stop then
 * refused), and the pins of jobs committed here and not ended, which no bound forgets.
 */
final class JobSessions {
    private final int bound;
    /** The session of every job request folded: who may stop the job (its session's starter). */
    private final LinkedHashMap<JobId, SessionId> jobSessions = new LinkedHashMap<>();
    /** Requests whose session the bound made this fold forget. */
    private long evictedJobSessions;
    /** Jobs committed here and not ended, with who may stop them: no bounded memory forgets these. */
    private final Map<JobId, SledProjection.Pin> pins = new HashMap<>();

    JobSessions(int bound) {
        this.bound = bound;
    }

    /** An independent copy of {@code o}. */
    JobSessions(JobSessions o) {
        this.bound = o.bound;
        this.jobSessions.putAll(o.jobSessions);
        this.pins.putAll(o.pins);
        this.evictedJobSessions = o.evictedJobSessions;
    }

    /** Remembers the session of a request folded (the first one for a job wins). */
    void remember(JobId job, SessionId session) {
        if (jobSessions.putIfAbsent(job, session) == null
                && jobSessions.size() > bound) {
            jobSessions.remove(jobSessions.keySet().iterator().next());
            evictedJobSessions++;
        }
    }

    /** Forgets {@code job}'s session: the rack settled it (its pin, if any, stays). */
    void forget(JobId job) {
        jobSessions.remove(job);
    }

    /** The remembered session of {@code job}'s request, or null. */
    SessionId get(JobId job) {
        return jobSessions.get(job);
    }

    /** Requests the bound made this fold forget. */
    long evicted() {
        return evictedJobSessions;
    }

    /** The pin of {@code job}, or null if it is not pinned. */
    SledProjection.Pin pin(JobId job) {
        return pins.get(job);
    }

    void pin(JobId job, SledProjection.Pin pin) {
        pins.put(job, pin);
    }

    void unpin(JobId job) {
        pins.remove(job);
    }

    /** The pinned jobs, read-only. */
    Map<JobId, SledProjection.Pin> pins() {
        return Collections.unmodifiableMap(pins);
    }

    /** The sessions of the pinned jobs (a new set): no bounded memory may forget them. */
    Set<SessionId> pinnedSessions() {
        Set<SessionId> pinned = new HashSet<>();
        pins.values().forEach(p -> pinned.add(p.session()));
        return pinned;
    }
}
