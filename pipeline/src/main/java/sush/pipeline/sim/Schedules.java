package sush.pipeline.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/** Random schedules from a seed, and the fixed scenarios of at-most-once.md section 10. */
public final class Schedules {
    private Schedules() {
    }

    /** A random schedule of {@code steps} steps over {@code sleds} sleds, all of it from {@code seed}. */
    public static List<Step> random(long seed, int sleds, int steps) {
        Random r = new Random(seed);
        List<Step> out = new ArrayList<>();
        out.add(new Step.StartSession(r.nextInt(sleds)));
        while (out.size() < steps) {
            int roll = r.nextInt(112);
            int sled = r.nextInt(sleds);
            if (roll < 22) {
                out.add(new Step.Advance(100 + r.nextInt(3_000)));
            } else if (roll < 40) {
                out.add(new Step.Submit(sled, target(r, sleds), r.nextInt(4) == 0));
            } else if (roll < 44) {
                out.add(new Step.StartSession(sled));
            } else if (roll < 51) {
                out.add(new Step.EndJobs());
            } else if (roll < 56) {
                out.add(new Step.Crash(sled));
            } else if (roll < 63) {
                out.add(new Step.Restart(sled));
            } else if (roll < 67) {
                out.add(new Step.Partition(split(r, sleds)));
            } else if (roll < 70) {
                out.add(new Step.Heal());
            } else if (roll < 71) {
                out.add(new Step.ColdBoot());
            } else if (roll < 72) {
                out.add(new Step.SplitBrainColdBoot(split(r, sleds)));
            } else if (roll < 75) {
                out.add(new Step.Resend(sled, r.nextInt(8)));
            } else if (roll < 77) {
                out.add(new Step.StopSession(sled));
            } else if (roll < 85) {
                // Burns: the next position, an arbitrary one, or one sent before; half the time a
                // sled crashes and restarts right after (it replays the burn from a peer).
                int kind = roll - 77;
                out.add(kind < 3 ? new Step.Skip(sled) : kind < 6 ? new Step.Burn(sled, r.nextInt(8))
                        : new Step.ResendBurn(sled, r.nextInt(8)));
                if (r.nextBoolean()) {
                    int victim = r.nextInt(sleds);
                    out.add(new Step.Advance(50 + r.nextInt(500)));
                    out.add(new Step.Crash(victim));
                    out.add(new Step.Restart(victim));
                }
            } else if (roll < 88) {
                out.add(new Step.StopJob(sled, r.nextInt(8)));
            } else if (roll < 89) {
                out.add(new Step.Wipe(sled));
            } else if (roll < 92) {
                String[] kinds = {"IO_ERROR", "NO_SPACE", "TORN", "LOST_ON_CRASH", "bit-flip", "READ_ONLY"};
                out.add(new Step.SlotFault(sled, r.nextInt(2), kinds[r.nextInt(kinds.length)]));
            } else if (roll < 95) {
                out.add(new Step.CrashOnWrite(sled));
            } else if (roll < 98) {
                out.add(new Step.CrashAfterCommit(sled));
            } else if (roll < 100) {
                out.add(new Step.Advance(100 + r.nextInt(3_000)));
            } else if (roll < 104) {
                // Issue 34: the operator stops a job at once (the wrong command): the stop may land
                // while it waits at the head, while its commit is on a (slow) disk, or as it runs.
                out.add(new Step.Submit(sled, target(r, sleds), r.nextInt(4) == 0));
                out.add(new Step.Advance(1 + r.nextInt(400)));
                out.add(new Step.StopNewest(r.nextInt(sleds)));
            } else if (roll < 107) {
                // Issue 34: a whole-rack cold boot after a job that only one sled runs.
                out.add(new Step.Submit(sled, r.nextBoolean() ? Integer.toString(r.nextInt(sleds))
                        : String.format("913-0000019:SIM%04d", r.nextInt(sleds)), false));
                out.add(new Step.Advance(1_000 + r.nextInt(2_000)));
                out.add(new Step.EndJobs());
                out.add(new Step.ColdBoot());
            } else if (roll < 109) {
                out.add(new Step.SlowDisk(sled, 100 + r.nextInt(700)));
            } else {
                out.add(new Step.StopNewest(sled));
            }
        }
        return out;
    }

