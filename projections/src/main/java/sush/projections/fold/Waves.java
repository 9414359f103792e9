package sush.projections.fold;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;

import sush.projections.id.JobId;
import sush.projections.job.JobWave;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * The wave rule of a job run in waves (issue 40, D-059), read from a sled's fold: the one copy,
 * called by the sled at its head, by the API's status and plan, and by the simulator's checkers
 * only through what sleds did. Pure.
 *
 * <p>The job's targets are a list of cubbies, sorted; wave {@code w} is ranks
 * {@code [w*N, (w+1)*N)}. The sled in cubby {@code c} of wave {@code w > 0} may start the job
 * once every cubby of the earlier waves is done with it: a terminal status from a sled announced
 * in that cubby, or the starter's skip of that cubby's part. As soon as more than {@code K} of
 * those ended in failure (an error, a non-zero exit, an interruption, or an ending the rack
 * forgot: see {@link #failure}) it never starts the job.
 */
public final class Waves {
    private Waves() {
    }

    /** What the wave rule says of a sled's part of a job. */
    public sealed interface Gate {
        /** No wave holds it: the job may start here (other rules still apply). */
        record Go() implements Gate {
        }

        /** Its wave {@code wave} waits for these cubbies of earlier waves to be done with the job. */
        record Await(int wave, List<Integer> awaited) implements Gate {
        }

        /** Earlier waves failed {@code failures} times, more than the budget {@code budget}: it never starts. */
        record Spent(int wave, int failures, int budget, List<Integer> failed) implements Gate {
            /** The detail of the {@code Skipped{BudgetSpent}} it ends with. */
            public String detail() {
                return failures + " of the earlier waves' sleds failed (cubbies " + failed + "), more than the "
                        + "budget of " + budget;
            }
        }

        /** A job in waves must target cubbies (D-059): this one does not, and never runs in waves. */
        record NotCubbies(String target) implements Gate {
        }
    }

    private static final Gate GO = new Gate.Go();

    /** The sorted cubbies a job in waves targets, or empty when its target is not a list of cubbies. */
    public static Optional<List<Integer>> members(SignedJob job) {
        try {
            return Target.parse(job.request().target()).cubbyList();
        } catch (TargetException e) {
            return Optional.empty();
        }
    }

    /** The wave rule for the sled in {@code cubby}, from {@code fold}'s statuses and announcements. */
    public static Gate gate(SignedJob job, int cubby, SledProjection fold) {
        return gate(job, cubby, fold.statuses(), fold.announcements());
    }

    /** The wave rule for the sled in {@code cubby}: see {@link Waves}. */
    public static Gate gate(SignedJob job, int cubby, StatusProjection statuses,
            Map<String, SledProjection.Announced> announced) {
        JobWave wave = job.request().wave();
        if (!wave.isSet()) {
            return GO;
        }
        Optional<List<Integer>> members = members(job);
        if (members.isEmpty()) {
            return new Gate.NotCubbies(job.request().target());
        }
        int mine = wave.waveOf(members.get(), cubby);
        if (mine <= 0) {
            return GO; // the first wave, or not a member (no wave holds a sled the job does not target)
        }
        JobId id = job.request().job();
        SortedSet<Integer> skipped = statuses.skippedSleds(id);
        Map<String, StatusProjection.Entry> byReporter = statuses.statuses(id);
        List<Integer> awaited = new ArrayList<>();
        List<Integer> failed = new ArrayList<>();
        for (int c : members.get().subList(0, mine * wave.size())) {
            Optional<StatusProjection.Entry> done = doneAt(c, byReporter, announced);
            if (done.isPresent() && failure(done.get())) {
                failed.add(c);
            } else if (done.isEmpty() && !skipped.contains(c)) {
                awaited.add(c);
            }
        }
        if (failed.size() > wave.maxFailures()) {
            return new Gate.Spent(mine, failed.size(), wave.maxFailures(), List.copyOf(failed));
        }
        return awaited.isEmpty() ? GO : new Gate.Await(mine, List.copyOf(awaited));
    }

    /**
     * Where a job in waves stands, as a fold sees it (what {@code job status} shows): the wave
     * held now ({@code -1} once every wave is done), the cubbies of it not done yet, the failures
     * so far, and whether the budget is spent.
     */
    public record Progress(int size, int budget, int wave, List<Integer> awaited, int failures, boolean spent) {
    }

    /** The progress of {@code job} (in waves), from {@code fold}; empty for a job without waves or not of cubbies. */
    public static Optional<Progress> progress(SignedJob job, SledProjection fold) {
        JobWave wave = job.request().wave();
        Optional<List<Integer>> members = members(job);
        if (!wave.isSet() || members.isEmpty()) {
            return Optional.empty();
        }
        JobId id = job.request().job();
        SortedSet<Integer> skipped = fold.statuses().skippedSleds(id);
        Map<String, StatusProjection.Entry> byReporter = fold.statuses().statuses(id);
        int failures = 0;
        int held = -1;
        List<Integer> awaited = new ArrayList<>();
        List<Integer> all = members.get();
        for (int i = 0; i < all.size(); i++) {
            int c = all.get(i);
            Optional<StatusProjection.Entry> done = doneAt(c, byReporter, fold.announcements());
            if (done.isPresent() && failure(done.get())) {
                failures++;
            }
            boolean open = done.isEmpty() && !skipped.contains(c);
            int w = i / wave.size();
            if (open && (held < 0 || held == w)) {
                held = w;
                awaited.add(c);
            }
        }
        return Optional.of(new Progress(wave.size(), wave.maxFailures(), held, List.copyOf(awaited), failures,
                failures > wave.maxFailures()));
    }

    /**
     * The terminal status of the sled announced in {@code cubby}; when a cubby held two sleds
     * (a swap), a failure of either counts, else either's ending.
     */
    private static Optional<StatusProjection.Entry> doneAt(int cubby, Map<String, StatusProjection.Entry> byReporter,
            Map<String, SledProjection.Announced> announced) {
        StatusProjection.Entry found = null;
        for (Map.Entry<String, StatusProjection.Entry> e : byReporter.entrySet()) {
            SledProjection.Announced a = announced.get(e.getKey());
            if (a == null || a.announcement().cubby() != cubby || !e.getValue().status().isTerminal()) {
                continue;
            }
            if (found == null || failure(e.getValue())) {
                found = e.getValue();
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * Whether a terminal status counts against the budget: an error, an interruption, a non-zero
     * exit, or an outcome nobody knows any more: {@code Skipped{AlreadyHandled}} is what a sled
     * says of a job it ran or may have run in an earlier life once the rack forgot its ending (a
     * cold boot empties the gossip set), so a rollout stops rather than count a lost failure as a
     * success (D-059).
     */
    public static boolean failure(StatusProjection.Entry e) {
        switch (e.status()) {
            case ERROR:
            case INTERRUPTED:
                return true;
            case SKIPPED:
                return e.message() instanceof Message.JobSkipped
                        && ((Message.JobSkipped) e.message()).reason() == Message.SkipReason.ALREADY_HANDLED;
            case STOPPED:
                Message.JobStopped s = (Message.JobStopped) e.message();
                return s.exitCode() == null || s.exitCode() != 0;
            default:
                return false;
        }
    }
}
