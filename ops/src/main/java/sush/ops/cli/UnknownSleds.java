package sush.ops.cli;

import java.util.ArrayList;
import java.util.List;

import sush.ops.wire.Versions;
import sush.projections.targets.Sled;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * Issue 40: a target naming a baseboard or serial that no sled of the rack announces is most often
 * a typo, and would run nowhere: refused before anything is signed, unless the operator says
 * {@code --yes} (a sled not announced yet).
 */
final class UnknownSleds {
    private UnknownSleds() {
    }

    static void check(Client c, String target, boolean yes) throws Client.Failure {
        if (yes || target.strip().equals("*")) {
            return;
        }
        List<Sled> known = new ArrayList<>();
        for (Versions.Sled s : c.get("/versions", Versions.class).sleds()) {
            known.add(new Sled(Said.text(s.baseboard()), Said.number(s.cubby(), 0)));
        }
        List<String> unknown = new ArrayList<>();
        for (String item : target.split(",")) {
            String it = item.strip();
            if (it.isEmpty() || it.chars().allMatch(Character::isDigit)) {
                continue; // cubbies: an empty one is a place, not a name
            }
            try {
                Target one = Target.parse(it);
                if (known.stream().noneMatch(one::runsOn)) {
                    unknown.add(it);
                }
            } catch (TargetException e) {
                throw new Client.Failure(2, "bad-target", "--target: " + e.getMessage());
            }
        }
        if (!unknown.isEmpty()) {
            throw new Client.Failure(2, "unknown-sled", "--target names " + String.join(", ", unknown) + ", which no "
                    + "sled of the rack announces: nothing was signed (--yes to go on)");
        }
    }
}