    /**
     * The signed ordering's schedule: {@code schedule} with two replays of the run's first grant
     * (ordered-sessions.md section 8, scenario 3), each followed by a re-sent job of it, at
     * places drawn from {@code seed}. Forbidden under the causal ordering, ordinary here.
     */
    public static List<Step> withReplays(List<Step> schedule, long seed, int sleds) {
        Random r = new Random(seed ^ 0x5eed_0f_6a47L);
        List<Step> out = new ArrayList<>(schedule);
        for (int i = 0; i < 2; i++) {
            int at = 1 + r.nextInt(out.size());
            int via = r.nextInt(sleds);
            out.add(Math.min(at, out.size()), new Step.Resend(via, r.nextInt(8)));
            out.add(Math.min(at, out.size()), new Step.ReplayStart(via));
        }
        return out;
    }

    private static String target(Random r, int sleds) {
        int k = r.nextInt(4);
        int s = r.nextInt(sleds);
        if (k == 0) {
            return "*";
        } else if (k == 1) {
            return s + "," + r.nextInt(sleds);
        } else if (k == 2) {
            return String.format("913-0000019:SIM%04d", s);
        }
        return String.format("SIM%04d", s);
    }

    private static List<Set<Integer>> split(Random r, int sleds) {
        Set<Integer> one = new TreeSet<>();
        Set<Integer> two = new TreeSet<>();
        for (int i = 0; i < sleds; i++) {
            (r.nextBoolean() ? one : two).add(i);
        }
        return List.of(one, two);
    }

    /** A named fixed schedule. */
    public record Scenario(String name, List<Step> steps) {
    }

    /**
     * Ordered-sessions.md section 8 scenarios 1 to 6 as fixed schedules over 4 sleds (sled 3 is
     * X), for the signed ordering (in causal the signer steps do nothing and ReplayStart is the
     * forbidden replay).
     */
    public static List<Scenario> signedScenarios() {
        List<Scenario> out = new ArrayList<>();
        out.add(new Scenario("s1 an older session's sled runs on the newer side, returns, refuses the older one",
                List.of(new Step.Partition(List.of(Set.of(0, 1, 3), Set.of(2))), new Step.StartSession(0),
                        new Step.Submit(0, "*", false), new Step.Advance(3_000), new Step.EndJobs(),
                        new Step.Crash(3), new Step.Partition(List.of(Set.of(0, 1), Set.of(2, 3))), new Step.Restart(3),
                        new Step.Advance(2_000), new Step.StartSession(2), new Step.Submit(2, "*", false),
                        new Step.Advance(3_000), new Step.EndJobs(), new Step.Crash(3),
                        new Step.Partition(List.of(Set.of(0, 1, 3), Set.of(2))), new Step.Restart(3),
                        new Step.ReplayStart(0), new Step.Resend(0, 0), new Step.Submit(0, "*", false),
                        new Step.Advance(5_000), new Step.EndJobs(), new Step.Advance(3_000))));
        out.add(new Scenario("s2 a whole-rack cold boot; the grant is re-submitted; the session continues",
                List.of(new Step.StartSession(0), new Step.Submit(0, "*", false), new Step.Submit(1, "*", false),
                        new Step.Advance(3_000), new Step.EndJobs(), new Step.Advance(2_000), new Step.ColdBoot(),
                        new Step.Advance(3_000), new Step.Resend(0, 0), new Step.Resend(1, 1),
                        new Step.Submit(2, "*", false), new Step.Advance(5_000), new Step.EndJobs(),
                        new Step.Advance(3_000))));
        out.add(new Scenario("s3 an old grant replayed after a cold boot, its jobs re-sent",
                List.of(new Step.StartSession(0), new Step.Submit(0, "*", false), new Step.Advance(3_000),
                        new Step.EndJobs(), new Step.Partition(List.of(Set.of(0, 1, 2), Set.of(3))),
                        new Step.StartSession(1), new Step.Submit(1, "0,1", false), new Step.Advance(3_000),
                        new Step.EndJobs(), new Step.ColdBoot(), new Step.Advance(2_000), new Step.ReplayStart(3),
                        new Step.Resend(3, 0), new Step.Submit(3, "*", false), new Step.Advance(3_000),
                        new Step.EndJobs(), new Step.Heal(), new Step.Advance(5_000), new Step.EndJobs(),
                        new Step.Advance(3_000))));
        out.add(new Scenario("s4 drives wiped mid-session, re-provisioned with a fresh epoch",
                List.of(new Step.StartSession(0), new Step.Submit(0, "*", false), new Step.Advance(3_000),
                        new Step.EndJobs(), new Step.Wipe(3), new Step.Advance(1_000), new Step.Restart(3),
                        new Step.Advance(2_000), new Step.Submit(0, "*", false), new Step.Advance(3_000),
                        new Step.EndJobs(), new Step.StartSession(1), new Step.Submit(1, "*", false),
                        new Step.Advance(3_000), new Step.EndJobs(), new Step.Advance(3_000))));
        out.add(new Scenario("s5 a signer clock that goes backwards",
                List.of(new Step.StartSession(0), new Step.Submit(0, "*", false), new Step.Advance(3_000),
                        new Step.EndJobs(), new Step.SignerClockBack(600_000), new Step.StartSession(1),
                        new Step.Submit(1, "*", false), new Step.Advance(3_000), new Step.EndJobs(),
                        new Step.Advance(3_000))));
        out.add(new Scenario("s6 an epoch reused for a different session",
                List.of(new Step.StartSession(0), new Step.Submit(0, "*", false), new Step.Advance(3_000),
                        new Step.EndJobs(), new Step.ColdBoot(), new Step.SignerReusesEpoch(),
                        new Step.StartSession(1), new Step.Submit(1, "*", false), new Step.Advance(3_000),
                        new Step.EndJobs(), new Step.Advance(3_000))));
        return out;
    }

