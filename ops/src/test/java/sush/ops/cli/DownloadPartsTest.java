package sush.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The parallel download's ranges: contiguous, covering, at least 1 MiB each, at most the parallelism asked. */
class DownloadPartsTest {
    private static void covers(long length, int parallel, int parts) {
        List<long[]> r = Download.parts(length, parallel);
        assertEquals(parts, r.size(), length + " bytes by " + parallel);
        long next = 0;
        for (long[] p : r) {
            assertEquals(next, p[0]);
            assertTrue(p[1] >= p[0]);
            next = p[1] + 1;
        }
        assertEquals(length, next);
    }

    @Test
    void rangesCoverTheOutputAtTheBounds() {
        covers(0, 4, 0);
        covers(1, 4, 1);
        covers(Download.MIN_PART_BYTES, 4, 1);
        covers(Download.MIN_PART_BYTES + 1, 4, 2);
        covers(3_000_000, 4, 3);
        covers(100L << 20, Download.MAX_PARALLEL, Download.MAX_PARALLEL);
        covers((100L << 20) + 7, 1, 1);
    }
}
