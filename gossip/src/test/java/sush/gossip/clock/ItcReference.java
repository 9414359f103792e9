package sush.gossip.clock;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Test reference: the rules of the ITC paper applied recursively to explicit trees, event trees
 * with bases relative to their parent as in the paper. Slow and recursive on purpose: nothing is
 * shared with the leaf-sequence walks it checks. Also random generators for normal trees.
 */
final class ItcReference {
    /** The paper's large N: the cost of expanding an event leaf, above any count of levels. */
    private static final long N = 1L << 40;

    private ItcReference() {
    }

    /** An event tree: a leaf holds its counter n; a node its base n and subtrees relative to it. */
    record Ev(long n, Ev l, Ev r) {
        static Ev leaf(long n) {
            return new Ev(n, null, null);
        }

        boolean isLeaf() {
            return l == null;
        }
    }

    /** An identity tree: a leaf holds 0 or 1. */
    record It(int bit, It l, It r) {
        static It leaf(int bit) {
            return new It(bit, null, null);
        }

        boolean isLeaf() {
            return l == null;
        }

        boolean isLeaf(int b) {
            return l == null && bit == b;
        }
    }

    // ---- conversions ------------------------------------------------------------------------

    static Ev event(Version v) {
        return relative(absolute(v.depth, v.value, new int[1], 0), 0);
    }

    /** The leaves of a normal reference tree, as the version with those arrays (no normalising). */
    static Version version(Ev e) {
        List<Integer> depths = new ArrayList<>();
        List<Long> values = new ArrayList<>();
        flatten(e, 0, 0, depths, values);
        return new Version(depths.stream().mapToInt(Integer::intValue).toArray(),
                values.stream().mapToLong(Long::longValue).toArray());
    }

    static It identity(Id id) {
        return identity(id.depth, id.bit, new int[1], 0);
    }

    static Id id(It i) {
        List<Integer> depths = new ArrayList<>();
        List<Long> bits = new ArrayList<>();
        flatten(i, 0, depths, bits);
        return new Id(depths.stream().mapToInt(Integer::intValue).toArray(),
                bits.stream().mapToLong(Long::longValue).toArray());
    }

    /** An absolute tree: leaves hold absolute counters, nodes hold nothing (0). */
    private static Ev absolute(int[] depth, long[] value, int[] pos, int d) {
        if (depth[pos[0]] == d) {
            return Ev.leaf(value[pos[0]++]);
        }
        Ev l = absolute(depth, value, pos, d + 1);
        Ev r = absolute(depth, value, pos, d + 1);
        return new Ev(0, l, r);
    }

    private static long absoluteMin(Ev a) {
        return a.isLeaf() ? a.n : Math.min(absoluteMin(a.l), absoluteMin(a.r));
    }

    private static Ev relative(Ev abs, long offset) {
        if (abs.isLeaf()) {
            return Ev.leaf(abs.n - offset);
        }
        long m = absoluteMin(abs);
        return new Ev(m - offset, relative(abs.l, m), relative(abs.r, m));
    }

    private static void flatten(Ev e, int d, long offset, List<Integer> depths, List<Long> values) {
        if (e.isLeaf()) {
            depths.add(d);
            values.add(offset + e.n);
            return;
        }
        flatten(e.l, d + 1, offset + e.n, depths, values);
        flatten(e.r, d + 1, offset + e.n, depths, values);
    }

    private static It identity(int[] depth, long[] bit, int[] pos, int d) {
        if (depth[pos[0]] == d) {
            return It.leaf((int) bit[pos[0]++]);
        }
        It l = identity(depth, bit, pos, d + 1);
        It r = identity(depth, bit, pos, d + 1);
        return new It(0, l, r);
    }

    private static void flatten(It i, int d, List<Integer> depths, List<Long> bits) {
        if (i.isLeaf()) {
            depths.add(d);
            bits.add((long) i.bit);
            return;
        }
        flatten(i.l, d + 1, depths, bits);
        flatten(i.r, d + 1, depths, bits);
    }

    // ---- event trees ------------------------------------------------------------------------

    private static Ev lift(Ev e, long m) {
        return new Ev(e.n + m, e.l, e.r);
    }

    private static Ev sink(Ev e, long m) {
        return new Ev(e.n - m, e.l, e.r);
    }