    /** A fixed schedule over {@code sleds} sleds. */
    public record Sized(String name, int sleds, List<Step> steps) {
    }

    private static Set<Integer> set(Integer... sleds) {
        return new TreeSet<>(List.of(sleds));
    }

    /**
     * Issue 34, "an operator's word holds": the cases its review found and the seeds this work's
     * checkers failed on (shrunk), as fixed schedules for the signed ordering.
     */
    public static List<Sized> operatorWordScenarios() {
        List<Sized> out = new ArrayList<>();
        out.add(new Sized("stop between a job's commit and its launch (a slow disk): the job is cancelled, never run",
                4, List.of(new Step.StartSession(0), new Step.SlowDisk(3, 600), new Step.Submit(0, "3", false),
                        new Step.Advance(200), new Step.StopNewest(1), new Step.Advance(3_000),
                        new Step.Submit(0, "*", false), new Step.Advance(3_000), new Step.EndJobs())));
        out.add(new Sized("cold boot after a job one sled ran, then jobs for every sled through each sled in turn", 4,
                List.of(new Step.StartSession(0), new Step.Submit(0, "*", false), new Step.Advance(2_000),
                        new Step.EndJobs(), new Step.Submit(1, "3", false), new Step.Advance(2_000), new Step.EndJobs(),
                        new Step.ColdBoot(), new Step.Advance(2_000), new Step.Submit(0, "*", false),
                        new Step.Submit(1, "*", false), new Step.Submit(2, "*", false), new Step.Submit(3, "*", false),
                        new Step.Advance(3_000), new Step.EndJobs())));
        out.add(new Sized("two quick jobs, a split-brain cold boot: the jobs this life ran on the losing side are told "
                + "again on the winning one (seed 136 shrunk)", 8, List.of(new Step.StartSession(5),
                        new Step.Submit(7, "*", false), new Step.Submit(3, "*", true),
                        new Step.SplitBrainColdBoot(List.of(set(1, 6), set(0, 2, 3, 4, 5, 7))), new Step.EndJobs())));
        out.add(new Sized("a commit that fails on a full slot, then a migration: its error is told again (seed 466 "
                + "shrunk)", 8, List.of(new Step.StartSession(6), new Step.Submit(7, "*", false), new Step.Advance(215),
                        new Step.StopNewest(3), new Step.Advance(754), new Step.SlotFault(0, 1, "NO_SPACE"),
                        new Step.Submit(3, "6", false), new Step.Advance(1_963), new Step.Submit(6, "*", false),
                        new Step.Submit(5, "*", false),
                        new Step.SplitBrainColdBoot(List.of(set(0, 5, 6), set(1, 2, 3, 4, 7))))));
        out.add(new Sized("issue 34 item 6: seed 82 of 32 sleds, shrunk (three split-brain cold boots, a job for every "
                + "sled, a re-send)", 32, List.of(new Step.StartSession(23),
                        new Step.SplitBrainColdBoot(List.of(set(1, 2, 3, 5, 6, 8, 9, 10, 11, 14, 15, 17, 18, 20, 21, 24,
                                25, 28, 29, 30), set(0, 4, 7, 12, 13, 16, 19, 22, 23, 26, 27, 31))),
                        new Step.Submit(20, "*", false),
                        new Step.SplitBrainColdBoot(List.of(set(0, 2, 3, 7, 8, 9, 10, 11, 12, 13, 14, 16, 19, 20, 22, 23,
                                27, 28, 30, 31), set(1, 4, 5, 6, 15, 17, 18, 21, 24, 25, 26, 29))),
                        new Step.Resend(28, 7), new Step.Advance(2_881),
                        new Step.SplitBrainColdBoot(List.of(set(0, 2, 4, 5, 8, 9, 10, 15, 16, 17, 19, 20, 22, 23, 29),
                                set(1, 3, 6, 7, 11, 12, 13, 14, 18, 21, 24, 25, 26, 27, 28, 30, 31))))));
        out.add(new Sized("a job for one sled, a cold boot whose sleds first boot alone: the record's job is told once "
                + "the sled can gossip (seed 135 of 32 sleds, shrunk)", 32, List.of(new Step.StartSession(23),
                        new Step.Crash(18), new Step.Restart(18),
                        new Step.SplitBrainColdBoot(List.of(set(3, 4, 6, 12, 15, 16, 17, 18, 19, 20, 23, 25, 26, 27, 28,
                                30), set(0, 1, 2, 5, 7, 8, 9, 10, 11, 13, 14, 21, 22, 24, 29, 31))),
                        new Step.Submit(7, "913-0000019:SIM0006", false), new Step.Resend(3, 7), new Step.Advance(2_642),
                        new Step.ColdBoot())));
        out.add(new Sized("a burn of a job a sled ran, cold boots, then the resumed chain re-sent: the burn arriving "
                + "after the job links it behind the head (seed 446 of 32 sleds, shrunk)", 32, List.of(
                        new Step.StartSession(24), new Step.Submit(8, "SIM0002", false),
                        new Step.Submit(28, "SIM0016", false), new Step.Submit(23, "*", true), new Step.Burn(8, 3),
                        new Step.Advance(2_323),
                        new Step.SplitBrainColdBoot(List.of(set(0, 3, 4, 7, 8, 13, 14, 15, 16, 18, 20, 23, 25, 26, 30),
                                set(1, 2, 5, 6, 9, 10, 11, 12, 17, 19, 21, 22, 24, 27, 28, 29, 31))),
                        new Step.ColdBoot(), new Step.Submit(1, "913-0000019:SIM0003", false), new Step.ColdBoot())));
        out.add(new Sized("the same, the burnt position's request re-sent before the burn and before the job after it "
                + "(seed 446 of 32 sleds, shrunk again)", 32, List.of(new Step.StartSession(24),
                        new Step.Submit(8, "SIM0002", false), new Step.Submit(28, "SIM0016", false),
                        new Step.Submit(23, "*", true), new Step.Burn(8, 3),
                        new Step.SplitBrainColdBoot(List.of(set(0, 3, 4, 7, 8, 13, 14, 15, 16, 18, 20, 23, 25, 26, 30),
                                set(1, 2, 5, 6, 9, 10, 11, 12, 17, 19, 21, 22, 24, 27, 28, 29, 31))),
                        new Step.Advance(2_052), new Step.Submit(26, "4", false), new Step.ColdBoot(),
                        new Step.Advance(2_874), new Step.ColdBoot())));
        return out;
    }

