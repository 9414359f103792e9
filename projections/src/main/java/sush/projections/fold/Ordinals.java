package sush.projections.fold;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * Positions' ordinals in one session's chain, as the {@link Settlement} numbers them: the first
 * is 0, a job's successor and a burnt position's next one more than it; a watermark's head and
 * resume point have the ordinals it names (after a restart the chain's beginning may be
 * forgotten), and a position before one with an ordinal has one less (so the live positions
 * after forgotten ones are numbered too).
 */
final class Ordinals {
    private final Map<JobId, Long> ordinals = new HashMap<>();
    /** Links of live positions: each position's next ones, and each position's previous ones. */
    private final Map<JobId, List<JobId>> next = new HashMap<>();
    private final Map<JobId, List<JobId>> previous = new HashMap<>();

    Ordinals(SessionId session) {
        ordinals.put(Chain.first(session), 0L);
    }

    void link(JobId from, JobId to) {
        next.computeIfAbsent(from, f -> new ArrayList<>(1)).add(to);
        previous.computeIfAbsent(to, t -> new ArrayList<>(1)).add(from);
        Long o = ordinals.get(from);
        if (o != null) {
            assign(to, o + 1);
        } else {
            Long after = ordinals.get(to);
            if (after != null && after > 0) {
                assign(from, after - 1);
            }
        }
    }

    void seed(JobId position, long ordinal) {
        assign(position, ordinal);
    }

    private void assign(JobId position, long ordinal) {
        ArrayDeque<Object[]> todo = new ArrayDeque<>();
        todo.add(new Object[] {position, ordinal});
        while (!todo.isEmpty()) {
            Object[] at = todo.poll();
            JobId p = (JobId) at[0];
            long o = (Long) at[1];
            if (o < 0 || ordinals.putIfAbsent(p, o) != null) {
                continue;
            }
            for (JobId n : next.getOrDefault(p, List.of())) {
                todo.add(new Object[] {n, o + 1});
            }
            for (JobId b : previous.getOrDefault(p, List.of())) {
                todo.add(new Object[] {b, o - 1});
            }
        }
    }

    OptionalLong ordinal(JobId position) {
        Long o = ordinals.get(position);
        return o == null ? OptionalLong.empty() : OptionalLong.of(o);
    }

    /** Whether walking back from {@code from} over held links, one predecessor at a time, meets {@code to}. */
    boolean meets(JobId from, JobId to) {
        JobId at = from;
        for (int steps = 0; steps <= previous.size() + 1; steps++) {
            if (at.equals(to)) {
                return true;
            }
            List<JobId> before = previous.get(at);
            if (before == null || before.size() != 1) {
                return false;
            }
            at = before.get(0);
        }
        return false;
    }

    /** The positions whose held links lead to {@code position} (none when none is held). */
    List<JobId> before(JobId position) {
        return previous.getOrDefault(position, List.of());
    }

    /**
     * Whether {@code target} (at {@code ordinal}) may lie behind {@code from}: walking back from
     * {@code from} over held links meets it, or the links end (forgotten) at a position numbered
     * past it. False when the walk reaches another position numbered at or before it (the path
     * went another way), or meets two links back, or ends where it cannot be placed.
     */
    boolean reachesBack(JobId from, JobId target, long ordinal) {
        JobId at = from;
        for (int steps = 0; steps <= previous.size() + 1; steps++) {
            if (at.equals(target)) {
                return true;
            }
            Long o = ordinals.get(at);
            if (o != null && o <= ordinal) {
                return false;
            }
            List<JobId> before = previous.get(at);
            if (before == null) {
                return o != null;
            }
            if (before.size() != 1) {
                return false;
            }
            at = before.get(0);
        }
        return false;
    }

    /** A settled position: its ordinal and links are not needed any more (its successors have theirs). */
    void forget(JobId position) {
        ordinals.remove(position);
        dropLinks(position);
    }

    /** A settled position whose ordinal is kept (a resume point): its links go. */
    void dropLinks(JobId position) {
        List<JobId> after = next.remove(position);
        if (after != null) {
            for (JobId a : after) {
                List<JobId> before = previous.get(a);
                if (before != null) {
                    before.remove(position);
                    if (before.isEmpty()) {
                        previous.remove(a);
                    }
                }
            }
        }
    }
}
