package sush.gossip.clock;

import java.util.Arrays;

/**
 * ITC's fill and grow over leaf sequences, each recursion of the paper replaced by a loop over
 * an explicit frame stack (D-002).
 */
final class Ticks {
    /** Cost of a grow path: expansions in the high half (the paper's large N), levels low. */
    private static final long EXPANSION = 1L << 32;
    private static final long NO_PATH = Long.MAX_VALUE;

    private Ticks() {
    }

    /**
     * fill(0, e) = e; fill(1, e) = max(e); fill(i, n) = n;
     * fill((1, ir), (n, el, er)) = (n, max(max(el), min(er')), er') with er' = fill(ir, er);
     * symmetric for (il, 1); fill((il, ir), (n, el, er)) = (n, fill(il, el), fill(ir, er)).
     * The result is returned unnormalized; normalising once at the end gives the same tree as
     * normalising at every level because no rule looks at the shape of a fill result.
     */
    static Leaves fill(Id id, Version e) {
        Fill s = new Fill(id, e);
        s.push(0);
        while (s.size > 0) {
            int f = s.size - 1;
            switch (s.stage[f]) {
                case 0:
                    s.enter(f);
                    break;
                case 1:
                    s.afterLeft(f);
                    break;
                default:
                    s.combine(f);
                    break;
            }
        }
        return s.out;
    }

    /**
     * grow: increment one point the identity owns, choosing the path that expands the fewest
     * event leaves, then the fewest levels (ties go right, as in the paper). Pass one finds the
     * target identity leaf bottom-up; pass two walks the common refinement and bumps that
     * piece; normalising merges back every split that was not on the path.
     */
    static Leaves grow(Id id, Version e) {
        int target = growTarget(id, e);
        Cursor a = new Cursor(id.depth, id.bit);
        Cursor b = new Cursor(e.depth, e.value);
        Leaves out = new Leaves(e.depth.length + id.depth.length);
        boolean more;
        do {
            Cursor.align(a, b);
            long v = b.value();
            if (a.index() == target && !a.isPiece()) {
                if (v >= Version.MAX_COUNTER) {
                    throw new ClockException(ClockException.Kind.COUNTER_OVERFLOW, "counter at " + v);
                }
                v++;
            }
            out.add(a.depth(), v);
            more = a.advance();
            b.advance();
        } while (more);
        return out;
    }

    private static int growTarget(Id id, Version e) {
        int[] idDepth = id.depth;
        long[] idBit = id.bit;
        int[] eDepth = e.depth;
        IntStack scratch = new IntStack();
        GrowFrames frames = new GrowFrames();
        int ki = 0;
        int ke = 0;
        long retCost = NO_PATH;
        int retTarget = -1;
        frames.push(0);
        while (frames.size > 0) {
            int f = frames.size - 1;
            int t = frames.level[f];
            if (frames.stage[f] == 0) {
                boolean eLeaf = eDepth[ke] <= t;
                if (idDepth[ki] == t) {
                    // An owned leaf over an event leaf costs nothing more; an event node under a
                    // 1-leaf cannot reach grow (fill would have flattened it), so it is no path.
                    boolean usable = idBit[ki] == 1 && eLeaf;
                    retCost = usable ? 0 : NO_PATH;
                    retTarget = usable ? ki : -1;
                    if (!eLeaf) {
                        ke = Leaves.subtreeEnd(eDepth, ke, t, scratch);
                    } else if (eDepth[ke] == t) {
                        ke++;
                    }
                    ki++;
                    frames.size--;
                } else {
                    frames.eLeaf[f] = eLeaf;
                    frames.stage[f] = 1;
                    frames.push(t + 1);
                }
            } else if (frames.stage[f] == 1) {
                frames.leftCost[f] = retCost;
                frames.leftTarget[f] = retTarget;
                frames.stage[f] = 2;
                frames.push(t + 1);
            } else {
                boolean takeLeft = frames.leftCost[f] < retCost;
                long best = takeLeft ? frames.leftCost[f] : retCost;
                retTarget = takeLeft ? frames.leftTarget[f] : retTarget;
                retCost = best == NO_PATH ? NO_PATH : best + 1 + (frames.eLeaf[f] ? EXPANSION : 0);
                if (frames.eLeaf[f] && eDepth[ke] == t) {
                    ke++;
                }
                frames.size--;
            }
        }
        if (retTarget < 0) {
            throw new ClockException(ClockException.Kind.ANONYMOUS_TICK, "identity owns no point to grow");
        }
        return retTarget;
    }