    /** Section 10 scenarios as fixed schedules over 4 sleds (sled 3 is X). */
    public static List<Scenario> scenarios() {
        List<Scenario> out = new ArrayList<>();
        addSessionsAndReboots(out);
        addHopsAndDrives(out);
        addRejoinsAndWipes(out);
        addIssue13(out);
        return out;
    }

    /** Scenarios 1, 9, 10, 12 and 14, and cold boots mid-session. */
    private static void addSessionsAndReboots(List<Scenario> out) {
        Set<Integer> left = Set.of(0, 1);
        Set<Integer> right = Set.of(2);
        out.add(new Scenario("1 partition flip-flop across sessions", List.of(
                new Step.Partition(List.of(Set.of(0, 1, 3), Set.of(2))), new Step.StartSession(0),
                new Step.Submit(0, "*", false), new Step.Advance(3_000), new Step.Crash(3),
                new Step.Partition(List.of(left, Set.of(2, 3))), new Step.Restart(3), new Step.StartSession(2),
                new Step.Submit(2, "*", false), new Step.Advance(3_000), new Step.Crash(3),
                new Step.Partition(List.of(Set.of(0, 1, 3), right)), new Step.Restart(3), new Step.Resend(0, 0),
                new Step.Advance(5_000))));
        out.add(new Scenario("9 queued jobs before a reboot run after it", List.of(new Step.StartSession(0),
                new Step.Submit(0, "*", false), new Step.Submit(0, "*", false), new Step.Submit(0, "*", false),
                new Step.Advance(2_000), new Step.Crash(3), new Step.Advance(1_000), new Step.Restart(3),
                new Step.Advance(5_000), new Step.EndJobs(), new Step.Advance(5_000))));
        out.add(new Scenario("10 a job running at a crash ends Interrupted, then the rack goes on", List.of(
                new Step.StartSession(0), new Step.Submit(0, "3", false), new Step.Advance(2_000), new Step.Crash(3),
                new Step.Restart(3), new Step.Advance(5_000), new Step.Submit(1, "*", false), new Step.Advance(5_000))));
        out.add(new Scenario("12 hop: a session on the other side is refused, a later one runs", List.of(
                new Step.Partition(List.of(Set.of(0, 3), Set.of(1, 2))), new Step.StartSession(0),
                new Step.Submit(0, "*", false), new Step.Advance(3_000), new Step.EndJobs(), new Step.StartSession(1),
                new Step.Submit(1, "*", false), new Step.Crash(3), new Step.Partition(List.of(Set.of(0), Set.of(1, 2, 3))),
                new Step.Restart(3), new Step.Advance(5_000), new Step.StartSession(1), new Step.Submit(1, "*", false),
                new Step.Advance(5_000))));
        out.add(new Scenario("14 a burn racing a start, a lost suffix and a restart", List.of(new Step.StartSession(0),
                new Step.Submit(0, "*", false), new Step.Skip(1), new Step.Submit(0, "*", false), new Step.Advance(500),
                new Step.Crash(3), new Step.Restart(3), new Step.Resend(2, 0), new Step.Advance(5_000))));
        out.add(new Scenario("cold boot and split-brain cold boot mid-session", List.of(new Step.StartSession(0),
                new Step.Submit(0, "*", false), new Step.Advance(2_000), new Step.ColdBoot(), new Step.Advance(3_000),
                new Step.Submit(0, "*", false), new Step.SplitBrainColdBoot(List.of(Set.of(0, 1), Set.of(2, 3))),
                new Step.StartSession(2), new Step.Submit(2, "*", false), new Step.Advance(3_000), new Step.Heal(),
                new Step.Advance(10_000))));
    }

