package sush.gossip.clock;

/** Test fixture: trees whose depth equals their size, built without recursion. */
final class DeepTrees {
    private DeepTrees() {
    }

    /** A left spine: leaves at depths d, d, d-1, ..., 1, with distinct counters. */
    static Version spine(int depth) {
        Leaves leaves = new Leaves(depth + 1);
        leaves.add(depth, 1);
        for (int d = depth; d >= 1; d--) {
            leaves.add(d, 2 + (depth - d) % 2);
        }
        return Version.of(leaves);
    }

    /** An identity owning every other leaf of the same spine. */
    static Id spineId(int depth) {
        Leaves leaves = new Leaves(depth + 1);
        leaves.add(depth, 1);
        for (int d = depth; d >= 1; d--) {
            leaves.add(d, (depth - d) % 2);
        }
        return Id.of(leaves);
    }
}
