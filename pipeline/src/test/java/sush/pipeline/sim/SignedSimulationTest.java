package sush.pipeline.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import sush.projections.fixtures.Signers;
import sush.projections.fold.Ordering;

/** The simulator under the signed ordering (ordered-sessions.md section 8); `./bench.sh sim --ordering signed` runs more. */
class SignedSimulationTest {
    /** Seeds of the suite's slice of random signed schedules. */
    static final int SEEDS = Integer.getInteger("sush.sim.signed.seeds", 150);
    static final int SEEDS_32 = Integer.getInteger("sush.sim.signed.seeds32", 20);

    private static Simulation signed(long seed, int sleds) {
        return new Simulation(seed, sleds, Signers.KEY, Signers.TRUST, Ordering.SIGNED);
    }

    private static Map<String, Schedules.Scenario> scenarios() {
        return Schedules.signedScenarios().stream().collect(Collectors.toMap(s -> s.name().substring(0, 2),
                Function.identity()));
    }

    private static Simulation.Result scenario(String id) {
        Schedules.Scenario s = scenarios().get(id);
        Simulation.Result r = signed(7, 4).run(s.steps());
        assertTrue(r.ok(), s.name() + ": " + r.summary() + "\n" + String.join("\n", r.trace()));
        return r;
    }

    @Test
    void anOlderSessionIsRefusedWhereANewerOneRan() {
        Simulation.Result r = scenario("s1");
        assertTrue(r.skips().getOrDefault("SUPERSEDED", 0L) > 0, r.summary());
        assertEquals(0, r.hops(), "no hop refusals in the signed ordering");
    }

    @Test
    void aColdBootedSessionContinuesAndRunsNothingTwice() {
        Simulation.Result r = scenario("s2");
        // Three jobs for every one of 4 sleds, each once (the safety checker refuses a second run),
        // and the calm tail's three jobs for every sled (issue 34: asked through three sleds in turn).
        assertEquals(12 + 12, r.launches(), r.summary());
        assertTrue(r.faultKinds().contains("session-resume"), r.summary());
        assertTrue(r.skips().getOrDefault("ALREADY_HANDLED", 0L) > 0, "re-sent earlier jobs: " + r.summary());
    }

    @Test
    void aReplayedOldGrantRunsNothingTwice() {
        Simulation.Result r = scenario("s3");
        assertTrue(r.faultKinds().contains("replayed-grant"), r.summary());
        // The first session's first job on 4 sleds, the second's on sleds 0 and 1, and the first
        // session's next job on sled 3 alone (the other side holds the newer grant).
        assertEquals(7, r.launches(), r.summary());
    }

    @Test
    void aWipedSledRefusesTheRunningSessionAndRunsTheNextOne() {
        Simulation.Result r = scenario("s4");
        assertTrue(r.skips().getOrDefault("BELOW_FLOOR", 0L) > 0, r.summary());
        assertTrue(r.faultKinds().contains("wipe-reprovision"), r.summary());
        // Session 1: 4 + the second job on the 3 sleds not wiped; session 2: all 4; then the calm
        // tail's three jobs for every sled (issue 34).
        assertEquals(11 + 12, r.launches(), r.summary());
    }

    @Test
    void aSignerWhoseClockWentBackIssuesSessionsThatAreNeverActive() {
        Simulation.Result r = scenario("s5");
        assertEquals(4, r.launches(), "only the first session's job ran: " + r.summary());
    }

    @Test
    void aReusedEpochIsRefusedWithItsError() {
        // Which of two sessions of one epoch sorts newer depends on the signer's key (Signers.KEY,
        // new in each test run until issue 37 made it a seed's) and the seed's client nonces:
        // about one seed in two. Six seeds were not enough in one CI run out of many (all six
        // sorted the other way); every seed is still checked for safety, and the search goes on
        // until one sorts newer.
        boolean reported = false;
        for (long seed = 1; seed <= 6 || (!reported && seed <= 64); seed++) {
            Simulation.Result r = signed(seed, 4).run(scenarios().get("s6").steps());
            assertTrue(r.ok(), r.summary());
            assertTrue(r.launches() >= 4 && r.launches() <= 8, r.summary());
            reported |= r.faultKinds().contains("error-epoch_reuse");
        }
        assertTrue(reported, "the reused epoch's session sorts newer on some seed of 64, and is refused there");
    }

    @Test
    void randomSignedSchedulesWithReplayedGrantsNeverRunAJobTwice() {
        List<String> failures = new ArrayList<>();
        Set<String> kinds = new TreeSet<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            Simulation.Result r = signed(seed, 8).signerClockGoesBack().run(SimMain.schedule(seed, 8, true));
            kinds.addAll(r.faultKinds());
            if (!r.ok()) {
                failures.add(r.summary());
            }
        }
        assertEquals(List.of(), failures);
        for (String k : List.of("replayed-grant", "session-resume", "wipe-reprovision", "signer-clock-back",
                "cold-boot", "split-brain-cold-boot", "migration", "stop-in-commit-window",
                "cold-boot-after-targeted-job", "evicted-job-sessions", "evicted-grants", "evicted-session-stops",
                "evicted-chain")) {
            assertTrue(kinds.contains(k), k + " never fired: " + kinds);
        }
    }

    /** Issue 34 item 6: more than a handful of seeds at 32 sleds, in the suite too (the bar runs 1,000). */
    @Test
    void randomSignedSchedulesOfAThirtyTwoSledRackKeepEveryPromise() {
        List<String> failures = new ArrayList<>();
        for (long seed = 1; seed <= SEEDS_32; seed++) {
            Simulation.Result r = signed(seed, 32).signerClockGoesBack().run(SimMain.schedule(seed, 32, true));
            if (!r.ok()) {
                failures.add(r.summary());
            }
        }
        assertEquals(List.of(), failures);
    }

    @Test
    void theSignedOrderingRefusesFewerOnTheSameSchedules() {
        long[] signed = new long[2];
        long[] causal = new long[2];
        for (long seed = 1; seed <= 60; seed++) {
            List<Step> steps = SimMain.schedule(seed, 8, false);
            Simulation.Result s = signed(seed, 8).run(steps);
            Simulation.Result c = new Simulation(seed, 8, Signers.KEY, Signers.TRUST, Ordering.CAUSAL).run(steps);
            assertTrue(s.ok() && c.ok(), s.summary() + "\n" + c.summary());
            signed[0] += s.refused();
            signed[1] += s.targeted();
            causal[0] += c.refused();
            causal[1] += c.targeted();
        }
        double perSigned = 1000.0 * signed[0] / signed[1];
        double perCausal = 1000.0 * causal[0] / causal[1];
        assertTrue(perSigned < perCausal, "signed " + perSigned + " per 1,000, causal " + perCausal);
    }
}
