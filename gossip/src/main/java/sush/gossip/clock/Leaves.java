package sush.gossip.clock;

import java.util.Arrays;

/**
 * A binary tree as the sequence of its leaves, left to right, each with its depth and value.
 *
 * <p>The depths alone fix the shape, so every clock operation is a left-to-right walk with an
 * explicit stack, never recursion on depth (D-002). Event trees keep absolute values here (the
 * sum of the bases on the path), identities keep 0 or 1.
 */
final class Leaves {
    int[] depth;
    long[] value;
    int size;

    Leaves(int capacity) {
        depth = new int[Math.max(capacity, 2)];
        value = new long[depth.length];
    }

    Leaves(int[] depth, long[] value, int size) {
        this.depth = depth;
        this.value = value;
        this.size = size;
    }

    void add(int d, long v) {
        if (size == depth.length) {
            depth = Arrays.copyOf(depth, size * 2);
            value = Arrays.copyOf(value, size * 2);
        }
        depth[size] = d;
        value[size] = v;
        size++;
    }

    int[] depths() {
        return Arrays.copyOf(depth, size);
    }

    long[] values() {
        return Arrays.copyOf(value, size);
    }

    boolean sameAs(int[] otherDepth, long[] otherValue) {
        return Arrays.equals(depth, 0, size, otherDepth, 0, otherDepth.length)
                && Arrays.equals(value, 0, size, otherValue, 0, otherValue.length);
    }

    /**
     * The normal form: sibling leaves with equal values merge into their parent, repeatedly.
     * For identities that is (0,0) to 0 and (1,1) to 1; for absolute event values it is
     * ITC's norm (lifting the minimum is implicit in absolute values).
     */
    Leaves normalize() {
        Leaves out = new Leaves(size);
        IntStack stackDepth = new IntStack();
        // A completed subtree on the stack is a leaf of the output only when it is the last leaf.
        IntStack stackLeaf = new IntStack();
        for (int k = 0; k < size; k++) {
            int d = depth[k];
            long v = value[k];
            out.add(d, v);
            stackDepth.push(d);
            stackLeaf.push(1);
            while (stackDepth.size() >= 2 && stackDepth.peek() == stackDepth.peek(1)) {
                int childDepth = stackDepth.pop();
                stackDepth.pop();
                boolean bothLeaves = stackLeaf.pop() == 1 & stackLeaf.pop() == 1;
                boolean merge = bothLeaves && out.value[out.size - 1] == out.value[out.size - 2];
                if (merge) {
                    out.size--;
                    out.depth[out.size - 1] = childDepth - 1;
                }
                stackDepth.push(childDepth - 1);
                stackLeaf.push(merge ? 1 : 0);
            }
        }
        assert stackDepth.size() == 1 && stackDepth.peek() == 0 : "leaf depths do not form a tree";
        return out;
    }

    /**
     * The index just past the subtree rooted at depth {@code rootDepth} whose first leaf is
     * {@code start}. Pairs of equal depths on the scratch stack are siblings and fold into
     * their parent; the subtree is complete when only its root remains.
     */
    static int subtreeEnd(int[] depth, int start, int rootDepth, IntStack scratch) {
        if (depth[start] == rootDepth) {
            return start + 1;
        }
        scratch.clear();
        int k = start;
        while (true) {
            scratch.push(depth[k++]);
            while (scratch.size() >= 2 && scratch.peek() == scratch.peek(1)) {
                scratch.pop();
                scratch.setTop(scratch.peek() - 1);
            }
            if (scratch.size() == 1 && scratch.peek() == rootDepth) {
                return k;
            }
        }
    }
}
