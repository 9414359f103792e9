package sush.gossip.clock;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.Comparator;

import sush.gossip.wire.MalformedException;

/**
 * An interval-tree-clock event tree: the causal stamp of a message, or a frontier (a join of
 * stamps). Immutable, always in normal form, equality follows the bytes. Versions compare
 * only inside one universe.
 */
public final class Version {
    /** The largest counter a leaf may hold; ticking past it is refused. */
    public static final long MAX_COUNTER = (1L << 62) - 1;
    /** Nothing has happened. */
    public static final Version ZERO = new Version(new int[] {0}, new long[] {0});

    /**
     * A linear extension of the causal order: {@code v < w} implies {@code v} sorts first
     * (the integral of the event function strictly grows with it). Concurrent versions sort
     * by that integral too, which is arbitrary but the same on every replica.
     */
    public static final Comparator<Version> CAUSAL_ORDER = Version::compareIntegral;

    final int[] depth;
    /** Absolute counter per leaf (sum of the bases on its path). */
    final long[] value;
    private byte[] encoded;
    private long minTicks = -1;
    private Integral integral;
    /** The deepest leaf's depth, or -1 before first asked (racy single-check: any thread computes the same). */
    private int maxDepth = -1;

    Version(int[] depth, long[] value) {
        this.depth = depth;
        this.value = value;
    }

    static Version of(Leaves raw) {
        Leaves normal = raw.normalize();
        if (normal.size == 1 && normal.value[0] == 0) {
            return ZERO;
        }
        return new Version(normal.depths(), normal.values());
    }

    public boolean isZero() {
        return depth.length == 1 && value[0] == 0;
    }

    public int leafCount() {
        return depth.length;
    }

    /** The depth of the deepest leaf. */
    public int depth() {
        int max = maxDepth;
        if (max < 0) {
            max = 0;
            for (int d : depth) {
                max = Math.max(max, d);
            }
            maxDepth = max;
        }
        return max;
    }

    /**
     * The version of a new event by {@code id} on top of this one: fill if that inflates
     * anything, else grow (ITC "event"). Always strictly greater than this version.
     */
    public Version tick(Id id) {
        if (id.isZero()) {
            throw new ClockException(ClockException.Kind.ANONYMOUS_TICK, "the zero identity cannot tick");
        }
        Leaves filled = Ticks.fill(id, this).normalize();
        if (!filled.sameAs(depth, value)) {
            return new Version(filled.depths(), filled.values());
        }
        return of(Ticks.grow(id, this));
    }

    /** Pointwise maximum: the least version at or above both. */
    public Version join(Version other) {
        if (other == this || other.isZero()) {
            return this;
        }
        if (isZero()) {
            return other;
        }
        // The common case in gossip is that one side dominates: find out without building.
        if (leq(other)) {
            return other;
        }
        if (other.leq(this)) {
            return this;
        }
        boolean walk = depth() <= WALK_MAX_DEPTH && other.depth() <= WALK_MAX_DEPTH;
        return of(walk ? joinWalk(depth, value, other.depth, other.value) : joinByCursor(this, other));
    }

    /** The join over cursors that split leaves: any depth; the reference the walk is tested against. */
    static Leaves joinByCursor(Version x, Version y) {
        Cursor a = new Cursor(x.depth, x.value);
        Cursor b = new Cursor(y.depth, y.value);
        Leaves out = new Leaves(Math.max(x.depth.length, y.depth.length));
        boolean more;
        do {
            Cursor.align(a, b);
            out.add(a.depth(), Math.max(a.value(), b.value()));
            more = a.advance();
            b.advance();
        } while (more);
        return out;
    }

    /** {@code this <= other}: every event in this version is in the other. */
    public boolean leq(Version other) {
        if (other == this || isZero()) {
            return true;
        }
        if (depth() <= WALK_MAX_DEPTH && other.depth() <= WALK_MAX_DEPTH) {
            return leqWalk(depth, value, other.depth, other.value);
        }
        return leqByCursor(this, other);
    }

