package sush.pipeline.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import sush.projections.fold.Waves;
import sush.projections.id.JobId;
import sush.projections.job.JobWave;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * Jobs in waves in the simulator (issue 40, D-059): which submits the operator signs in waves
 * (drawn from their own stream of the seed, so a schedule's other steps are the same with waves
 * on or off), which sleds' runs of them fail, and the checkers, which read what the sleds did,
 * never the wave rule itself: at most N sleds (plus one per sled the starter skipped) run a job at
 * once, at most K + N (plus the skipped) fail, and a sled ends a job {@code Skipped{BudgetSpent}}
 * only when more than K sleds of its earlier waves said they failed.
 */
final class WaveRuns {
    private final SimRack rack;
    private final Random draw;
    /** The jobs signed in waves, by id. */
    final Map<JobId, SignedJob> jobs = new HashMap<>();
    /** Per wave job, the baseboards whose run of it exits 1. */
    private final Map<JobId, Set<String>> failing = new HashMap<>();
    /** Per wave job, the baseboards that said it failed there (a non-zero exit, an error). */
    private final Map<JobId, Set<String>> saidFailed = new HashMap<>();
    /** What the sleds said of wave jobs, ranked as every fold ranks statuses: each sled's last word. */
    private final sush.projections.fold.StatusProjection said = new sush.projections.fold.StatusProjection();
    /** Per wave job, the baseboards that said {@code Skipped{BudgetSpent}}. */
    private final Map<JobId, Set<String>> saidSpent = new HashMap<>();
    /** Per wave job, the cubbies whose part the operator skipped. */
    final Map<JobId, Set<Integer>> skipped = new HashMap<>();
    /** Per wave job, the most sleds seen running it at once. */
    private final Map<JobId, Integer> mostAtOnce = new HashMap<>();
    long budgetsSpent;
    /** {@code -Dsush.sim.waves.trace=true}: every report of a wave job goes into the trace. */
    private static final boolean TRACE = Boolean.getBoolean("sush.sim.waves.trace");

    WaveRuns(SimRack rack, long seed) {
        this.rack = rack;
        this.draw = new Random(seed ^ 0x3a7e_5b0d_9e7L);
    }

    /** The request's waves, and its target as cubbies, for a submit the operator makes; none for one in three of two. */
    JobWave waveFor(String target) {
        if (draw.nextInt(3) != 0 || cubbies(target).isEmpty()) {
            return JobWave.NONE;
        }
        return new JobWave(1 + draw.nextInt(3), draw.nextInt(3));
    }

    /** {@code target} as a list of cubbies, as the client resolves it for a job in waves ("" when it cannot). */
    String cubbies(String target) {
        if (target.equals("*")) {
            List<String> all = new ArrayList<>();
            for (SimSled s : rack.sleds) {
                all.add(Integer.toString(s.sled.cubby()));
            }
            return String.join(",", all);
        }
        return target.chars().allMatch(c -> c == ',' || (c >= '0' && c <= '9')) ? target : "";
    }

    /** A job signed in waves: each targeted sled's run fails with probability one in three. */
    void signed(SignedJob job) {
        jobs.put(job.request().job(), job);
        rack.faults.add("waves");
        Set<String> f = new HashSet<>();
        for (SimSled s : rack.sleds) {
            if (draw.nextInt(3) == 0) {
                f.add(s.sled.baseboard());
            }
        }
        failing.put(job.request().job(), f);
    }

    /** A wave job whose request never left (refused at once): its position goes to the next request. */
    void unsigned(JobId job) {
        jobs.remove(job);
        failing.remove(job);
        saidFailed.remove(job);
        saidSpent.remove(job);
        said.forget(job);
    }

    /** The baseboards whose run of {@code job} fails. */
    Set<String> failingOn(JobId job) {
        return new TreeSet<>(failing.getOrDefault(job, Set.of()));
    }

    /** The exit code of {@code sled}'s run of {@code job}. */
    int exitCode(JobId job, String sled) {
        Set<String> f = failing.get(job);
        return f != null && f.contains(sled) ? 1 : 0;
    }

    /** A sled gossiped {@code m}: failures and spent budgets of wave jobs are noted. */
    void gossiped(Message m) {
        Message.report(m).filter(r -> jobs.containsKey(r.job())).ifPresent(r -> {
            said.apply(m);
            if (TRACE) {
                rack.trace.add("  wave job " + r.job().codephrase().substring(0, 12) + ": " + m);
            }
        });
        if (m instanceof Message.JobStopped) {
            Message.JobStopped s = (Message.JobStopped) m;
            if (jobs.containsKey(s.job()) && (s.exitCode() == null || s.exitCode() != 0)) {
                saidFailed.computeIfAbsent(s.job(), k -> new TreeSet<>()).add(s.baseboard());
            }
        } else if (m instanceof Message.JobErrored) {
            Message.JobErrored e = (Message.JobErrored) m;
            if (jobs.containsKey(e.job())) {
                saidFailed.computeIfAbsent(e.job(), k -> new TreeSet<>()).add(e.baseboard());
            }
        } else if (m instanceof Message.JobSkipped && ((Message.JobSkipped) m).reason()
                == Message.SkipReason.ALREADY_HANDLED && jobs.containsKey(((Message.JobSkipped) m).job())) {
            // It ran or may have run in an earlier life, its ending forgotten: the gate counts it as failed.
            Message.JobSkipped k = (Message.JobSkipped) m;
            saidFailed.computeIfAbsent(k.job(), x -> new TreeSet<>()).add(k.baseboard());
        } else if (m instanceof Message.JobSkipped && ((Message.JobSkipped) m).reason()
                == Message.SkipReason.BUDGET_SPENT) {
            budgetsSpent++;
            rack.faults.add("budget-spent");
            Message.JobSkipped k = (Message.JobSkipped) m;
            saidSpent.computeIfAbsent(k.job(), x -> new TreeSet<>()).add(k.baseboard());
        }
    }