    /** Scenarios 6, 2, 3, 4, 5 and 7: crashes in writes, hops, flip-flops, rejoins, lost suffixes and drive faults. */
    private static void addHopsAndDrives(List<Scenario> out) {
        out.add(new Scenario("6 crashes inside boundary writes and flaky drives", List.of(new Step.StartSession(0),
                new Step.CrashOnWrite(3), new Step.Submit(0, "*", false), new Step.Advance(1_000), new Step.Restart(3),
                new Step.SlotFault(2, 0, "TORN"), new Step.Submit(0, "*", false), new Step.Advance(1_000),
                new Step.SlotFault(1, 1, "NO_SPACE"), new Step.Submit(0, "*", false), new Step.Crash(2),
                new Step.Restart(2), new Step.Advance(5_000))));
        out.add(new Scenario("2 three sessions, X hopping across them", List.of(
                new Step.Partition(List.of(Set.of(0, 3), Set.of(1, 2))), new Step.StartSession(0),
                new Step.Submit(0, "*", false), new Step.Advance(3_000), new Step.EndJobs(), new Step.StartSession(1),
                new Step.Submit(1, "*", false), new Step.Crash(3), new Step.Partition(List.of(Set.of(0), Set.of(1, 2, 3))),
                new Step.Restart(3), new Step.Advance(3_000), new Step.Heal(), new Step.Advance(3_000),
                new Step.StartSession(2), new Step.Submit(2, "*", false), new Step.Advance(3_000), new Step.EndJobs(),
                new Step.Crash(3), new Step.Partition(List.of(Set.of(0, 3), Set.of(1, 2))), new Step.Restart(3),
                new Step.Resend(0, 0), new Step.Advance(5_000))));
        out.add(new Scenario("3 universe flip-flop: X runs in U1, then U2, then U1 again", List.of(
                new Step.SplitBrainColdBoot(List.of(Set.of(0, 1), Set.of(2, 3))), new Step.Advance(3_000),
                new Step.StartSession(2), new Step.Submit(2, "*", false), new Step.Advance(2_000), new Step.EndJobs(),
                new Step.Partition(List.of(Set.of(0, 1, 3), Set.of(2))), new Step.Advance(5_000),
                new Step.StartSession(0), new Step.Submit(0, "*", false), new Step.Advance(2_000), new Step.EndJobs(),
                new Step.Partition(List.of(Set.of(0, 1), Set.of(2, 3))), new Step.Advance(5_000), new Step.Resend(2, 0),
                new Step.Advance(5_000))));
        out.add(new Scenario("4 rejoin through a lagging peer", List.of(new Step.StartSession(0),
                new Step.Partition(List.of(Set.of(0, 3), Set.of(1, 2))), new Step.Submit(0, "*", false),
                new Step.Advance(2_000), new Step.EndJobs(), new Step.Crash(3),
                new Step.Partition(List.of(Set.of(0), Set.of(1, 2, 3))), new Step.Restart(3), new Step.Advance(3_000),
                new Step.Heal(), new Step.Advance(5_000), new Step.Submit(0, "*", false), new Step.Advance(5_000))));
        out.add(new Scenario("5 lost suffix: X ran jobs nobody saw, restarts", List.of(new Step.StartSession(0),
                new Step.Advance(1_000), new Step.Partition(List.of(Set.of(0, 1, 2), Set.of(3))),
                new Step.Submit(3, "3", false), new Step.Advance(500), new Step.EndJobs(), new Step.Submit(3, "3", false),
                new Step.Advance(500), new Step.Crash(3), new Step.Heal(), new Step.Restart(3), new Step.Resend(0, 0),
                new Step.Submit(0, "*", false), new Step.Advance(5_000))));
        out.add(new Scenario("7 torn, missing, bit-flipped and unwritable slots", List.of(new Step.StartSession(0),
                new Step.Submit(0, "*", false), new Step.Advance(1_000), new Step.SlotFault(3, 0, "bit-flip"),
                new Step.Crash(3), new Step.Restart(3), new Step.SlotFault(2, 1, "LOST_ON_CRASH"),
                new Step.Submit(1, "*", false), new Step.Advance(1_000), new Step.Crash(2), new Step.Restart(2),
                new Step.SlotFault(1, 0, "READ_ONLY"), new Step.Submit(0, "*", false), new Step.Advance(3_000))));
    }