    /**
     * One fill in progress: its inputs, its output, the cursors into both leaf sequences, the
     * registers a finished frame returns its subtree's min and max in, and the struct-of-arrays
     * frame stack. One object per call, so the loop's stages allocate nothing.
     */
    private static final class Fill {
        final int[] idDepth;
        final long[] idBit;
        final int[] eDepth;
        final long[] eValue;
        final Leaves out;
        final IntStack scratch = new IntStack();
        int ki;
        int ke;
        long retMin;
        long retMax;
        int size;
        int[] level = new int[16];
        int[] stage = new int[16];
        boolean[] leftIsOne = new boolean[16];
        boolean[] rightIsOne = new boolean[16];
        int[] leftIndex = new int[16];
        int[] rightIndex = new int[16];
        long[] leftMin = new long[16];
        long[] leftMax = new long[16];

        Fill(Id id, Version e) {
            this.idDepth = id.depth;
            this.idBit = id.bit;
            this.eDepth = e.depth;
            this.eValue = e.value;
            this.out = new Leaves(eDepth.length + 2);
        }

        /**
         * Stage 0 of frame {@code f}: a leaf of either tree ends the frame with its result;
         * otherwise the frame descends into its left half.
         */
        void enter(int f) {
            int t = level[f];
            if (idDepth[ki] == t) {
                idLeaf(t);
                size--;
            } else if (eDepth[ke] == t) {
                out.add(t, eValue[ke]);
                retMin = eValue[ke];
                retMax = eValue[ke];
                ke++;
                ki = Leaves.subtreeEnd(idDepth, ki, t, scratch);
                size--;
            } else {
                leftIsOne[f] = idDepth[ki] == t + 1 && idBit[ki] == 1;
                leftIndex[f] = out.size;
                stage[f] = 1;
                push(t + 1);
            }
        }

        /** fill(0, e) = e; fill(1, e) = max(e): an identity leaf at level {@code t} over the event subtree there. */
        private void idLeaf(int t) {
            int end = Leaves.subtreeEnd(eDepth, ke, t, scratch);
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (int k = ke; k < end; k++) {
                min = Math.min(min, eValue[k]);
                max = Math.max(max, eValue[k]);
            }
            if (idBit[ki] == 0) {
                for (int k = ke; k < end; k++) {
                    out.add(eDepth[k], eValue[k]);
                }
                retMin = min;
            } else {
                out.add(t, max);
                retMin = max;
            }
            retMax = max;
            ke = end;
            ki++;
        }

        /** Stage 1 of frame {@code f}: keeps the left half's result and descends into the right half. */
        void afterLeft(int f) {
            int t = level[f];
            leftMin[f] = retMin;
            leftMax[f] = retMax;
            rightIsOne[f] = idDepth[ki] == t + 1 && idBit[ki] == 1;
            rightIndex[f] = out.size;
            stage[f] = 2;
            push(t + 1);
        }

        /**
         * Stage 2 of frame {@code f}: a half whose identity is 1 is raised to the other half's
         * min (the paper's max(max(el), min(er'))), and the frame returns both halves' min and max.
         */
        void combine(int f) {
            long lMin = leftMin[f];
            long lMax = leftMax[f];
            long rightMin = retMin;
            long rightMax = retMax;
            if (leftIsOne[f]) {
                long v = Math.max(lMax, rightMin);
                out.value[leftIndex[f]] = v;
                lMin = v;
                lMax = v;
            } else if (rightIsOne[f]) {
                long v = Math.max(rightMax, lMin);
                out.value[rightIndex[f]] = v;
                rightMin = v;
                rightMax = v;
            }
            retMin = Math.min(lMin, rightMin);
            retMax = Math.max(lMax, rightMax);
            size--;
        }

        void push(int t) {
            if (size == level.length) {
                int n = size * 2;
                level = Arrays.copyOf(level, n);
                stage = Arrays.copyOf(stage, n);
                leftIsOne = Arrays.copyOf(leftIsOne, n);
                rightIsOne = Arrays.copyOf(rightIsOne, n);
                leftIndex = Arrays.copyOf(leftIndex, n);
                rightIndex = Arrays.copyOf(rightIndex, n);
                leftMin = Arrays.copyOf(leftMin, n);
                leftMax = Arrays.copyOf(leftMax, n);
            }
            level[size] = t;
            stage[size] = 0;
            size++;
        }
    }

    /** Struct-of-arrays frame stack for the grow cost pass. */
    private static final class GrowFrames {
        int size;
        int[] level = new int[16];
        int[] stage = new int[16];
        boolean[] eLeaf = new boolean[16];
        long[] leftCost = new long[16];
        int[] leftTarget = new int[16];

        void push(int t) {
            if (size == level.length) {
                int n = size * 2;
                level = Arrays.copyOf(level, n);
                stage = Arrays.copyOf(stage, n);
                eLeaf = Arrays.copyOf(eLeaf, n);
                leftCost = Arrays.copyOf(leftCost, n);
                leftTarget = Arrays.copyOf(leftTarget, n);
            }
            level[size] = t;
            stage[size] = 0;
            size++;
        }
    }
}