    /**
     * The cubbies of {@code job} a live sled waits for that an operator would skip: a live sled
     * holding the job has no ending from them, and their sled is down (or the cubby is empty), or
     * it ended the job (its history, here what it said over the run) while the rack forgot it.
     */
    List<Integer> awaited(SignedJob job) {
        JobId id = job.request().job();
        Set<Integer> out = new TreeSet<>();
        for (SimSled s : rack.sleds) {
            sush.pipeline.sled.SledRuntime.View v = rack.liveView(s);
            if (v == null || v.fold().chain().flatMap(c -> c.known(id)).isEmpty()) {
                continue;
            }
            for (int cubby : Waves.members(job).orElse(List.of())) {
                Optional<SimSled> at = rack.sleds.stream().filter(x -> x.sled.cubby() == cubby).findFirst();
                boolean heard = at.isPresent() && v.fold().statuses().status(id, at.get().sled.baseboard())
                        .map(e -> e.status().isTerminal()).orElse(false);
                boolean ended = at.isPresent() && said.status(id, at.get().sled.baseboard()).map(e -> e.status()
                        .isTerminal()).orElse(false);
                if (!heard && (at.isEmpty() || !at.get().up || ended)) {
                    out.add(cubby);
                }
            }
        }
        return List.copyOf(out);
    }

    /** Whether every wave job a live sled holds has ended there (what the calm waits for). */
    boolean allEnded() {
        for (SimSled s : rack.sleds) {
            sush.pipeline.sled.SledRuntime.View v = rack.liveView(s);
            if (v == null) {
                continue;
            }
            for (SignedJob j : jobs.values()) {
                JobId id = j.request().job();
                boolean held = v.fold().chain().flatMap(c -> c.known(id)).isPresent();
                if (held && Checkers.targets(j, s.sled) && !v.fold().statuses().status(id, s.sled.baseboard())
                        .map(e -> e.status().isTerminal()).orElse(false)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Counts the live sleds running each wave job now; past N plus the skipped parts is a violation. */
    void checkAtOnce(List<String> violations) {
        if (jobs.isEmpty()) {
            return;
        }
        Map<JobId, Integer> now = new HashMap<>();
        for (SimSled s : rack.sleds) {
            if (s.up && s.launcher != null) {
                for (JobId j : s.launcher.running()) {
                    if (jobs.containsKey(j)) {
                        now.merge(j, 1, Integer::sum);
                    }
                }
            }
        }
        now.forEach((job, n) -> {
            mostAtOnce.merge(job, n, Math::max);
            int allowed = jobs.get(job).request().wave().size() + skipped.getOrDefault(job, Set.of()).size();
            String v = "waves: " + n + " sleds ran job " + job.codephrase() + " at once, its waves are of "
                    + jobs.get(job).request().wave().size();
            if (n > allowed && !violations.contains(v)) {
                violations.add(v);
            }
        });
    }

    /** After the run: failures within K + N, and every spent budget said with more than K failures before it. */
    void checkBudgets(List<String> violations) {
        for (SignedJob j : jobs.values()) {
            JobId id = j.request().job();
            JobWave w = j.request().wave();
            int extra = skipped.getOrDefault(id, Set.of()).size();
            Set<String> failed = saidFailed.getOrDefault(id, Set.of());
            // Runs that failed, by each sled's last word (a commit that failed to land is an error, and a
            // later life may run the job after all); a sled refusing the job never ran it.
            List<String> ranAndFailedOn = said.statuses(id).entrySet().stream().filter(e -> Waves.failure(
                    e.getValue()) && rack.ledger.contains(new sush.pipeline.exec.LedgerLauncher.Launch(e.getKey(), id)))
                    .map(Map.Entry::getKey).sorted().toList();
            long ranAndFailed = ranAndFailedOn.size();
            if (ranAndFailed > w.maxFailures() + w.size() + extra) {
                violations.add("waves: " + ranAndFailed + " sleds ran and failed job " + id.codephrase() + ", more than its "
                        + "budget " + w.maxFailures() + " plus a wave of " + w.size() + " (" + ranAndFailedOn + ")");
            }
            List<Integer> members = Waves.members(j).orElse(List.of());
            for (String sled : saidSpent.getOrDefault(id, Set.of())) {
                int wave = w.waveOf(members, cubbyOf(sled));
                long before = failed.stream().filter(f -> {
                    int fw = w.waveOf(members, cubbyOf(f));
                    return fw >= 0 && fw < wave;
                }).count();
                if (before <= w.maxFailures()) {
                    violations.add("waves: " + sled + " said the budget of job " + id.codephrase() + " was spent, "
                            + "but " + before + " sleds of its earlier waves said they failed (budget "
                            + w.maxFailures() + ")");
                }
            }
        }
    }

    private int cubbyOf(String baseboard) {
        for (SimSled s : rack.sleds) {
            if (s.sled.baseboard().equals(baseboard)) {
                return s.sled.cubby();
            }
        }
        return -1;
    }

    /** The most sleds that ran any wave job at once (for the summary). */
    int mostAtOnce() {
        return mostAtOnce.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }
}
