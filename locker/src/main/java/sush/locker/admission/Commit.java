package sush.locker.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.locker.record.Bloom;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Committed;
import sush.locker.record.Left;
import sush.locker.record.Outcome;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * The records written around a launch (at-most-once.md sections 4 and 6), each a pure function of
 * the newest record: the commit before the spawn, and the outcome update after the job ends.
 */
public final class Commit {
    private Commit() {
    }

    /**
     * What the commit of one admitted job needs.
     *
     * @param firstAboveFloor a floor is set in this entry and no commit above it was made yet
     */
    public record Input(String baseboard, NetworkId universe, SessionId session, Version sessionStart, JobId job,
            JobId successor, boolean firstAboveFloor) {
    }

    public static BoundaryRecord build(Optional<BoundaryRecord> newest, Input in) {
        return build(newest, in, BoundaryRecord.MAX_RECENT);
    }

    /** As {@link #build(Optional, Input)}, keeping {@code recentCapacity} universes exactly. */
    public static BoundaryRecord build(Optional<BoundaryRecord> newest, Input in, int recentCapacity) {
        Version executed = Version.ZERO;
        List<Left> recent = new ArrayList<>();
        Bloom burned = Bloom.EMPTY;
        // Absent record: created after an Empty load, so its history before now is unknowable.
        boolean amnesiac = true;
        if (newest.isPresent()) {
            // The entry's view of a recent universe (section 5), applied to the newest record
            // rather than to the snapshot, so an outcome update made since the entry is kept.
            BoundaryRecord b = Entry.enter(newest, in.universe(), recentCapacity).snapshot().orElseThrow();
            recent.addAll(b.recent());
            burned = b.burned();
            amnesiac = b.amnesiac();
            if (b.network().equals(in.universe())) {
                executed = b.executed();
            } else {
                // I1: the universe we committed in before stays known, exactly or in the filter.
                burned = Entry.leave(recent, burned, new Left(b.network(), b.executed(), b.committed()),
                        recentCapacity);
            }
        }
        if (in.firstAboveFloor()) {
            // Lemma T: every older session executed here is at or below the floor or concurrent
            // with it, so none can exceed a start above it. Resetting heals an executed join that
            // holds a start the universe has lost.
            executed = Version.ZERO;
        }
        executed = executed.join(in.sessionStart());
        Committed c = new Committed(in.session(), in.job(), in.successor(), Outcome.COMMITTED);
        BoundaryRecord next = new BoundaryRecord(in.baseboard(), in.universe(), executed, Optional.of(c), recent,
                burned, amnesiac);
        BoundaryRecord.checkI1(newest, next);
        if (!in.sessionStart().leq(next.executed())) {
            throw new IllegalStateException("executed must cover the admitted session's start");
        }
        return next;
    }

    /**
     * The outcome update for {@code job}: changes only a committed entry whose job it is, in the
     * network or in {@code recent}, and only to a higher-ranked outcome (section 7). Empty when
     * nothing changes, so a straggler never replaces a newer record.
     */
    public static Optional<BoundaryRecord> ended(BoundaryRecord newest, JobId job, Outcome outcome) {
        if (newest.committed().filter(c -> c.job().equals(job) && outcome.outranks(c.outcome())).isPresent()) {
            Committed c = newest.committed().get().withOutcome(outcome);
            return Optional.of(new BoundaryRecord(newest.baseboard(), newest.network(), newest.executed(),
                    Optional.of(c), newest.recent(), newest.burned(), newest.amnesiac()));
        }
        List<Left> recent = new ArrayList<>(newest.recent());
        for (int i = 0; i < recent.size(); i++) {
            Left l = recent.get(i);
            if (l.committed().filter(c -> c.job().equals(job) && outcome.outranks(c.outcome())).isPresent()) {
                recent.set(i, new Left(l.network(), l.executed(),
                        Optional.of(l.committed().get().withOutcome(outcome))));
                return Optional.of(new BoundaryRecord(newest.baseboard(), newest.network(), newest.executed(),
                        newest.committed(), recent, newest.burned(), newest.amnesiac()));
            }
        }
        return Optional.empty();
    }
}
