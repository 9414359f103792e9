package sush.gossip.clock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import sush.gossip.wire.MalformedException;

/**
 * An interval-tree-clock identity (Almeida, Baquero and Fonte, 2008): the part of the unit
 * interval a party owns. Immutable, always in normal form; equality follows the bytes.
 */
public final class Id {
    /** Owns nothing: may observe but never tick. */
    public static final Id ZERO = new Id(new int[] {0}, new long[] {0});
    /** Owns everything: the seed of a universe. */
    public static final Id ONE = new Id(new int[] {0}, new long[] {1});

    final int[] depth;
    /** 0 or 1 per leaf. */
    final long[] bit;
    private byte[] encoded;

    Id(int[] depth, long[] bit) {
        this.depth = depth;
        this.bit = bit;
    }

    static Id of(Leaves leaves) {
        Leaves normal = leaves.normalize();
        if (normal.size == 1) {
            return normal.value[0] == 0 ? ZERO : ONE;
        }
        return new Id(normal.depths(), normal.values());
    }

    public boolean isZero() {
        return depth.length == 1 && bit[0] == 0;
    }

    public boolean isOne() {
        return depth.length == 1 && bit[0] == 1;
    }

    /** Number of leaves of the normal form. */
    public int leafCount() {
        return depth.length;
    }

    /**
     * Splits this identity into two disjoint halves whose join is this identity.
     * split(0) = (0,0); split(1) = ((1,0),(0,1)); down the single non-zero child otherwise;
     * at the first node with two non-zero children, each half takes one child.
     */
    public Id[] fork() {
        if (isZero()) {
            return new Id[] {ZERO, ZERO};
        }
        int n = depth.length;
        int start = 0;
        int end = n;
        int t = 0;
        while (depth[start] != t) {
            boolean leftZero = depth[start] == t + 1 && bit[start] == 0;
            boolean rightZero = depth[end - 1] == t + 1 && bit[end - 1] == 0;
            if (leftZero) {
                start++;
            } else if (rightZero) {
                end--;
            } else {
                int middle = Leaves.subtreeEnd(depth, start, t + 1, new IntStack());
                return new Id[] {replaceRange(middle, end, t + 1), replaceRange(start, middle, t + 1)};
            }
            t++;
        }
        // A whole 1-leaf at depth t: ((1,0),(0,1)) in its place.
        return new Id[] {splitLeaf(start, 1, 0), splitLeaf(start, 0, 1)};
    }

    /**
     * Splits this identity into {@code shares} disjoint identities, as balanced as repeated
     * halving allows (the first shares get the larger halves). Their join is this identity.
     */
    public List<Id> fork(int shares) {
        if (shares < 1) {
            throw new IllegalArgumentException("shares must be at least 1: " + shares);
        }
        List<Id> ids = new ArrayList<>(List.of(this));
        List<Integer> counts = new ArrayList<>(List.of(shares));
        boolean more = shares > 1;
        while (more) {
            more = false;
            List<Id> nextIds = new ArrayList<>();
            List<Integer> nextCounts = new ArrayList<>();
            for (int k = 0; k < ids.size(); k++) {
                int c = counts.get(k);
                if (c == 1) {
                    nextIds.add(ids.get(k));
                    nextCounts.add(1);
                    continue;
                }
                Id[] halves = ids.get(k).fork();
                nextIds.add(halves[0]);
                nextCounts.add((c + 1) / 2);
                nextIds.add(halves[1]);
                nextCounts.add(c / 2);
                more |= c > 2;
            }
            ids = nextIds;
            counts = nextCounts;
        }
        return List.copyOf(ids);
    }

    /** The union of two disjoint identities. */
    public Id join(Id other) {
        if (isZero()) {
            return other;
        }
        if (other.isZero()) {
            return this;
        }
        Cursor a = new Cursor(depth, bit);
        Cursor b = new Cursor(other.depth, other.bit);
        Leaves out = new Leaves(depth.length + other.depth.length);
        boolean more;
        do {
            Cursor.align(a, b);
            if (a.value() == 1 && b.value() == 1) {
                throw new ClockException(ClockException.Kind.OVERLAPPING_IDS,
                        "identities " + this + " and " + other + " overlap");
            }
            out.add(a.depth(), a.value() | b.value());
            more = a.advance();
            b.advance();
        } while (more);
        return of(out);
    }

    /** Canonical bytes (see {@link ClockCodec}). */
    public byte[] toBytes() {
        byte[] bytes = encoded;
        if (bytes == null) {
            bytes = ClockCodec.encode(depth, bit, false);
            encoded = bytes;
        }
        return bytes.clone();
    }

    public static Id fromBytes(byte[] bytes) throws MalformedException {
        Leaves leaves = ClockCodec.decode(bytes, false);
        return leaves.size == 1 ? (leaves.value[0] == 0 ? ZERO : ONE)
                : new Id(leaves.depths(), leaves.values());
    }

    private Id replaceRange(int from, int to, int d) {
        Leaves out = new Leaves(depth.length);
        out.depth = Arrays.copyOf(depth, depth.length);
        out.value = Arrays.copyOf(bit, bit.length);
        out.size = from;
        out.add(d, 0);
        for (int k = to; k < depth.length; k++) {
            out.add(depth[k], bit[k]);
        }
        return of(out);
    }

    private Id splitLeaf(int index, long left, long right) {
        Leaves out = new Leaves(depth.length + 1);
        for (int k = 0; k < depth.length; k++) {
            if (k == index) {
                out.add(depth[k] + 1, left);
                out.add(depth[k] + 1, right);
            } else {
                out.add(depth[k], bit[k]);
            }
        }
        return of(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Id && Arrays.equals(depth, ((Id) o).depth) && Arrays.equals(bit, ((Id) o).bit);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(depth) + Arrays.hashCode(bit);
    }

    /** ITC notation, e.g. {@code (1, (0, 1))}. */
    @Override
    public String toString() {
        return TreeText.render(depth, bit);
    }
}
