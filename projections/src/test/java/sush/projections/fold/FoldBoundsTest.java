package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import java.util.function.ToIntFunction;

import org.junit.jupiter.api.Test;

/** Every bound of a fold is at least 1: 1 is taken, 0 is refused, each bound on its own. */
class FoldBoundsTest {
    /** The bounds in the order the constructor takes them. */
    private static final List<ToIntFunction<FoldBounds>> BOUNDS = List.of(FoldBounds::jobSessions,
            FoldBounds::sessions, FoldBounds::sessionEndings, FoldBounds::chainPositions, FoldBounds::earlyMessages,
            FoldBounds::sessionStops, FoldBounds::jobStops);

    private static FoldBounds of(int[] b) {
        return new FoldBounds(b[0], b[1], b[2], b[3], b[4], b[5], b[6]);
    }

    @Test
    void boundsOfOneAreTaken() {
        FoldBounds ones = of(new int[] {1, 1, 1, 1, 1, 1, 1});
        for (ToIntFunction<FoldBounds> bound : BOUNDS) {
            assertEquals(1, bound.applyAsInt(ones));
        }
    }

    @Test
    void aBoundOfZeroIsRefusedAndOneTakenWhicheverBoundItIs() {
        for (int i = 0; i < BOUNDS.size(); i++) {
            int[] b = new int[BOUNDS.size()];
            Arrays.fill(b, 2);
            b[i] = 0;
            assertThrows(IllegalArgumentException.class, () -> of(b), "bound " + i + " at 0");
            b[i] = 1;
            assertEquals(1, BOUNDS.get(i).applyAsInt(of(b)), "bound " + i + " at 1 among bounds of 2");
        }
    }
}
