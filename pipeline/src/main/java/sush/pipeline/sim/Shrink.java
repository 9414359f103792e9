package sush.pipeline.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Shrinks a failing schedule: removes blocks of steps, halving the block size down to single
 * steps, keeping every removal after which the run still fails. What remains is a short schedule
 * to save as a regression scenario.
 */
public final class Shrink {
    /** Bound on simulation runs one shrink may spend. */
    public static final int MAX_RUNS = 2_000;

    private Shrink() {
    }

    /** The shortest schedule found for which {@code fails} still holds ({@code fails(steps)} must). */
    public static List<Step> minimize(List<Step> steps, Predicate<List<Step>> fails) {
        List<Step> current = new ArrayList<>(steps);
        int runs = 0;
        for (int block = Math.max(1, current.size() / 2); block >= 1 && runs < MAX_RUNS; block /= 2) {
            boolean removed = true;
            while (removed && runs < MAX_RUNS) {
                removed = false;
                for (int from = 0; from + block <= current.size() && runs < MAX_RUNS; from += block) {
                    List<Step> candidate = new ArrayList<>(current.subList(0, from));
                    candidate.addAll(current.subList(from + block, current.size()));
                    runs++;
                    if (fails.test(candidate)) {
                        current = candidate;
                        removed = true;
                        from -= block;
                    }
                }
            }
        }
        return current;
    }
}
