package sush.locker.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import sush.locker.admission.Admission;
import sush.locker.admission.Verdict;

/** The CI slice of the model check (the command goes further), and proof that it can fail. */
class ModelCheckTest {
    @Test
    void noJobRunsTwiceInTheBoundedWorld() {
        long states = 0;
        for (ModelCheck.Config c : new ModelCheck.Config[] {ModelCheck.Config.standard(0, true, 40_000),
                ModelCheck.Config.standard(1, true, 40_000), ModelCheck.Config.standard(0, false, 30_000)}) {
            ModelCheck.Report r = ModelCheck.run(c);
            assertFalse(r.violated(), r.violation() + "\n" + String.join("\n", r.counterexample()));
            assertTrue(r.admits() > 0 && r.refusals() > 0, "the search reached both verdicts");
            // D-029: the daemon writes the slots in parallel, and the search drives the crash only
            // that can make (the later slot written, the earlier not).
            assertTrue(r.laterSlotOnlyCrashes() > 0, "crashes leaving only the later slot written");
            states += r.states();
        }
        assertTrue(states >= 100_000, states + " states");
    }

    @Test
    void oneSlotAfterTheOtherNoJobRunsTwiceEitherAndNoCrashLeavesOnlyTheLaterSlot() {
        ModelCheck.Report r = ModelCheck.run(ModelCheck.Config.standard(0, true, 30_000).sequential());
        assertFalse(r.violated(), r.violation() + "\n" + String.join("\n", r.counterexample()));
        assertTrue(r.admits() > 0);
        assertTrue(r.laterSlotOnlyCrashes() == 0, r.laterSlotOnlyCrashes() + " crashes");
    }

    @Test
    void admittingBelowTheFloorIsCaughtWithAShortestCounterexample() {
        ModelCheck.Report r = ModelCheck.run(ModelCheck.Config.standard(0, true, 200_000), in -> {
            Verdict v = Admission.decide(in);
            return v instanceof Verdict.Skip && ((Verdict.Skip) v).reason()
                    == sush.projections.message.Message.SkipReason.BELOW_FLOOR ? new Verdict.Admit("2 (broken)") : v;
        });
        assertTrue(r.violated(), "states " + r.states());
        assertTrue(r.violation().contains("executes twice"), r.violation());
        // Breadth first: the wipe makes the record forget A0, and only the floor remembers it.
        assertTrue(r.counterexample().size() <= 5, String.join("\n", r.counterexample()));
        assertTrue(r.counterexample().contains("X's drives are wiped"), String.join("\n", r.counterexample()));
    }
}
