package sush.projections.fold;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * Where a head standing on forgotten positions jumps (the chain's skeleton, bounded-gossip.md
 * section 3): {@link Settlement#nextLive}'s answer, from what its settlement tracks (pure).
 */
final class SkeletonJump {
    private SkeletonJump() {
    }

    /** See {@link Settlement#nextLive}. */
    static Optional<JobId> nextLive(Settlement s, SessionId session, JobId position, String asking) {
        OptionalLong from = s.ordinal(session, position);
        if (from.isEmpty()) {
            return Optional.empty();
        }
        long best = Long.MAX_VALUE;
        JobId found = null;
        boolean tie = false;
        boolean unplaced = false;
        Set<JobId> distinct = new HashSet<>();
        for (JobId p : livePositions(s, session)) {
            if (!distinct.add(p)) {
                continue;
            }
            OptionalLong o = s.ordinal(session, p);
            if (o.isEmpty()) {
                unplaced = true; // a live position of unknown place might come first
                continue;
            }
            if (o.getAsLong() <= from.getAsLong() || o.getAsLong() > best) {
                continue;
            }
            tie = o.getAsLong() == best;
            best = o.getAsLong();
            found = p;
        }
        if (found == null || tie || (unplaced && !everyOtherHeadAt(s, session, found, asking))) {
            return Optional.empty();
        }
        return Optional.of(found);
    }

    /** The session's live positions: jobs and burns held, and the heads of every sled's newest watermarks. */
    private static List<JobId> livePositions(Settlement s, SessionId session) {
        List<JobId> candidates = new ArrayList<>();
        s.jobs.values().forEach(j -> {
            if (j.session.equals(session)) {
                candidates.add(j.position);
            }
        });
        s.burns.values().forEach(b -> {
            if (b.session.equals(session)) {
                candidates.add(b.position);
            }
        });
        s.bySession.values().forEach(marks -> {
            Settlement.Marks m = marks.get(session);
            if (m != null) {
                m.held.stream().filter(mark -> !mark.watermark().done())
                        .forEach(mark -> candidates.add(mark.watermark().head()));
            }
        });
        return candidates;
    }

    /** Every sled of the rack but {@code asking} has newest watermarks in {@code session}, all standing on {@code head}. */
    private static boolean everyOtherHeadAt(Settlement s, SessionId session, JobId head, String asking) {
        for (String p : s.peers.keySet()) {
            if (p.equals(asking)) {
                continue;
            }
            Settlement.Marks m = s.bySession.getOrDefault(p, Map.of()).get(session);
            if (m == null || m.overflowed || m.held.isEmpty()
                    || m.held.stream().anyMatch(x -> x.watermark().done() || !x.watermark().head().equals(head))) {
                return false;
            }
        }
        return true;
    }
}
