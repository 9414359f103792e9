package sush.pipeline.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import sush.projections.fixtures.Signers;
import sush.projections.fold.Ordering;

/**
 * Issue 39's identity over a long life in the simulator (D-053): restarted sleds take their
 * identity back from their bookmarks, so the largest version stays near its size after the first
 * restarts (forking at every restart, it grows with them); a deliberately wrong keeper (bookmarks
 * that claim nothing was sent) is caught by the convergence checker (a sled that never gets a
 * message its earlier life sent, since its new versions make it look seen). {@code ./bench.sh sim
 * --restarts N [--identity keep|fork|stale]} runs any number.
 */
class IdentitySimulationTest {
    private static Simulation.Restarts restarts(Simulation.Identity identity, int n) {
        return new Simulation(1, 5, Signers.KEY, Signers.TRUST, Ordering.CAUSAL).identity(identity)
                .restarts(n, new Random(1));
    }

    @Test
    void bookmarksKeepVersionsBoundedOverRestartsAndForksDoNot() {
        Simulation.Restarts keep = restarts(Simulation.Identity.KEEP, 120);
        Simulation.Restarts fork = restarts(Simulation.Identity.FORK, 120);
        System.out.printf("largest version after 32 and 120 restarts: bookmarks %d -> %d bytes, forks %d -> %d%n",
                keep.versionAfterFirst32(), keep.versionLast(), fork.versionAfterFirst32(), fork.versionLast());
        assertEquals(List.of(), keep.violations());
        assertEquals(List.of(), fork.violations());
        assertTrue(keep.versionMax() <= 2 * keep.versionAfterFirst32(), () -> "within 2x with bookmarks: "
                + keep.versionAfterFirst32() + " -> max " + keep.versionMax());
        assertTrue(fork.versionLast() > 2 * fork.versionAfterFirst32(), () -> "forks grow: "
                + fork.versionAfterFirst32() + " -> " + fork.versionLast());
    }

    /** Seeds 100 and 117 of 8 causal sleds (of 300): a crash with a send its provider never saw. */
    @Test
    void aStaleBookmarkIsCaughtAndTheRightOneKeepsEveryPromise() {
        for (long seed : new long[] {100, 117}) {
            Simulation.Result stale = new Simulation(seed, 8, Signers.KEY, Signers.TRUST, Ordering.CAUSAL)
                    .identity(Simulation.Identity.STALE).run(SimMain.schedule(seed, 8, false));
            assertTrue(stale.violations().stream().anyMatch(v -> v.startsWith("not converged")),
                    () -> "seed " + seed + ": " + stale.summary());
            Simulation.Result keep = new Simulation(seed, 8, Signers.KEY, Signers.TRUST, Ordering.CAUSAL)
                    .run(SimMain.schedule(seed, 8, false));
            assertTrue(keep.ok(), () -> "seed " + seed + ": " + keep.summary());
        }
    }
}