    static long min(Ev e) {
        return e.isLeaf() ? e.n : e.n + Math.min(min(e.l), min(e.r));
    }

    static long max(Ev e) {
        return e.isLeaf() ? e.n : e.n + Math.max(max(e.l), max(e.r));
    }

    static Ev norm(Ev e) {
        if (e.isLeaf()) {
            return e;
        }
        Ev l = norm(e.l);
        Ev r = norm(e.r);
        if (l.isLeaf() && r.isLeaf() && l.n == r.n) {
            return Ev.leaf(e.n + l.n);
        }
        long m = Math.min(min(l), min(r));
        return new Ev(e.n + m, sink(l, m), sink(r, m));
    }

    static boolean leq(Ev a, Ev b) {
        if (a.isLeaf()) {
            return a.n <= b.n;
        }
        if (b.isLeaf()) {
            return a.n <= b.n && leq(lift(a.l, a.n), b) && leq(lift(a.r, a.n), b);
        }
        return a.n <= b.n && leq(lift(a.l, a.n), lift(b.l, b.n)) && leq(lift(a.r, a.n), lift(b.r, b.n));
    }

    static Ev join(Ev a, Ev b) {
        if (a.isLeaf() && b.isLeaf()) {
            return Ev.leaf(Math.max(a.n, b.n));
        }
        if (a.isLeaf()) {
            return join(new Ev(a.n, Ev.leaf(0), Ev.leaf(0)), b);
        }
        if (b.isLeaf()) {
            return join(a, new Ev(b.n, Ev.leaf(0), Ev.leaf(0)));
        }
        if (a.n > b.n) {
            return join(b, a);
        }
        long d = b.n - a.n;
        return norm(new Ev(a.n, join(a.l, lift(b.l, d)), join(a.r, lift(b.r, d))));
    }

    /** event(i, e): fill if that changes e, else grow. */
    static Ev event(It i, Ev e) {
        Ev filled = fill(i, e);
        if (!filled.equals(e)) {
            return filled;
        }
        Grown g = grow(i, e);
        if (g == null) {
            throw new IllegalStateException("no path to grow");
        }
        return norm(g.e);
    }

    static Ev fill(It i, Ev e) {
        if (i.isLeaf(0)) {
            return e;
        }
        if (i.isLeaf(1)) {
            return Ev.leaf(max(e));
        }
        if (e.isLeaf()) {
            return e;
        }
        if (i.l.isLeaf(1)) {
            Ev er = fill(i.r, e.r);
            return norm(new Ev(e.n, Ev.leaf(Math.max(max(e.l), min(er))), er));
        }
        if (i.r.isLeaf(1)) {
            Ev el = fill(i.l, e.l);
            return norm(new Ev(e.n, el, Ev.leaf(Math.max(max(e.r), min(el)))));
        }
        return norm(new Ev(e.n, fill(i.l, e.l), fill(i.r, e.r)));
    }

    private record Grown(Ev e, long cost) {
    }

    /** grow as in the paper; null where it has no rule (a 0-leaf, a 1-leaf over a node). */
    private static Grown grow(It i, Ev e) {
        if (i.isLeaf()) {
            return i.bit == 1 && e.isLeaf() ? new Grown(Ev.leaf(e.n + 1), 0) : null;
        }
        if (e.isLeaf()) {
            Grown g = grow(i, new Ev(e.n, Ev.leaf(0), Ev.leaf(0)));
            return g == null ? null : new Grown(g.e, g.cost + N);
        }
        Grown gl = grow(i.l, e.l);
        Grown gr = grow(i.r, e.r);
        if (gl != null && (gr == null || gl.cost < gr.cost)) {
            return new Grown(new Ev(e.n, gl.e, e.r), gl.cost + 1);
        }
        if (gr == null) {
            return null;
        }
        return new Grown(new Ev(e.n, e.l, gr.e), gr.cost + 1);
    }

    /** The sum of the bases of a normal tree, saturating at Long.MAX_VALUE. */
    static long minTicks(Ev e) {
        BigInteger sum = sumOfBases(e);
        return sum.min(BigInteger.valueOf(Long.MAX_VALUE)).longValueExact();
    }

