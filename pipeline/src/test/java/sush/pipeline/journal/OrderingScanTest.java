package sush.pipeline.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.ChronicleQueue;
import sush.gossip.Entropy;
import sush.pipeline.Rack;
import sush.projections.fold.Ordering;
import sush.projections.message.Message;

/**
 * A journal's ordering is looked for in its first {@value Replay#ORDERING_SCAN_RECORDS} records
 * exactly: a grant that is the last of them says signed, one just after is not seen (a million
 * records: a few seconds).
 */
class OrderingScanTest {
    @TempDir
    Path dir;

    @Test
    void theGrantIsSeenUpToTheLastRecordScannedAndNotAfter() throws Exception {
        SetTimeProvider clock = new SetTimeProvider(TimeUnit.HOURS.toNanos(440_000)).autoIncrement(0, TimeUnit.NANOSECONDS);
        JournalRecord filler = new JournalRecord.Decision(JournalRecord.Decision.Kind.ENTRY, "", "");
        Rack.Delivery grant = new Rack.Stream(2).add(new Message.SessionGrant(Rack.grant(1_700_000_000_000L, 1)))
                .deliveries.get(0);
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(1), Long.MAX_VALUE,
                ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(Journal.CYCLE).timeProvider(clock))) {
            j.append(filler); // alone in the first hour
            clock.advanceMillis(TimeUnit.HOURS.toMillis(1));
            for (long i = 1; i < Replay.ORDERING_SCAN_RECORDS; i++) {
                j.append(filler);
            }
            j.append(new JournalRecord.Delivered(grant.version(), grant.payload()));
        }
        assertEquals(Ordering.CAUSAL, Replay.orderingOf(dir, Optional.empty()), "the grant is record 1,000,001");
        // The first hour deleted by a budget of one byte: the grant is the millionth record.
        try (Journal j = Journal.open(dir, Optional.empty(), Entropy.seeded(2), 1,
                ChronicleQueue.singleBuilder(dir.toFile()).rollCycle(Journal.CYCLE).timeProvider(clock))) {
            assertEquals(0, j.prune(), "already pruned as it opened");
        }
        assertEquals(Ordering.SIGNED, Replay.orderingOf(dir, Optional.empty()));
    }
}
