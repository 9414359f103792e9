package sush.ops.daemon;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.Entropy;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.RecordFormat;
import sush.locker.store.DirectorySlot;
import sush.locker.store.Locker;
import sush.locker.store.Slot;

/** The slot watch reports a change whoever found it first: itself, or a store that checked before writing. */
class SlotWatchTest {
    @TempDir
    Path dir;

    @Test
    void aChangeAStoreFoundFirstIsStillReported() throws Exception {
        Path a = Files.createDirectory(dir.resolve("m2-a"));
        Path b = Files.createDirectory(dir.resolve("m2-b"));
        List<Slot> slots = List.of(new DirectorySlot(a), new DirectorySlot(b));
        Locker.provision(RecordFormat.CAUSAL, slots, Entropy.seeded(1), BoundaryRecord.genesis("913:X"));
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, "913:X", slots, Entropy.seeded(2))) {
            assertTrue(l.trusted(), l.load().reason());
            try (var files = Files.list(b)) {
                for (Path f : files.toList()) {
                    Files.write(f, new byte[64]); // a job overwrites the slot's file
                }
            }
            // Found by someone else first (as a store does before it writes): the finding is
            // returned to that caller, once.
            assertTrue(l.verify().isPresent());
            assertFalse(l.trusted());
            CompletableFuture<String> reported = new CompletableFuture<>();
            SlotWatch w = SlotWatch.start(List.of(a, b), l, reported::complete);
            try {
                String finding = reported.get(SlotWatch.POLL.toSeconds() * 3, TimeUnit.SECONDS);
                assertTrue(finding.contains("changed by something other than this daemon"), finding);
            } finally {
                w.close();
            }
        }
    }
}