    /** Scenarios 8, 11, 13, 15, 16, 19 and 20: sleds without a record, rejoins, migrations and lost starts. */
    private static void addRejoinsAndWipes(List<Scenario> out) {
        out.add(new Scenario("8 a sled without a record joins a live session", List.of(new Step.StartSession(0),
                new Step.Submit(0, "*", false), new Step.Advance(2_000), new Step.EndJobs(), new Step.Wipe(3),
                new Step.Restart(3), new Step.Advance(3_000), new Step.Submit(0, "*", false), new Step.Advance(3_000),
                new Step.StartSession(1), new Step.Submit(1, "*", false), new Step.Advance(5_000))));
        out.add(new Scenario("11 rejoin through a peer that shows an older session", List.of(new Step.StartSession(0),
                new Step.Submit(0, "*", false), new Step.Advance(2_000), new Step.EndJobs(),
                new Step.Partition(List.of(Set.of(0, 3), Set.of(1, 2))), new Step.StartSession(0),
                new Step.Submit(0, "*", false), new Step.Advance(2_000), new Step.Crash(3),
                new Step.Partition(List.of(Set.of(0), Set.of(1, 2, 3))), new Step.Restart(3), new Step.Advance(3_000),
                new Step.Heal(), new Step.Advance(5_000))));
        out.add(new Scenario("13 a migration while a commit is queued", List.of(new Step.StartSession(2),
                new Step.SplitBrainColdBoot(List.of(Set.of(0, 1), Set.of(2, 3))), new Step.Advance(2_000),
                new Step.StartSession(2), new Step.Submit(2, "*", true), new Step.Submit(2, "*", true), new Step.Heal(),
                new Step.Advance(5_000), new Step.EndJobs(), new Step.Advance(3_000))));
        out.add(new Scenario("15 a wipe, an isolated boot and a commit in a fresh universe, then the old one",
                List.of(new Step.StartSession(0), new Step.Submit(0, "*", false), new Step.Advance(2_000),
                        new Step.EndJobs(), new Step.Wipe(3), new Step.Partition(List.of(Set.of(0, 1, 2), Set.of(3))),
                        new Step.Restart(3), new Step.StartSession(3), new Step.Submit(3, "3", false),
                        new Step.Advance(2_000), new Step.EndJobs(), new Step.Heal(), new Step.Advance(5_000),
                        new Step.Resend(0, 0), new Step.Advance(3_000))));
        out.add(new Scenario("16 a session start the universe loses, then repeated reboots", List.of(
                new Step.Partition(List.of(Set.of(0, 1, 2), Set.of(3))), new Step.StartSession(3),
                new Step.Submit(3, "3", false), new Step.Advance(500), new Step.Crash(3), new Step.Heal(),
                new Step.Restart(3), new Step.Advance(3_000), new Step.StartSession(0), new Step.Submit(0, "*", false),
                new Step.Advance(3_000), new Step.Crash(3), new Step.Restart(3), new Step.Advance(3_000),
                new Step.StartSession(1), new Step.Submit(1, "*", false), new Step.Advance(5_000))));
        out.add(new Scenario("19 a wiped sled rejoins through an empty peer, then catches up", List.of(
                new Step.StartSession(0), new Step.Submit(0, "*", false), new Step.Advance(2_000), new Step.EndJobs(),
                new Step.Wipe(3), new Step.Partition(List.of(Set.of(0, 1, 2), Set.of(3))), new Step.Restart(3),
                new Step.Advance(1_000), new Step.Heal(), new Step.Advance(5_000), new Step.Resend(1, 0),
                new Step.Advance(3_000))));
        out.add(new Scenario("20 sleds migrating into a universe mid-session", List.of(
                new Step.SplitBrainColdBoot(List.of(Set.of(0, 1, 2), Set.of(3))), new Step.Advance(2_000),
                new Step.StartSession(0), new Step.Submit(0, "*", false), new Step.Advance(1_000), new Step.Wipe(2),
                new Step.Restart(2), new Step.Heal(), new Step.Advance(5_000), new Step.Submit(0, "*", false),
                new Step.Advance(5_000))));
    }

