package sush.pipeline.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.ChronicleQueue;
import sush.gossip.Entropy;

/** A journal's opening and closing: its budget, its segment, its clock at the epoch's first hour, and a closed journal. */
class JournalLifecycleTest {
    @TempDir
    Path dir;

    private static JournalRecord.Decision decision(int i) {
        return new JournalRecord.Decision(JournalRecord.Decision.Kind.ENTRY, "", Integer.toString(i));
    }

    private List<String> details() throws JournalException {
        List<String> read = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> read.add(((JournalRecord.Decision) r).detail()));
        return read;
    }

    private List<Path> cycles() throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(Journal.CYCLE_SUFFIX)).sorted().toList();
        }
    }

    @Test
    void aBudgetOfNoBytesIsRefused() {
        for (long budget : new long[] {0, -1}) {
            assertThrows(IllegalArgumentException.class,
                    () -> Journal.open(dir, Optional.empty(), Entropy.seeded(1), budget), "budget " + budget);
        }
    }

    /** Each opening's records carry the segment drawn from its entropy: {@code [0, segment, counter]} on disk. */
    @Test
    void anOpeningsRecordsCarryTheSegmentDrawnFromItsEntropy() throws Exception {
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(77))) {
            j.append(decision(0));
            j.append(decision(1));
        }
        byte[] segment = new byte[Long.BYTES];
        Entropy.seeded(77).nextBytes(segment);
        byte[] bytes = Files.readAllBytes(cycles().get(0));
        for (long counter = 0; counter < 2; counter++) {
            byte[] header = ByteBuffer.allocate(17).put((byte) 0).put(segment).putLong(counter).array();
            assertTrue(indexOf(bytes, header) >= 0, "record " + counter + "'s header");
        }
        assertEquals(List.of("0", "1"), details());
    }

    /**
     * Issue 38 at the epoch's very first hour (cycle 0): a clock that went back before it
     * appends to that hour, as for any other newest hour.
     */
    @Test
    void aClockBackBeforeTheFirstHourOfTheEpochAppendsToIt() throws Exception {
        long epoch = TimeUnit.HOURS.toMillis(400_000);
        SetTimeProvider ahead = new SetTimeProvider(TimeUnit.MILLISECONDS.toNanos(epoch + 60_000))
                .autoIncrement(0, TimeUnit.NANOSECONDS);
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(1), Long.MAX_VALUE,
                ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(Journal.CYCLE).epoch(epoch).timeProvider(ahead))) {
            j.append(decision(0));
        }
        SetTimeProvider back = new SetTimeProvider(TimeUnit.MILLISECONDS.toNanos(epoch - TimeUnit.HOURS.toMillis(5)))
                .autoIncrement(0, TimeUnit.NANOSECONDS);
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(2), Long.MAX_VALUE,
                ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(Journal.CYCLE).epoch(epoch).timeProvider(back))) {
            assertTrue(j.append(decision(1)));
        }
        assertEquals(List.of("0", "1"), details());
        assertEquals(1, cycles().size());
    }

    @Test
    void aClosedJournalIsNoLongerReadBack() throws Exception {
        Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(1));
        j.append(decision(0));
        List<JournalRecord> back = new ArrayList<>();
        j.readBack(back::add);
        assertEquals(List.of(decision(0)), back);
        j.close();
        assertThrows(IllegalStateException.class, () -> j.readBack(r -> { }));
        assertThrows(IllegalStateException.class, () -> j.append(decision(1)));
    }

    static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int k = 0; k < needle.length; k++) {
                if (hay[i + k] != needle[k]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
