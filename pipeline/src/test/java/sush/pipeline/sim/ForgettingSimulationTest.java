package sush.pipeline.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import sush.projections.fixtures.Signers;
import sush.projections.fold.Ordering;
import sush.projections.fold.Settlement;

/**
 * Issue 39 in the simulator's slice: the sleds send watermarks and forget what their settlement
 * answers, under every fault the schedules bring (crashes and restarts after the positions they
 * resume at were forgotten, partitions, migrations, cold boots, wipes), in both orderings; the
 * checkers add "nothing live is forgotten" (every sled saw a message before any forgot it, and
 * every sled a request targets ended it), "stuck on forgotten" and "jumped over". Each new checker
 * is seen to catch a deliberately wrong rule. {@code ./bench.sh sim --forgetting} runs any number.
 */
class ForgettingSimulationTest {
    static final int SEEDS = Integer.getInteger("sush.sim.forgetting.seeds", 100);

    private static Simulation.Result run(long seed, int sleds, Ordering ordering, Settlement.Break rule) {
        Simulation sim = new Simulation(seed, sleds, Signers.KEY, Signers.TRUST, ordering).forgetting(rule);
        if (ordering == Ordering.SIGNED) {
            sim.signerClockGoesBack();
        }
        return sim.run(SimMain.schedule(seed, sleds, ordering == Ordering.SIGNED));
    }

    private static void keepsEveryPromise(Ordering ordering) {
        List<String> failures = new ArrayList<>();
        Set<String> kinds = new TreeSet<>();
        int forgot = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            Simulation.Result r = run(seed, 5, ordering, Settlement.Break.NONE);
            kinds.addAll(r.faultKinds());
            forgot += r.faultKinds().contains("forgot") ? 1 : 0;
            if (!r.ok()) {
                failures.add(r.summary());
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
        assertTrue(forgot >= SEEDS / 3, "sleds forgot in " + forgot + " of " + SEEDS + " schedules");
        assertTrue(kinds.contains("skeleton-jump"), "a restarted sled jumped over forgotten positions: " + kinds);
    }

    @Test
    void forgettingKeepsEveryPromiseInTheCausalOrdering() {
        keepsEveryPromise(Ordering.CAUSAL);
    }

    @Test
    void forgettingKeepsEveryPromiseInTheSignedOrdering() {
        keepsEveryPromise(Ordering.SIGNED);
    }

    @Test
    void everyFixedScenarioKeepsItsPromisesWhileForgetting() {
        for (Schedules.Scenario s : Schedules.scenarios()) {
            Simulation.Result r = new Simulation(7, 4, Signers.KEY, Signers.TRUST).forgetting(Settlement.Break.NONE)
                    .run(s.steps());
            assertTrue(r.ok(), s.name() + ": " + r.summary());
        }
    }

    private static int caught(Settlement.Break rule, int seeds, Predicate<String> violation) {
        int caught = 0;
        for (long seed = 1; seed <= seeds; seed++) {
            if (run(seed, 5, Ordering.CAUSAL, rule).violations().stream().anyMatch(violation)) {
                caught++;
            }
        }
        return caught;
    }

    @Test
    void forgettingWhatNotEverySledSawIsCaught() {
        int n = caught(Settlement.Break.UNSEEN, 20, v -> v.startsWith("forgotten unseen"));
        assertTrue(n >= 10, "caught in " + n + " of 20");
    }

    @Test
    void forgettingARequestBeforeEveryTargetEndedItIsCaught() {
        int n = caught(Settlement.Break.UNENDED, 30, v -> v.startsWith("forgotten unended"));
        assertTrue(n >= 5, "caught in " + n + " of 30");
    }

    @Test
    void forgettingTheOrdinalOfAResumePointIsCaught() {
        // Seed 48 (found in development): a sled restarts at a forgotten position it cannot place.
        Simulation.Result r = run(48, 5, Ordering.CAUSAL, Settlement.Break.LOST_RESUME);
        assertTrue(r.violations().stream().anyMatch(v -> v.startsWith("stuck on forgotten")), r.summary());
        assertTrue(run(48, 5, Ordering.CAUSAL, Settlement.Break.NONE).ok());
    }
}