    /** Issue 13: burns racing starts, behind the heads and re-sent, with crashes around them. */
    private static void addIssue13(List<Scenario> out) {
        out.add(new Scenario("issue 13: a burn, jobs after it, a restart (seed 194 shrunk: ran a job twice)",
                List.of(new Step.StartSession(0), new Step.Skip(3), new Step.Submit(1, "*", false),
                        new Step.Submit(2, "*", true), new Step.Crash(0), new Step.Restart(0), new Step.Advance(3_000))));
        out.add(new Scenario("issue 13: a burn behind the heads, a re-sent burn, a stop, crashes after them",
                List.of(new Step.StartSession(0), new Step.Submit(0, "1", false), new Step.Submit(0, "*", false),
                        new Step.Advance(1_000), new Step.EndJobs(), new Step.Burn(2, 0), new Step.Submit(1, "*", true),
                        new Step.StopJob(1, 2), new Step.Advance(500), new Step.Crash(0), new Step.Restart(0),
                        new Step.ResendBurn(3, 0), new Step.CrashAfterCommit(2), new Step.Submit(3, "*", false),
                        new Step.Advance(3_000), new Step.Restart(2), new Step.Advance(3_000))));
        out.add(new Scenario("issue 13: the operator's sled goes down in the calm tail (seed 4694 shrunk: a job "
                + "left queued; the first store given its time to land, D-036)", List.of(new Step.StartSession(0),
                        new Step.Submit(2, "0", false), new Step.Advance(SlowWriter.LATENCY_MILLIS),
                        new Step.CrashOnWrite(0), new Step.Burn(1, 4), new Step.Submit(2, "3", true))));
    }
}
