package sush.locker.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The CI slice of the chain check (`./bench.sh chaincheck` runs the whole world of issue 13). */
class ChainCheckTest {
    @Test
    void everyDeliveryOrderOfASmallChainKeepsTheHeadAheadOfWhatRan() {
        ChainCheck.Report r = ChainCheck.run(new ChainCheck.Config(3, 2, true, true, true, 400_000));
        assertFalse(r.violated(), r.violation() + "\n" + String.join("\n", r.counterexample()));
        assertTrue(r.states() >= 50_000, r.states() + " states");
    }
}
