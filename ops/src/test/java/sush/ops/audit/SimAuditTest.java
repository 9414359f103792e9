package sush.ops.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sush.projections.fold.Ordering;

/**
 * Issue 40 (D-060): a slice of {@code ./bench.sh audit} in the suite. Simulated racks sign
 * receipts with keys of one rack CA; every session's bundle passes {@code sush audit verify}'s
 * check with no false alarm, and every mutation of it is caught and named. Seed 258 is the one
 * whose sled said an IO error and an interruption of one job that never started (its commit
 * failed on a full slot and the next universe told the record's interruption): an ending with no
 * commit receipt, a false alarm until the sled stopped saying it.
 */
class SimAuditTest {
    @TempDir
    Path dir;

    private static void holds(SimAudit.Figures f) {
        assertTrue(f.falseAlarms().isEmpty(), "false alarms: " + f.falseAlarms());
        assertTrue(f.missed().isEmpty(), "mutations not caught: " + f.missed());
        assertEquals(0, f.simViolations(), "the simulator's own checkers found something");
        for (String kind : List.of("commit", "end", "refuse")) {
            assertTrue(f.kinds().getOrDefault(kind, 0L) > 0, "no " + kind + " receipt was signed: " + f.kinds());
        }
        for (String m : List.of("altered byte", "missing commit", "second commit", "sequences swapped",
                "revoked sled")) {
            assertTrue(f.mutations().containsKey(m) && f.mutations().get(m)[0] > 0, "never tried: " + m);
        }
    }

    @Test
    void signedRacksReceiptsAuditTrueAndEveryMutationIsCaught() throws Exception {
        SimAudit audit = new SimAudit(dir);
        holds(audit.run(1, 12, 8, Ordering.SIGNED, false));
        SimAudit.Figures seed258 = audit.run(258, 258, 8, Ordering.SIGNED, false);
        assertTrue(seed258.falseAlarms().isEmpty(), "seed 258: " + seed258.falseAlarms());
    }

    @Test
    void causalRacksReceiptsAuditTrueAndEveryMutationIsCaught() throws Exception {
        holds(new SimAudit(dir).run(1, 10, 8, Ordering.CAUSAL, false));
    }
}
