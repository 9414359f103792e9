package sush.pipeline.disk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskReserveTest {
    @TempDir
    Path dir;

    private static DiskReserve of(long[] free, long reserve) {
        return new DiskReserve(() -> {
            if (free[0] < 0) {
                throw new IOException("statvfs failed");
            }
            return free[0];
        }, reserve, "/out");
    }

    @Test
    void outputsStopAtTheReserveTheJournalAtItsHalfAndTheSledIsShortBelowIt() {
        long[] free = {1000};
        DiskReserve d = of(free, 400);
        assertTrue(d.shortage().isEmpty());
        assertTrue(d.outputRoom(600));
        assertFalse(d.outputRoom(601), "an output never eats into the reserve");
        assertTrue(d.journalRoom(800));
        assertFalse(d.journalRoom(801), "the journal keeps half of it");
        free[0] = 399;
        assertTrue(d.shortage().orElseThrow().startsWith("no-space: 399 bytes free on /out, below its reserve of 400"));
        free[0] = 400;
        assertTrue(d.shortage().isEmpty(), "space returned: read afresh, no restart");
    }

    @Test
    void aGaugeThatCannotBeReadCountsAsShortWithTheError() {
        long[] free = {-1};
        DiskReserve d = of(free, 400);
        assertTrue(d.shortage().orElseThrow().contains("statvfs failed"));
        assertFalse(d.outputRoom(1));
        assertFalse(d.journalRoom(1));
        assertEquals(-1, d.usable());
    }

    @Test
    void theDefaultReserveIsATwentiethOfTheDiskAtMost64MiB() throws IOException {
        DiskReserve d = DiskReserve.of(dir, -1);
        long total = java.nio.file.Files.getFileStore(dir).getTotalSpace();
        assertEquals(Math.min(DiskReserve.MAX_DEFAULT, total / DiskReserve.DEFAULT_SHARE), d.reserve());
        assertEquals(12345, DiskReserve.of(dir, 12345).reserve());
        assertTrue(DiskReserve.NONE.shortage().isEmpty());
        assertTrue(DiskReserve.NONE.outputRoom(Long.MAX_VALUE / 2));
    }
}
