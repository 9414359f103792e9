package sush.locker.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A slice of the signed ordering's model check (the command explores more), and each break caught.
 * The slice is sized to the breaks: about twice the states the search needs to report the last of
 * them (measured: FLOOR at 136 states, RULE5 at 28,374, RULE6 at 97,180).
 */
class SignedModelCheckTest {
    private static final SignedModelCheck.Config SLICE = SignedModelCheck.Config.standard(200_000);

    @Test
    void noJobRunsTwiceUnderTheSignedRules() {
        SignedModelCheck.Report r = SignedModelCheck.run(SLICE, SignedModelCheck.Break.NONE);
        assertFalse(r.violated(), () -> r.violation() + "\n" + String.join("\n", r.counterexample()));
        // Sized to the breaks the slice must catch: RULE6, the last, at 97,180 states.
        assertTrue(r.states() >= 200_000 || r.exhaustive(), "explored " + r.states());
        assertTrue(r.admits() > 0 && r.refusals() > 0, "both admissions and refusals were reached");
    }

    @Test
    void breakingResumptionTheSupersededRuleOrTheFloorIsCaught() {
        for (SignedModelCheck.Break b : new SignedModelCheck.Break[] {SignedModelCheck.Break.RULE5,
                SignedModelCheck.Break.RULE6, SignedModelCheck.Break.FLOOR}) {
            SignedModelCheck.Report r = SignedModelCheck.run(SLICE, b);
            assertTrue(r.violated(), b + " was not caught in " + r.states() + " states");
            // Without resumption a job runs twice. Admitting a superseded session or one at the
            // floor is caught first by the record's own invariants (O1, committed above the
            // floor): the builder refuses the commit (in a sled: a failed commit, no launch).
            assertTrue(r.violation().contains(b == SignedModelCheck.Break.RULE5 ? "ran twice"
                    : "the record builder refused an admitted job"), r.violation());
        }
    }
}
