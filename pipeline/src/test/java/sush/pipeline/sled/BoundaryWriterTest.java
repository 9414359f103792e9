package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.gossip.Entropy;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.RecordFormat;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.locker.store.MemorySlot;
import sush.pipeline.Rack;

/** The boundary writer takes tickets that queued up during a store together (D-036). */
class BoundaryWriterTest {
    private final MemorySlot a = new MemorySlot("m2-a");
    private final MemorySlot b = new MemorySlot("m2-b");
    /** The writer's tasks, run when the test says (a store in progress holds the rest back). */
    private final List<Runnable> held = new ArrayList<>();
    private final reactor.core.scheduler.Scheduler writerTime = reactor.core.scheduler.Schedulers.fromExecutor(
            held::add);

    private void runWriter() {
        while (!held.isEmpty()) {
            held.remove(0).run();
        }
    }

    private Locker<BoundaryRecord> open() throws LockerException {
        return Locker.open(RecordFormat.CAUSAL, Rack.ME.baseboard(), List.of(a, b), Entropy.seeded(7));
    }

    private static Locker.Ticket<BoundaryRecord> next(Locker<BoundaryRecord> l) throws LockerException {
        return l.reserve(newest -> newest.orElse(BoundaryRecord.genesis(Rack.ME.baseboard())));
    }

    @Test
    void ticketsQueuedDuringAStoreAreWrittenOnceAsTheNewestAndEachIsAcknowledgedAfterIt() throws Exception {
        try (Locker<BoundaryRecord> l = open()) {
            BoundaryWriter w = new BoundaryWriter(l, writerTime);
            List<Long> acked = new ArrayList<>();
            w.store(next(l)).subscribe(acked::add);
            runWriter();
            assertEquals(1, acked.size());
            assertEquals(1, a.writes());
            // Three tickets (a commit, its outcome, the next commit) queue while the writer is busy.
            Locker.Ticket<BoundaryRecord> t2 = next(l);
            Locker.Ticket<BoundaryRecord> t3 = next(l);
            Locker.Ticket<BoundaryRecord> t4 = next(l);
            boolean[] drained = new boolean[1];
            w.store(t2).subscribe(acked::add);
            w.store(t3).subscribe(acked::add);
            w.drain().subscribe(null, null, () -> drained[0] = true);
            w.store(t4).subscribe(acked::add);
            assertEquals(1, acked.size(), "nothing is acknowledged before it is on the slots");
            runWriter();
            assertEquals(4, acked.size(), "every queued ticket acknowledged");
            assertTrue(drained[0]);
            assertEquals(2, a.writes(), "one store for the three");
            assertEquals(2, b.writes());
            assertEquals(t4.seq(), l.memory().stored(), "the newest of them is what the slots hold");
            assertEquals(2, w.coalesced());
        }
    }

    @Test
    void aFailedStoreFailsEveryTicketItWouldHaveAcknowledged() throws Exception {
        try (Locker<BoundaryRecord> l = open()) {
            BoundaryWriter w = new BoundaryWriter(l, writerTime);
            b.arm(MemorySlot.Fault.NO_SPACE, false);
            List<Throwable> failed = new ArrayList<>();
            List<Long> acked = new ArrayList<>();
            w.store(next(l)).subscribe(acked::add, failed::add);
            w.store(next(l)).subscribe(acked::add, failed::add);
            runWriter();
            assertEquals(List.of(), acked, "no job of the batch may launch");
            assertEquals(2, failed.size());
            failed.forEach(e -> assertInstanceOf(LockerException.class, e));
            assertEquals(0, l.memory().stored());
        }
    }

    @Test
    void aDrainInAFailedBatchStillCompletesAndIsNotCountedAsWaiting() throws Exception {
        try (Locker<BoundaryRecord> l = open()) {
            BoundaryWriter w = new BoundaryWriter(l, writerTime);
            b.arm(MemorySlot.Fault.NO_SPACE, false);
            List<Throwable> failed = new ArrayList<>();
            boolean[] drained = new boolean[1];
            w.store(next(l)).subscribe(null, failed::add);
            w.drain().subscribe(null, null, () -> drained[0] = true);
            assertEquals(1, w.waiting(), "the ticket waits; the drain is no store");
            runWriter();
            assertEquals(1, failed.size());
            assertTrue(drained[0], "the entry after a failed store still goes on");
            assertEquals(0, w.waiting());
        }
    }
}
