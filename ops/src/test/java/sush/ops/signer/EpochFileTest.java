package sush.ops.signer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A signer never issues one epoch twice: clocks standing still, going back, crashes between issues. */
class EpochFileTest {
    @TempDir
    Path dir;

    @Test
    void epochsFollowTheClockAndStayStrictlyIncreasingWhenItStandsOrGoesBack() throws Exception {
        Path f = EpochFile.beside(dir.resolve("signer.key"));
        assertEquals(dir.resolve("signer.key.epoch"), f);
        assertEquals(OptionalLong.empty(), EpochFile.last(f));
        assertEquals(1_000, EpochFile.next(f, () -> 1_000));
        assertEquals(1_001, EpochFile.next(f, () -> 1_000), "the clock stood still");
        assertEquals(5_000, EpochFile.next(f, () -> 5_000), "the clock moved on");
        assertEquals(5_001, EpochFile.next(f, () -> 10), "the clock went back");
        assertEquals(OptionalLong.of(5_001), EpochFile.last(f));
        assertEquals("5001\n", Files.readString(f), "durable, in the documented form");
        assertEquals(0, EpochFile.next(dir.resolve("fresh.epoch"), () -> -7), "a clock before 1970 starts at 0");
    }

    @Test
    void aFileThatIsNoEpochIsRefusedAndLeftAsItWas() throws Exception {
        Path f = dir.resolve("signer.key.epoch");
        for (String bad : new String[] {"", "12", "012\n", "-5\n", "9223372036854775808\n", "1 2\n", "abc\n",
                "99999999999999999999\n"}) {
            Files.writeString(f, bad);
            assertThrows(EpochFile.EpochException.class, () -> EpochFile.next(f, () -> 1), bad);
            assertEquals(bad, Files.readString(f), "unchanged");
        }
        Files.writeString(f, "9223372036854775807\n");
        assertThrows(EpochFile.EpochException.class, () -> EpochFile.next(f, () -> 1), "the last epoch");
        assertThrows(EpochFile.EpochException.class,
                () -> EpochFile.next(dir.resolve("missing/signer.key.epoch"), () -> 1));
    }

    @Test
    void concurrentIssuersNeverShareAnEpoch() throws Exception {
        Path f = dir.resolve("signer.key.epoch");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Long>> issued = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                issued.add(pool.submit(() -> EpochFile.next(f, () -> 42)));
            }
            Set<Long> seen = new HashSet<>();
            for (Future<Long> e : issued) {
                assertTrue(seen.add(e.get()), "issued twice: " + e.get());
            }
            assertEquals(OptionalLong.of(241), EpochFile.last(f));
        } finally {
            pool.shutdownNow();
        }
    }
}
