package sush.projections.targets;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which sleds a job runs on: {@code *}, or a comma list of cubby numbers (0..31), baseboard ids
 * {@code part:serial} and bare serials. A cubby nobody sits in targets no one; the chain still
 * advances past the job on every sled.
 */
public final class Target {
    public static final int MIN_CUBBY = 0;
    public static final int MAX_CUBBY = 31;
    /** Bound on the items of one target list (a rack has 32 sleds; room for aliases). */
    public static final int MAX_ITEMS = 128;
    /**
     * Bound on a target's text: what a job request carries on the wire (the codec reads no longer
     * one), so a target that parses here always reaches every sled.
     */
    public static final int MAX_CHARS = 256;

    private final String text;
    private final boolean everyone;
    private final Set<Integer> cubbies;
    private final Set<String> baseboards;
    private final Set<String> serials;

    private Target(String text, boolean everyone, Set<Integer> cubbies, Set<String> baseboards, Set<String> serials) {
        this.text = text;
        this.everyone = everyone;
        this.cubbies = Set.copyOf(cubbies);
        this.baseboards = Set.copyOf(baseboards);
        this.serials = Set.copyOf(serials);
    }

    public static Target parse(String text) throws TargetException {
        if (text.length() > MAX_CHARS) {
            throw new TargetException("target is " + text.length() + " characters, more than " + MAX_CHARS
                    + ": name at most " + MAX_CHARS + " characters of cubbies, baseboards or serials (or *)");
        }
        String trimmed = text.trim();
        if (trimmed.equals("*")) {
            return new Target("*", true, Set.of(), Set.of(), Set.of());
        }
        if (trimmed.isEmpty()) {
            throw new TargetException("empty target: use * for every sled");
        }
        String[] items = trimmed.split(",", -1);
        if (items.length > MAX_ITEMS) {
            throw new TargetException("target lists " + items.length + " items, more than " + MAX_ITEMS);
        }
        Set<Integer> cubbies = new TreeSet<>();
        Set<String> baseboards = new TreeSet<>();
        Set<String> serials = new TreeSet<>();
        List<String> canonical = new ArrayList<>();
        for (String raw : items) {
            String item = raw.trim();
            if (item.isEmpty() || item.equals("*")) {
                throw new TargetException("'" + item + "' in a list: items are cubbies, part:serial or serials");
            }
            // ASCII only: Unicode digits ('٥', '３') would let an operator sign a look-alike of
            // another cubby; any other non-ASCII text is refused with them (issue 22).
            int bad = item.chars().filter(c -> c < 0x21 || c > 0x7e).findFirst().orElse(-1);
            if (bad >= 0) {
                throw new TargetException("'" + item + "' holds " + String.format("U+%04X", bad) + ": targets are "
                        + "cubbies, part:serial or serials in printable ASCII");
            }
            if (item.chars().allMatch(c -> c >= '0' && c <= '9')) {
                int cubby = parseCubby(item);
                cubbies.add(cubby);
            } else if (item.contains(":")) {
                int colon = item.indexOf(':');
                if (colon == 0 || colon == item.length() - 1 || item.indexOf(':', colon + 1) >= 0) {
                    throw new TargetException("'" + item + "' is not a baseboard id part:serial");
                }
                baseboards.add(item);
            } else {
                serials.add(item);
            }
            canonical.add(item);
        }
        return new Target(String.join(",", canonical), false, cubbies, baseboards, serials);
    }

    /** Whether the target names one sled: one cubby, one baseboard or one serial (not {@code *}). */
    public boolean namesOneSled() {
        return !everyone && cubbies.size() + baseboards.size() + serials.size() == 1;
    }

    /**
     * The cubbies named, sorted, when the target names nothing else (not {@code *}, no baseboard or
     * serial): what a job in waves targets (D-059), so that every sled ranks the same sleds.
     */
    public java.util.Optional<List<Integer>> cubbyList() {
        if (everyone || !baseboards.isEmpty() || !serials.isEmpty()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(cubbies.stream().sorted().toList());
    }

    /** Whether a job with this target runs on {@code sled}. */
    public boolean runsOn(Sled sled) {
        return everyone || cubbies.contains(sled.cubby()) || baseboards.contains(sled.baseboard())
                || serials.contains(sled.serial());
    }

    /** The target as written, items trimmed. */
    public String text() {
        return text;
    }

    private static int parseCubby(String item) throws TargetException {
        if (item.length() > 2) {
            throw new TargetException("cubby " + item + " outside " + MIN_CUBBY + ".." + MAX_CUBBY);
        }
        int cubby = Integer.parseInt(item);
        if (cubby > MAX_CUBBY) {
            throw new TargetException("cubby " + cubby + " outside " + MIN_CUBBY + ".." + MAX_CUBBY);
        }
        return cubby;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Target && ((Target) o).text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
