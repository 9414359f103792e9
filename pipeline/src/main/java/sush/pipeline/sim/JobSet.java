package sush.pipeline.sim;

import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import sush.projections.id.JobId;

/**
 * A set of jobs as the checkers keep it over a long run (issue 39's million-job rack: 32 sleds,
 * each remembering every request it folded and every job it settled): a bit per job the operator
 * signed, by the order it signed them ({@link Index}), and by id any other position (a burnt one
 * no request held). As a hash set of ids it held about 130 bytes per sled per job.
 */
final class JobSet {
    /** Numbers the jobs the operator signed, from 0, in the order it signed them; shared by every set of a run. */
    static final class Index {
        private final Map<JobId, Integer> numbers = new HashMap<>();

        /** Numbers {@code job}, unless it already has a number. */
        void note(JobId job) {
            numbers.putIfAbsent(job, numbers.size());
        }

        /** The number of {@code job}, or -1 when the operator never signed it. */
        int of(JobId job) {
            Integer n = numbers.get(job);
            return n == null ? -1 : n;
        }
    }

    private final Index index;
    private final BitSet numbered = new BitSet();
    /** Jobs without a number when they were added (they may have one by now: both are looked at). */
    private final Set<JobId> others = new HashSet<>();

    JobSet(Index index) {
        this.index = index;
    }

    void add(JobId job) {
        int n = index.of(job);
        if (n >= 0) {
            numbered.set(n);
        } else {
            others.add(job);
        }
    }

    void addAll(Collection<JobId> jobs) {
        jobs.forEach(this::add);
    }

    boolean contains(JobId job) {
        int n = index.of(job);
        return (n >= 0 && numbered.get(n)) || others.contains(job);
    }

    void clear() {
        numbered.clear();
        others.clear();
    }

    /** A copy that does not change with this set. */
    JobSet copy() {
        JobSet c = new JobSet(index);
        c.numbered.or(numbered);
        c.others.addAll(others);
        return c;
    }
}
