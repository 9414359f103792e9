package sush.ops.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import picocli.CommandLine.Option;
import sush.ops.wire.StatusReport;
import sush.ops.wire.Versions;
import sush.projections.job.JobWave;
import sush.projections.targets.Sled;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * A job in waves with an error budget (issue 40, D-059), signed into its request: at most
 * {@code --wave-size} sleds run it at once, in cubby order, and a wave starts only once the earlier
 * ones ended with at most {@code --max-failures} failures among them.
 */
public final class WaveOptions {
    @Option(names = "--wave-size", paramLabel = "N", description = "run on at most N sleds at once, in cubby order: "
            + "a wave starts when every sled of the earlier waves ended the job")
    Integer size;
    @Option(names = "--max-failures", paramLabel = "K", description = "with --wave-size: once more than K sleds of "
            + "the earlier waves failed (error, non-zero exit, interrupted), the later sleds skip the job "
            + "(Skipped{BudgetSpent}); default 0")
    Integer maxFailures;

    /** The waves asked; a malformed one is a usage error (exit 2). */
    JobWave wave() throws Client.Failure {
        if (size == null) {
            if (maxFailures != null) {
                throw new Client.Failure(2, "bad-wave", "--max-failures needs --wave-size");
            }
            return JobWave.NONE;
        }
        try {
            return new JobWave(size, maxFailures == null ? 0 : maxFailures);
        } catch (IllegalArgumentException e) {
            throw new Client.Failure(2, "bad-wave", "--wave-size/--max-failures: " + e.getMessage());
        }
    }

    /**
     * The target a job in waves is signed with: a list of cubbies (every sled ranks the same
     * sleds). {@code *}, baseboards and serials are resolved against the sleds the rack knows now;
     * a target naming none of them is an error before anything is signed.
     */
    static String cubbies(Client c, String target) throws Client.Failure {
        Target t;
        try {
            t = Target.parse(target);
        } catch (TargetException e) {
            throw new Client.Failure(2, "bad-target", "--target: " + e.getMessage());
        }
        if (t.cubbyList().isPresent()) {
            return target;
        }
        TreeSet<Integer> cubbies = new TreeSet<>();
        for (Versions.Sled s : c.get("/versions", Versions.class).sleds()) {
            if (s.cubby() != null && t.runsOn(new Sled(Said.text(s.baseboard()), s.cubby()))) {
                cubbies.add(s.cubby());
            }
        }
        if (cubbies.isEmpty()) {
            throw new Client.Failure(2, "bad-target", "--target " + target + " names no sled the rack knows: nothing "
                    + "was signed");
        }
        List<String> items = new ArrayList<>();
        cubbies.forEach(x -> items.add(Integer.toString(x)));
        return String.join(",", items);
    }

    /** The waves of a job on {@code target} (cubbies), as a line: {@code waves of 2, budget 1: [0, 1] [2, 3]}. */
    static String describe(JobWave w, String target) {
        List<Integer> members;
        try {
            members = Target.parse(target).cubbyList().orElse(List.of());
        } catch (TargetException e) {
            members = List.of();
        }
        StringBuilder b = new StringBuilder("waves of " + w.size() + ", budget " + w.maxFailures() + ":");
        for (int i = 0; i < members.size(); i += w.size()) {
            b.append(' ').append(members.subList(i, Math.min(members.size(), i + w.size())));
        }
        return b.toString();
    }

    /** Where a job's waves stand, as a line for {@code job status}. */
    static String progress(StatusReport.WaveProgress p) {
        String head = "waves of " + p.size() + ", budget " + p.maxFailures() + ", " + p.failures() + " failed";
        if (p.spent()) {
            return head + ": budget spent, the later waves skip the job";
        }
        if (p.wave() < 0) {
            return head + ": every wave done";
        }
        return head + ": wave " + p.wave() + " awaits cubbies " + p.awaiting() + " (`sush job skip --sled CUBBY ID` "
                + "skips one that never reports)";
    }
}