    private static BigInteger sumOfBases(Ev e) {
        BigInteger here = BigInteger.valueOf(e.n);
        return e.isLeaf() ? here : here.add(sumOfBases(e.l)).add(sumOfBases(e.r));
    }

    /** The sign of (integral of a) - (integral of b), each leaf weighing 2^-depth. */
    static int compareIntegrals(Version a, Version b) {
        int scale = Math.max(depth(a), depth(b));
        return integral(a, scale).compareTo(integral(b, scale));
    }

    private static BigInteger integral(Version v, int scale) {
        BigInteger sum = BigInteger.ZERO;
        for (int k = 0; k < v.depth.length; k++) {
            sum = sum.add(BigInteger.valueOf(v.value[k]).shiftLeft(scale - v.depth[k]));
        }
        return sum;
    }

    static int depth(Version v) {
        int max = 0;
        for (int d : v.depth) {
            max = Math.max(max, d);
        }
        return max;
    }

    // ---- identities -------------------------------------------------------------------------

    static It normId(It i) {
        if (i.isLeaf()) {
            return i;
        }
        It l = normId(i.l);
        It r = normId(i.r);
        if (l.isLeaf() && r.isLeaf() && l.bit == r.bit) {
            return l;
        }
        return new It(0, l, r);
    }

    /** split as in the paper. */
    static It[] split(It i) {
        if (i.isLeaf(0)) {
            return new It[] {i, i};
        }
        if (i.isLeaf(1)) {
            return new It[] {new It(0, It.leaf(1), It.leaf(0)), new It(0, It.leaf(0), It.leaf(1))};
        }
        if (i.l.isLeaf(0)) {
            It[] s = split(i.r);
            return new It[] {new It(0, i.l, s[0]), new It(0, i.l, s[1])};
        }
        if (i.r.isLeaf(0)) {
            It[] s = split(i.l);
            return new It[] {new It(0, s[0], i.r), new It(0, s[1], i.r)};
        }
        return new It[] {new It(0, i.l, It.leaf(0)), new It(0, It.leaf(0), i.r)};
    }

    // ---- generators -------------------------------------------------------------------------

    /** Leaf depths of a random tree: {@code splits} random leaves split, or the deepest one when {@code deep}. */
    static int[] randomShape(Random r, int splits, boolean deep) {
        List<Integer> depths = new ArrayList<>(List.of(0));
        for (int k = 0; k < splits; k++) {
            int at = r.nextInt(depths.size());
            if (deep && r.nextInt(8) != 0) {
                int deepest = 0;
                for (int j = 0; j < depths.size(); j++) {
                    if (depths.get(j) > depths.get(deepest) || (depths.get(j).equals(depths.get(deepest)) && r.nextBoolean())) {
                        deepest = j;
                    }
                }
                at = deepest;
            }
            int d = depths.get(at);
            depths.set(at, d + 1);
            depths.add(at + 1, d + 1);
        }
        return depths.stream().mapToInt(Integer::intValue).toArray();
    }

    /** A random normal version over {@code shape}, its counters from {@code counter}. */
    static Version randomVersion(Random r, int[] shape, java.util.function.ToLongFunction<Random> counter) {
        long[] value = new long[shape.length];
        for (int k = 0; k < shape.length; k++) {
            value[k] = counter.applyAsLong(r);
        }
        return Version.of(new Leaves(shape.clone(), value, shape.length));
    }

    static long smallCounter(Random r) {
        return r.nextInt(4);
    }

    /** Counters around the fast integral's bound (2^30) and the largest counter, or anywhere. */
    static long largeCounter(Random r) {
        long limit = 1L << 30;
        switch (r.nextInt(8)) {
            case 0: return 0;
            case 1: return limit - 1 - r.nextInt(2);
            case 2: return limit + r.nextInt(2);
            case 3: return Version.MAX_COUNTER - r.nextInt(2);
            case 4: return r.nextInt(4);
            default: return (r.nextLong() >>> 2) & Version.MAX_COUNTER;
        }
    }

    static Id randomId(Random r, int splits) {
        int[] shape = randomShape(r, splits, false);
        long[] bit = new long[shape.length];
        for (int k = 0; k < shape.length; k++) {
            bit[k] = r.nextInt(2);
        }
        return Id.of(new Leaves(shape, bit, shape.length));
    }
}