    /** {@link #leq} over cursors that split leaves: any depth; the reference the walk is tested against. */
    static boolean leqByCursor(Version x, Version y) {
        Cursor a = new Cursor(x.depth, x.value);
        Cursor b = new Cursor(y.depth, y.value);
        do {
            Cursor.align(a, b);
            if (a.value() > b.value()) {
                return false;
            }
            b.advance();
        } while (a.advance());
        return true;
    }

    /**
     * Trees no deeper than this are compared by walking both leaf sequences with their
     * positions in [0, 2^62): each leaf of depth d spans 2^(62-d), and two dyadic intervals that
     * meet are nested, so the deeper current leaf is exactly their overlap. No splitting, no
     * allocation; deeper trees (never seen in a rack) take the cursor walk.
     */
    private static final int WALK_MAX_DEPTH = 62;

    static boolean leqWalk(int[] da, long[] va, int[] db, long[] vb) {
        return walk(da, va, db, vb, null);
    }

    /** The pointwise maximum over the common refinement, as {@link #leqWalk} walks it. */
    static Leaves joinWalk(int[] da, long[] va, int[] db, long[] vb) {
        Leaves out = new Leaves(Math.max(da.length, db.length));
        walk(da, va, db, vb, out);
        return out;
    }

    /**
     * Walks both leaf sequences over their common refinement. With {@code join} null it answers
     * leq (false at the first piece where a is above b); otherwise it adds each piece's maximum
     * to {@code join} and answers true.
     */
    private static boolean walk(int[] da, long[] va, int[] db, long[] vb, Leaves join) {
        int i = 0;
        int j = 0;
        long endA = 1L << (WALK_MAX_DEPTH - da[0]);
        long endB = 1L << (WALK_MAX_DEPTH - db[0]);
        while (true) {
            if (join != null) {
                join.add(Math.max(da[i], db[j]), Math.max(va[i], vb[j]));
            } else if (va[i] > vb[j]) {
                return false;
            }
            if (endA == endB) {
                i++;
                j++;
                if (i == da.length) {
                    return true;
                }
                endA += 1L << (WALK_MAX_DEPTH - da[i]);
                endB += 1L << (WALK_MAX_DEPTH - db[j]);
            } else if (endA < endB) {
                i++;
                endA += 1L << (WALK_MAX_DEPTH - da[i]);
            } else {
                j++;
                endB += 1L << (WALK_MAX_DEPTH - db[j]);
            }
        }
    }

    /** {@code this < other}: causally before. */
    public boolean lessThan(Version other) {
        return leq(other) && !equals(other);
    }

    /** Neither is at or below the other. */
    public boolean concurrentWith(Version other) {
        return !leq(other) && !other.leq(this);
    }

    /**
     * The least number of ticks that can produce this version: the sum of the node bases of
     * the normalised event tree. Saturates at {@link Long#MAX_VALUE}.
     */
    public long minTicks() {
        long cached = minTicks;
        if (cached < 0) {
            cached = computeMinTicks();
            minTicks = cached;
        }
        return cached;
    }

    /** Canonical bytes (see {@link ClockCodec}). */
    public byte[] toBytes() {
        return encoded().clone();
    }

    /** Length of {@link #toBytes()} without copying. */
    public int encodedSize() {
        return encoded().length;
    }

    public static Version fromBytes(byte[] bytes) throws MalformedException {
        return fromBytes(bytes, 0, bytes.length);
    }

    /** As {@link #fromBytes(byte[])}, for the {@code length} bytes at {@code offset}: exactly a version. */
    public static Version fromBytes(byte[] bytes, int offset, int length) throws MalformedException {
        if (offset < 0 || length < 0 || offset > bytes.length - length) {
            throw new IllegalArgumentException("range " + offset + "+" + length + " outside " + bytes.length + " bytes");
        }
        Leaves leaves = ClockCodec.decode(bytes, offset, length, true);
        // The decoder's arrays are exactly sized and never written again: no copy.
        return leaves.size == 1 && leaves.value[0] == 0 ? ZERO : new Version(leaves.depth, leaves.value);
    }

