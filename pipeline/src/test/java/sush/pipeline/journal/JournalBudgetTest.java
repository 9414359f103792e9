package sush.pipeline.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/** Issue 16: the journal rolls every hour and keeps its files within a byte budget, oldest deleted first. */
class JournalBudgetTest {
    @TempDir
    Path dir;

    private List<Path> cycles() throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(Journal.CYCLE_SUFFIX)).sorted().toList();
        }
    }

    private static JournalRecord.Decision decision(int i) {
        return new JournalRecord.Decision(JournalRecord.Decision.Kind.ENTRY, "hour", Integer.toString(i));
    }

    @Test
    void eachHourRollsAndTheOldestHoursGoPastTheBudgetNeverTheCurrentOne() throws Exception {
        SetTimeProvider clock = new SetTimeProvider(TimeUnit.HOURS.toNanos(400_000)).autoIncrement(0, TimeUnit.NANOSECONDS);
        long oneFile;
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(1), Long.MAX_VALUE,
                ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(Journal.CYCLE).timeProvider(clock))) {
            j.append(decision(0));
            oneFile = Files.size(cycles().get(0));
        }
        assertEquals(1, cycles().size());
        List<String> first = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> first.add(((JournalRecord.Decision) r).detail()));
        assertEquals(List.of("0"), first);
        // A budget of two and a half files: each hour after the third deletes the oldest.
        long budget = oneFile * 5 / 2;
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(2), budget,
                ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(Journal.CYCLE).timeProvider(clock))) {
            for (int hour = 1; hour <= 5; hour++) {
                clock.advanceMillis(TimeUnit.HOURS.toMillis(1));
                j.append(decision(hour));
                assertTrue(cycles().size() <= 2, "hour " + hour + ": " + cycles());
            }
        }
        assertEquals(2, cycles().size(), "the last two hours are kept");
        List<String> read = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> read.add(((JournalRecord.Decision) r).detail()));
        assertEquals(List.of("4", "5"), read, "the journal reads from its first remaining record");
    }

    /**
     * Issue 38 (the nemesis): a daemon restarted with its wall clock a day ahead wrote that
     * day's hour; restarted again with the true clock, every append failed (Chronicle's
     * {@code WriteAfterEOFException}: an hour before one that exists is closed), the sled failed
     * closed, and its supervisor restarted it 31 times in four minutes. The journal is ordered by
     * its own records, never by the clock: a clock behind its newest hour appends to that hour.
     */
    @Test
    void aWallClockThatWentBackAppendsAfterTheNewestHourNeverFails() throws Exception {
        SetTimeProvider clock = new SetTimeProvider(TimeUnit.HOURS.toNanos(420_000)).autoIncrement(0, TimeUnit.NANOSECONDS);
        clock.advanceMillis(TimeUnit.HOURS.toMillis(26));
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(1), Long.MAX_VALUE,
                ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(Journal.CYCLE).timeProvider(clock))) {
            j.append(decision(0));
        }
        SetTimeProvider back = new SetTimeProvider(TimeUnit.HOURS.toNanos(420_000)).autoIncrement(0, TimeUnit.NANOSECONDS);
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(2), Long.MAX_VALUE,
                ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(Journal.CYCLE).timeProvider(back))) {
            assertTrue(j.append(decision(1)), "written");
            back.advanceMillis(TimeUnit.HOURS.toMillis(1));
            assertTrue(j.append(decision(2)), "written an hour later");
        }
        List<String> read = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> read.add(((JournalRecord.Decision) r).detail()));
        assertEquals(List.of("0", "1", "2"), read, "every record, in the order written");
        assertEquals(1, cycles().size(), "appended to the newest hour: " + cycles());
    }

    @Test
    void theCurrentHourIsKeptWhateverItsSize() throws Exception {
        SetTimeProvider clock = new SetTimeProvider(TimeUnit.HOURS.toNanos(410_000)).autoIncrement(0, TimeUnit.NANOSECONDS);
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(1), 1,
                ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(Journal.CYCLE).timeProvider(clock))) {
            j.append(decision(0));
            clock.advanceMillis(TimeUnit.HOURS.toMillis(1));
            j.append(decision(1));
            assertEquals(1, cycles().size());
            assertEquals(0, j.prune(), "the only file left is the current hour's");
        }
    }

    private SetTimeProvider clock() {
        return new SetTimeProvider(TimeUnit.HOURS.toNanos(430_000)).autoIncrement(0, TimeUnit.NANOSECONDS);
    }

    private Journal open(long budget, SetTimeProvider clock, long seed) {
        return Journal.open(dir, Optional.empty(), Entropy.seeded(seed), budget,
                ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(Journal.CYCLE).timeProvider(clock));
    }

    /** Writes one record in each of {@code hours} hours, with no budget; the clock stays in the last. */
    private long hours(SetTimeProvider clock, int hours) throws Exception {
        try (Journal j = open(Long.MAX_VALUE, clock, 1)) {
            for (int hour = 0; hour < hours; hour++) {
                if (hour > 0) {
                    clock.advanceMillis(TimeUnit.HOURS.toMillis(1));
                }
                j.append(decision(hour));
            }
        }
        long total = 0;
        for (Path p : cycles()) {
            total += Files.size(p);
        }
        return total;
    }

    @Test
    void filesExactlyAtTheBudgetAreAllKept() throws Exception {
        SetTimeProvider clock = clock();
        long total = hours(clock, 2);
        try (Journal j = open(total, clock, 2)) {
            assertEquals(2, cycles().size(), "not over the budget");
            assertEquals(0, j.prune());
        }
        List<String> read = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> read.add(((JournalRecord.Decision) r).detail()));
        assertEquals(List.of("0", "1"), read);
    }

    @Test
    void onlyAsManyHoursAreDeletedAsTheBudgetNeeds() throws Exception {
        SetTimeProvider clock = clock();
        long total = hours(clock, 3);
        try (Journal j = open(total / 3 * 2, clock, 2)) {
            assertEquals(2, cycles().size(), "the oldest hour alone is deleted: " + cycles());
            assertEquals(0, j.prune());
        }
        List<String> read = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> read.add(((JournalRecord.Decision) r).detail()));
        assertEquals(List.of("1", "2"), read);
    }

    /** Hours another writer of the directory added are pruned when this journal checks: it says how many. */
    @Test
    void pruneSaysHowManyHoursItDeleted() throws Exception {
        SetTimeProvider clock = clock();
        try (Journal small = open(1, clock, 1)) {
            assertEquals(0, small.prune(), "nothing yet");
            hours(clock, 3);
            assertEquals(3, cycles().size());
            assertEquals(2, small.prune());
            assertEquals(1, cycles().size(), "the newest hour is kept");
            assertEquals(0, small.prune());
        }
        List<String> read = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> read.add(((JournalRecord.Decision) r).detail()));
        assertEquals(List.of("2"), read);
    }
}
