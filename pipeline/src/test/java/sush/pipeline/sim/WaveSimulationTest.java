package sush.pipeline.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import sush.projections.fixtures.Signers;
import sush.projections.fold.Ordering;
import sush.projections.fold.Settlement;

/**
 * Issue 40 in the simulator's slice: one submit in three signed in waves (random size and
 * budget, some runs failing), under every fault the schedules bring, in both orderings; the wave
 * checkers (at most N at once, at most K + N failed runs, every spent budget true) and every other
 * checker pass, and the runs reach what they test: spent budgets, and the operator skipping the
 * part of a sled that is down. {@code ./bench.sh sim} runs any number (waves are on there).
 */
class WaveSimulationTest {
    static final int SEEDS = Integer.getInteger("sush.sim.waves.seeds", 60);

    private static void keepsEveryPromise(Ordering ordering) {
        List<String> failures = new ArrayList<>();
        Map<String, Integer> kinds = new TreeMap<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            Simulation sim = new Simulation(seed, 5, Signers.KEY, Signers.TRUST, ordering)
                    .forgetting(Settlement.Break.NONE).waves();
            if (ordering == Ordering.SIGNED) {
                sim.signerClockGoesBack();
            }
            Simulation.Result r = sim.run(SimMain.schedule(seed, 5, ordering == Ordering.SIGNED));
            r.faultKinds().forEach(k -> kinds.merge(k, 1, Integer::sum));
            if (!r.ok()) {
                failures.add(r.summary());
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
        assertTrue(kinds.getOrDefault("waves", 0) >= SEEDS / 2, "jobs in waves in " + kinds.get("waves") + " seeds");
        assertTrue(kinds.getOrDefault("budget-spent", 0) >= 3, "budgets spent in " + kinds.get("budget-spent")
                + " seeds");
        assertTrue(kinds.getOrDefault("sled-skip", 0) >= 1, "the operator skipped a down sled's part in "
                + kinds.get("sled-skip") + " seeds");
    }

    @Test
    void wavesKeepTheirPromisesInTheSignedOrdering() {
        keepsEveryPromise(Ordering.SIGNED);
    }

    @Test
    void wavesKeepTheirPromisesInTheCausalOrdering() {
        keepsEveryPromise(Ordering.CAUSAL);
    }
}
