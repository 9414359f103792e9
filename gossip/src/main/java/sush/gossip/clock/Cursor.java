package sush.gossip.clock;

/**
 * Walks one leaf sequence over the common refinement of two trees: a leaf that is coarser than
 * the other tree at this point is split into virtual pieces (same value) on demand.
 */
final class Cursor {
    private final int[] depth;
    private final long[] value;
    private final int size;
    /** Allocated on the first split: most walks over similar trees never split. */
    private IntStack pending;
    private int index;
    private int current;

    Cursor(int[] depth, long[] value) {
        this.depth = depth;
        this.value = value;
        this.size = depth.length;
        this.current = depth[0];
    }

    /** Depth of the current piece. */
    int depth() {
        return current;
    }

    long value() {
        return value[index];
    }

    /** Index of the real leaf the current piece belongs to. */
    int index() {
        return index;
    }

    /** Whether the current piece is part of a split leaf rather than a whole leaf. */
    boolean isPiece() {
        return current != depth[index] || (pending != null && !pending.isEmpty());
    }

    /** Splits the current piece down to {@code target}; the right siblings wait on the stack. */
    void splitTo(int target) {
        if (pending == null) {
            pending = new IntStack();
        }
        for (int d = current + 1; d <= target; d++) {
            pending.push(d);
        }
        current = target;
    }

    /** Moves to the next piece; false when the sequence is exhausted. */
    boolean advance() {
        if (pending != null && !pending.isEmpty()) {
            current = pending.pop();
            return true;
        }
        index++;
        if (index < size) {
            current = depth[index];
            return true;
        }
        return false;
    }

    /** Splits whichever side is coarser so both cursors stand on the same piece. */
    static void align(Cursor a, Cursor b) {
        if (a.current < b.current) {
            a.splitTo(b.current);
        } else if (b.current < a.current) {
            b.splitTo(a.current);
        }
    }
}
