package sush.locker.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The CI slice of the chain check (`./bench.sh chaincheck` runs the whole world of issue 13). */
class ChainCheckTest {
    @Test
    void everyDeliveryOrderOfASmallChainKeepsTheHeadAheadOfWhatRan() {
        // Every forked state is also replayed from the start and compared: the fork is sound.
        ChainCheck.checkCopies = true;
        ChainCheck.Report r;
        try {
            r = ChainCheck.run(new ChainCheck.Config(3, 2, true, true, true, 150_000), 2);
        } finally {
            ChainCheck.checkCopies = false;
        }
        assertFalse(r.violated(), r.violation() + "\n" + String.join("\n", r.counterexample()));
        assertTrue(r.states() >= 150_000, r.states() + " states");
    }

    @Test
    void scriptsThatSendTheSameMessagesAreOneWorld() {
        // A burn of a signed position or a stop may stand anywhere after its job: one world.
        java.util.List<ChainCheck.World> worlds = ChainCheck.canonicalWorlds(new ChainCheck.Config(3, 2, true, true,
                true, 1));
        assertTrue(worlds.size() == 3756, worlds.size() + " worlds");
        java.util.Set<java.util.List<String>> seen = new java.util.HashSet<>();
        for (ChainCheck.World w : worlds) {
            java.util.List<String> m = new java.util.ArrayList<>();
            w.messages().forEach(x -> m.add(java.util.HexFormat.of().formatHex(
                    sush.projections.message.MessageCodec.encode(x))));
            java.util.Collections.sort(m);
            assertTrue(seen.add(m), "two worlds send " + m);
        }
    }
}