    private byte[] encoded() {
        byte[] bytes = encoded;
        if (bytes == null) {
            bytes = ClockCodec.encode(depth, value, true);
            encoded = bytes;
        }
        return bytes;
    }

    /**
     * Bottom-up over the leaf sequence: a completed subtree carries (its absolute minimum,
     * T = sum of bases with its root's base taken absolute); siblings combine as
     * T = T1 + T2 - min(m1, m2).
     */
    private long computeMinTicks() {
        IntStack depths = new IntStack();
        long[] mins = new long[depth.length + 1];
        long[] sums = new long[depth.length + 1];
        for (int k = 0; k < depth.length; k++) {
            int top = depths.size();
            depths.push(depth[k]);
            mins[top] = value[k];
            sums[top] = value[k];
            while (depths.size() >= 2 && depths.peek() == depths.peek(1)) {
                int d = depths.pop();
                depths.setTop(d - 1);
                int right = depths.size();
                int left = right - 1;
                long m = Math.min(mins[left], mins[right]);
                sums[left] = saturatingAdd(sums[left] - m, sums[right]);
                mins[left] = m;
            }
        }
        return sums[0];
    }

    private static long saturatingAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    private static int compareIntegral(Version a, Version b) {
        return a.integral().compareTo(b.integral());
    }

    private Integral integral() {
        Integral cached = integral;
        if (cached == null) {
            cached = Integral.of(this);
            integral = cached;
        }
        return cached;
    }

    /** Exact integral of the event function, numerator over 2^scale. */
    private static final class Integral implements Comparable<Integral> {
        private static final int FAST_SCALE_LIMIT = 30;
        private static final long FAST_VALUE_LIMIT = 1L << 30;
        final long fast;
        final BigInteger exact;
        final int scale;

        private Integral(long fast, BigInteger exact, int scale) {
            this.fast = fast;
            this.exact = exact;
            this.scale = scale;
        }

        static Integral of(Version v) {
            int scale = Arrays.stream(v.depth).max().orElse(0);
            boolean small = scale <= FAST_SCALE_LIMIT;
            for (int k = 0; small && k < v.value.length; k++) {
                small = v.value[k] < FAST_VALUE_LIMIT;
            }
            if (small) {
                // The leaf widths 2^-depth sum to 1, so the sum is below 2^30 * 2^30: exact.
                long sum = 0;
                for (int k = 0; k < v.depth.length; k++) {
                    sum += v.value[k] << (FAST_SCALE_LIMIT - v.depth[k]);
                }
                return new Integral(sum, null, FAST_SCALE_LIMIT);
            }
            BigInteger sum = BigInteger.ZERO;
            for (int k = 0; k < v.depth.length; k++) {
                sum = sum.add(BigInteger.valueOf(v.value[k]).shiftLeft(scale - v.depth[k]));
            }
            return new Integral(0, sum, scale);
        }

        @Override
        public int compareTo(Integral o) {
            if (exact == null && o.exact == null) {
                return Long.compare(fast, o.fast);
            }
            BigInteger a = big().shiftLeft(Math.max(0, o.scale - scale));
            BigInteger b = o.big().shiftLeft(Math.max(0, scale - o.scale));
            return a.compareTo(b);
        }

        private BigInteger big() {
            return exact != null ? exact : BigInteger.valueOf(fast);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Version && Arrays.equals(depth, ((Version) o).depth)
                && Arrays.equals(value, ((Version) o).value);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(depth) + Arrays.hashCode(value);
    }

    /** ITC tree notation with absolute leaf counters, e.g. {@code (2, (3, 2))}. */
    @Override
    public String toString() {
        return TreeText.render(depth, value);
    }
}
