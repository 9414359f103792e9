package sush.projections.fold;

import java.util.HashMap;
import java.util.Map;

import sush.projections.targets.Sled;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * Whether a job's target text names one sled, remembered per text: a rack's jobs repeat a few
 * targets ({@code *}, a cubby, a list), and the fold asks for every job. An unparsable target
 * targets no one. Bounded: past {@link #MAX_TEXTS} distinct texts the memory starts over.
 */
final class TargetsMe {
    static final int MAX_TEXTS = 1024;

    private final Sled me;
    private final Map<String, Boolean> answers = new HashMap<>();

    TargetsMe(Sled me) {
        this.me = me;
    }

    /** Texts remembered now. */
    int remembered() {
        return answers.size();
    }

    boolean test(String target) {
        Boolean known = answers.get(target);
        if (known != null) {
            return known;
        }
        boolean yes;
        try {
            yes = Target.parse(target).runsOn(me);
        } catch (TargetException e) {
            yes = false;
        }
        if (answers.size() >= MAX_TEXTS) {
            answers.clear();
        }
        answers.put(target, yes);
        return yes;
    }
}
