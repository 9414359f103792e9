package sush.locker.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import sush.projections.message.MessageCodec;

/**
 * The CI slice of the chain check (`./bench.sh chaincheck` runs the whole world of issue 13), and
 * each head rule broken on purpose ({@link HeadBreak}) caught in it. The slice is sized to those
 * breaks: over twice the states the search needs to report the last of them (measured, two
 * threads, copies checked: STOP_IGNORED and LAUNCH_DESPITE_STOP at 280 states, RUNNING_STOP_CANCELS
 * at 298, KEPT_STOP_IGNORED_AT_HEAD at 2,917, STOPPED_JOB_SCREENED at 21,288, in world 108).
 */
class ChainCheckTest {
    private static final ChainCheck.Config SLICE = new ChainCheck.Config(3, 2, true, true, true, 50_000);

    /** The slice searched on two threads, every forked state also replayed from the start and compared. */
    private static ChainCheck.Report run(HeadBreak broken) {
        ChainCheck.checkCopies = true;
        try {
            return ChainCheck.run(SLICE, 2, broken);
        } finally {
            ChainCheck.checkCopies = false;
        }
    }

    @Test
    void everyDeliveryOrderOfASmallChainKeepsTheHeadAheadOfWhatRan() {
        // Every forked state is also replayed from the start and compared: the fork is sound.
        ChainCheck.Report r = run(HeadBreak.NONE);
        assertFalse(r.violated(), r.violation() + "\n" + String.join("\n", r.counterexample()));
        // Sized to the breaks the slice must catch: STOPPED_JOB_SCREENED, the last, at 21,288 states.
        assertTrue(r.states() >= 50_000, r.states() + " states");
    }

    @Test
    void everyHeadRuleBrokenOnPurposeIsCaught() {
        for (HeadBreak b : HeadBreak.values()) {
            if (b == HeadBreak.NONE) {
                continue;
            }
            ChainCheck.Report r = run(b);
            assertTrue(r.violated(), b + " was not caught in " + r.states() + " states");
            // A stop broken lets a job launch after it; a running job's stop taken as never run
            // makes the sled report cancelled a job it launched.
            assertTrue(r.violation().contains(b == HeadBreak.RUNNING_STOP_CANCELS
                    ? "is reported cancelled (never ran) by this sled, which launched it"
                    : "was launched after the starter's stop of it reached this sled"), b + ": " + r.violation());
        }
    }

    @Test
    void theRackSettlingWhatTheSledPassedAndEndedKeepsEveryInvariant() {
        // D-058: the rack may settle the operator's jobs in chain order once this sled passed
        // (and ended) them; the fold, its chain and the head rules forget them as the runtime
        // does. Every world of two jobs and a burn, exhaustively, with and without settling.
        ChainCheck.Config small = new ChainCheck.Config(2, 1, true, true, true, 5_000_000);
        ChainCheck.Report with = ChainCheck.run(small, 2);
        ChainCheck.settling = false;
        ChainCheck.Report without;
        try {
            without = ChainCheck.run(small, 2);
        } finally {
            ChainCheck.settling = true;
        }
        assertFalse(with.violated(), with.violation() + "\n" + String.join("\n", with.counterexample()));
        assertTrue(with.exhaustive() && without.exhaustive(), with.states() + " and " + without.states() + " states");
        assertTrue(with.states() > without.states(), "settling was reached: " + with.states() + " states against "
                + without.states());
    }

    @Test
    void scriptsThatSendTheSameMessagesAreOneWorld() {
        // A burn of a signed position or a stop may stand anywhere after its job: one world.
        List<ChainCheck.World> worlds = ChainCheck.canonicalWorlds(new ChainCheck.Config(3, 2, true, true,
                true, 1));
        assertTrue(worlds.size() == 3756, worlds.size() + " worlds");
        Set<List<String>> seen = new HashSet<>();
        for (ChainCheck.World w : worlds) {
            List<String> m = new ArrayList<>();
            w.messages().forEach(x -> m.add(HexFormat.of().formatHex(MessageCodec.encode(x))));
            Collections.sort(m);
            assertTrue(seen.add(m), "two worlds send " + m);
        }
    }
}
