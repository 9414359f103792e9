package sush.pipeline.sim;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import sush.projections.fixtures.Signers;
import sush.projections.fold.Ordering;

/**
 * Issue 34, "an operator's word holds", in the simulator: the fixed schedules of its findings
 * keep every promise with the CLI's client, and the checkers catch the client of before (a job
 * placed at a sled's {@code next_job}, a resume that re-submits the grant alone).
 */
class OperatorWordTest {
    private static Simulation.Result run(Schedules.Sized s, Simulation.Client client) {
        return new Simulation(7, s.sleds(), Signers.KEY, Signers.TRUST, Ordering.SIGNED).client(client).run(s.steps());
    }

    private static Schedules.Sized named(String prefix) {
        return Schedules.operatorWordScenarios().stream().filter(s -> s.name().startsWith(prefix)).findFirst()
                .orElseThrow();
    }

    @Test
    void everyOperatorWordScenarioKeepsItsPromises() {
        for (Schedules.Sized s : Schedules.operatorWordScenarios()) {
            Simulation.Result r = run(s, Simulation.Client.KEPT_CHAIN);
            assertTrue(r.ok(), s.name() + ": " + r.summary());
        }
    }

    @Test
    void aStopThatArrivesWhileTheCommitIsOnTheDiskCancelsTheJob() {
        Simulation.Result r = run(named("stop between"), Simulation.Client.KEPT_CHAIN);
        assertTrue(r.faultKinds().contains("stop-in-commit-window"), r.summary());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void theCheckersCatchTheClientOfBeforeAfterAColdBoot() {
        // A resume that re-submits the grant alone leaves the sleds that did not run the targeted
        // job at its position, which no message fills: the next jobs never run there.
        Simulation.Result r = run(named("cold boot after a job one sled ran"), Simulation.Client.SLED_NEXT_JOB);
        assertFalse(r.ok(), "the client of before must fail: " + r.summary());
    }
}
