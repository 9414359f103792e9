package sush.locker.admission;

import java.util.Objects;
import java.util.Optional;

import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Committed;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.message.Message.SkipReason;

/**
 * The admission rules of at-most-once.md section 6 as one pure function: first rule that matches
 * wins. The reason each rule is safe stands beside it.
 */
public final class Admission {
    private Admission() {
    }

    /** Where the screened job stands on this sled's chain. */
    public enum Position {
        /** At the head: the job this sled may start next. */
        AT_HEAD,
        /** Behind the head by a known chain path, or the session's first job with the head past it. */
        BEHIND_HEAD
    }

    /**
     * Everything admission reads.
     *
     * @param trusted whether the locker's load was trusted (section 8)
     * @param floor the floor of this entry, if one is raised
     * @param snapshot the record as it stood at this entry (section 5)
     * @param universe the current universe
     * @param session the active session
     * @param sessionStart its start version {@code vS}
     * @param job the targeted job
     * @param position where the job stands on this sled's chain
     */
    public record Input(boolean trusted, Optional<Version> floor, Optional<BoundaryRecord> snapshot,
            NetworkId universe, SessionId session, Version sessionStart, JobId job, Position position) {
        public Input {
            Objects.requireNonNull(floor, "floor");
            Objects.requireNonNull(snapshot, "snapshot");
            Objects.requireNonNull(universe, "universe");
            Objects.requireNonNull(session, "session");
            Objects.requireNonNull(sessionStart, "sessionStart");
            Objects.requireNonNull(job, "job");
            Objects.requireNonNull(position, "position");
        }
    }

    public static Verdict decide(Input in) {
        if (!in.trusted()) {
            // Rule 1: with no trustworthy record we cannot know what ran; running nothing is safe.
            return new Verdict.Refuse("the M.2 boundary records disagree or are unreadable; the sled needs service");
        }
        Optional<Committed> committed = in.snapshot().filter(s -> s.network().equals(in.universe()))
                .flatMap(BoundaryRecord::committed);
        if (committed.isPresent() && committed.get().session().equals(in.session())
                && committed.get().job().equals(in.job())) {
            // The committed job may have run: adjudication reports its fate, nothing re-runs it.
            return new Verdict.Adjudicate();
        }
        if (in.position() == Position.BEHIND_HEAD) {
            // Behind the head: it ran, or may have run, or was passed over by this sled already.
            return new Verdict.Skip(SkipReason.ALREADY_HANDLED, "behind the head");
        }
        if (in.floor().isPresent()) {
            // Rule 2, Lemma T: a session whose start dominates the floor began after this entry,
            // so no life of this sled can have run any of its jobs.
            return in.floor().get().lessThan(in.sessionStart()) ? new Verdict.Admit("2: started above the floor")
                    : new Verdict.Skip(SkipReason.BELOW_FLOOR, "2: started at or below the floor");
        }
        if (in.snapshot().isEmpty()) {
            // Rule 3: no record; the cause-2 floor already guards any universe with history.
            return new Verdict.Admit("3: no record");
        }
        BoundaryRecord s = in.snapshot().get();
        if (!s.network().equals(in.universe())) {
            // Rule 4, by I1: this sled never committed in this universe.
            return new Verdict.Admit("4: never committed in this universe");
        }
        if (committed.isPresent() && committed.get().session().equals(in.session())) {
            // Rule 5: resumption already moved the head past the committed job.
            return new Verdict.Admit("5: the committed session resumes");
        }
        if (s.executed().lessThan(in.sessionStart())) {
            // Rule 6: the session started after everything this sled ran here.
            return new Verdict.Admit("6: started after everything executed here");
        }
        if (in.sessionStart().leq(s.executed())) {
            // Rule 7: a session we executed after this one supersedes it. No floor: a sled that
            // rejoins through a lagging peer briefly sees an older session, and a floor would
            // then refuse its own committed session for the rest of the entry.
            return new Verdict.Skip(SkipReason.SUPERSEDED, "7: at or below what was executed here");
        }
        // Rule 8: concurrent with what we executed here: we hopped partitions. Refuse this
        // session through a floor; sessions started after the hop are served.
        return new Verdict.Hop();
    }
}
