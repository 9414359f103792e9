package sush.ops.auth;

import java.util.Arrays;

/**
 * The sequence numbers an identity has used, within the last {@link Authority#WINDOW} below the
 * highest: what makes each signed request good once, while requests sent at once may arrive out of
 * order. Not thread-safe: the {@link Authority} holding it guards it.
 */
final class SequenceWindow {
    private long highest = -1;
    private final long[] seen = new long[Authority.WINDOW / 64];

    /** Whether {@code seq} is new (and records it): above the highest, or inside the window and unseen. */
    boolean accept(long seq) {
        if (seq < 0) {
            return false;
        }
        if (seq > highest) {
            long shift = highest < 0 ? Authority.WINDOW : seq - highest;
            if (shift >= Authority.WINDOW) {
                Arrays.fill(seen, 0);
            } else {
                for (long i = 0; i < shift; i++) {
                    clear(highest + 1 + i);
                }
            }
            highest = seq;
            mark(seq);
            return true;
        }
        if (highest - seq >= Authority.WINDOW || marked(seq)) {
            return false;
        }
        mark(seq);
        return true;
    }

    private int slot(long seq) {
        return (int) Math.floorMod(seq, (long) Authority.WINDOW);
    }

    private void mark(long seq) {
        seen[slot(seq) / 64] |= 1L << (slot(seq) % 64);
    }

    private void clear(long seq) {
        seen[slot(seq) / 64] &= ~(1L << (slot(seq) % 64));
    }

    private boolean marked(long seq) {
        return (seen[slot(seq) / 64] & (1L << (slot(seq) % 64))) != 0;
    }
}
