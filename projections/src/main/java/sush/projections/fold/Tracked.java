package sush.projections.fold;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import sush.gossip.clock.Version;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.targets.Sled;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * What a {@link Settlement} tracks of one position: its messages, and the join of their versions
 * (one {@code leq} says all were seen).
 */
abstract class Tracked {
    final SessionId session;
    final JobId position;
    final List<Version> versions = new ArrayList<>(4);
    Version ceiling = Version.ZERO;
    /**
     * Two ways on from this position (D-055): two requests at it, or a burn of it where a request
     * is held, that came behind a sled's head, or that a head passed on a way not through it.
     */
    boolean fork;

    Tracked(SessionId session, JobId position) {
        this.session = session;
        this.position = position;
    }

    void add(Version v) {
        versions.add(v);
        ceiling = ceiling.join(v);
    }

    /** A job's position: every request there, its statuses and stops. */
    static final class Job extends Tracked {
        /** Each request's target, parsed once (an unparsable one targets no one and is not kept). */
        final List<Target> targets = new ArrayList<>(1);
        final Set<String> targetTexts = new HashSet<>(2);
        final Set<String> ended = new HashSet<>();
        /** The successors of the requests held at this position (two: a fork). */
        final Set<JobId> successors = new HashSet<>(2);

        Job(SessionId session, JobId position) {
            super(session, position);
        }

        void target(String text) {
            if (targetTexts.add(text)) {
                try {
                    targets.add(Target.parse(text));
                } catch (TargetException e) {
                    // targets no one
                }
            }
        }

        /** Whether any request at the position targets {@code sled}. */
        boolean targets(Sled sled) {
            for (Target t : targets) {
                if (t.runsOn(sled)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** A burnt position: every skip sent for it. */
    static final class Burn extends Tracked {
        Burn(SessionId session, JobId position) {
            super(session, position);
        }
    }
}
