package sush.gossip.sync;

import java.util.Arrays;
import java.util.function.IntConsumer;

/**
 * The sleds a push has been sent to, as 32-bit name hashes: an immutable set of ints kept sorted
 * in one array. A push is decoded and relayed at every sled for every message; boxed hash sets
 * made it the largest source of garbage in dissemination.
 */
public final class Targets {
    private static final Targets NONE = new Targets(new int[0]);

    private final int[] sorted;

    private Targets(int[] sorted) {
        this.sorted = sorted;
    }

    /** The set of these hashes (repeats count once). */
    public static Targets of(int... hashes) {
        return of(hashes, hashes.length);
    }

    /** The set of the first {@code count} of {@code hashes} (repeats count once). */
    public static Targets of(int[] hashes, int count) {
        return count == 0 ? NONE : sortedOnce(Arrays.copyOf(hashes, count));
    }

    /** This set with the first {@code count} of {@code more} added. */
    public Targets with(int[] more, int count) {
        int[] all = Arrays.copyOf(sorted, sorted.length + count);
        System.arraycopy(more, 0, all, sorted.length, count);
        return all.length == 0 ? NONE : sortedOnce(all);
    }

    /** Sorts {@code a} (owned: changed in place) and keeps each value once. */
    private static Targets sortedOnce(int[] a) {
        Arrays.sort(a);
        int n = 1;
        for (int i = 1; i < a.length; i++) {
            if (a[i] != a[n - 1]) {
                a[n++] = a[i];
            }
        }
        return new Targets(n == a.length ? a : Arrays.copyOf(a, n));
    }

    public boolean contains(int hash) {
        return Arrays.binarySearch(sorted, hash) >= 0;
    }

    public int size() {
        return sorted.length;
    }

    /** Each hash, in ascending order. */
    public void forEach(IntConsumer action) {
        for (int h : sorted) {
            action.accept(h);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Targets && Arrays.equals(sorted, ((Targets) o).sorted);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(sorted);
    }

    @Override
    public String toString() {
        return Arrays.toString(sorted);
    }
}
