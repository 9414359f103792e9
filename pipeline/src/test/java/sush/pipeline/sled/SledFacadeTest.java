package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import sush.gossip.Entropy;
import sush.gossip.node.Entry;
import sush.gossip.set.ReplicaException;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.RecordFormat;
import sush.locker.store.Locker;
import sush.locker.store.MemorySlot;
import sush.pipeline.exec.LedgerLauncher;
import sush.pipeline.exec.Limits;
import sush.pipeline.Rack;
import sush.pipeline.disk.DiskReserve;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalRecord;
import sush.projections.id.JobId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * What the sled's façade and its loop show from outside: closing and halting (nothing runs after,
 * no store lands), the entry's wait for the writer, the pins of this life's commits in every
 * entry's fold, the times a clock stamps on an ending, and how a failure to send or to journal is
 * told.
 */
class SledFacadeTest {
    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    /** The journal's decisions of {@code kind} as {@code subject: detail} lines, in order. */
    private static List<String> decisions(Path dir, JournalRecord.Decision.Kind kind) throws Exception {
        List<String> out = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> {
            if (r instanceof JournalRecord.Decision && ((JournalRecord.Decision) r).kind() == kind) {
                JournalRecord.Decision d = (JournalRecord.Decision) r;
                out.add(d.subject() + ": " + d.detail());
            }
        });
        return out;
    }

    /** The journal's passes as {@code job how} lines, in order. */
    private static List<String> passes(Path dir) throws Exception {
        List<String> out = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> {
            if (r instanceof JournalRecord.Passed) {
                JournalRecord.Passed p = (JournalRecord.Passed) r;
                out.add(p.job().codephrase() + " " + p.how());
            }
        });
        return out;
    }

    @Test
    void closingInTimeOnlyWhenTheLoopSaysSoAndNoStageRunsAfterIt() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "c", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        assertEquals(1, h.ledger.size());
        assertTrue(h.sled.close(Duration.ofSeconds(5)), "the loop (virtual time) said so at once");
        h.settle();
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        assertTrue(h.events(SledEvent.Ended.class).isEmpty(), "no stage runs once closing: " + h.snapshot());
        assertTrue(h.gossiped(Message.JobStopped.class).isEmpty());
    }

    @Test
    void closingHaltsTheWriterSoAStoreItHeldNeverLands() throws Exception {
        SledHarness h = new SledHarness().provision();
        List<Runnable> held = new ArrayList<>();
        h.bootHoldingWrites(held);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "c", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        assertEquals(1, h.sled.pendingLaunches(), "committed, its store held");
        byte[] before = h.a.contents().orElseThrow();
        assertTrue(h.sled.close(Duration.ofSeconds(5)));
        h.settle();
        h.runHeld(held);
        assertArrayEquals(before, h.a.contents().orElseThrow(), "the halted writer stored nothing more");
        assertEquals(0, h.ledger.size());
    }

    @Test
    void aHaltedSledSendsNoMoreWatermarks() throws Exception {
        for (boolean halt : List.of(false, true)) {
            SledHarness h = new SledHarness().provision();
            h.configure = c -> c.withSettling(new SledConfig.Settling(List.of(Rack.ME), Duration.ofSeconds(1)));
            h.boot(1);
            List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "m", "*");
            h.operator(Rack.start(1));
            h.operator(new Message.JobStart(jobs.get(0)));
            h.sync();
            if (halt) {
                h.sled.halt();
                h.settle();
            }
            h.time.advanceTimeBy(Duration.ofSeconds(5));
            assertEquals(halt, h.gossiped(Message.Watermark.class).isEmpty(), "halted " + halt + ": " + h.gossiped());
        }
    }

    @Test
    void theFacadeTellsItsDiskAndItsPendingLaunches() throws Exception {
        SledHarness h = new SledHarness().provision();
        h.disk = new DiskReserve(() -> 10L << 20, 1L << 20, "/out");
        List<Runnable> held = new ArrayList<>();
        h.writerTime = Schedulers.fromExecutor(held::add);
        h.boot(1);
        assertSame(h.disk, h.sled.disk());
        h.runHeld(held);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "p", "*", true);
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        assertEquals(2, h.sled.pendingLaunches());
        h.runHeld(held);
        assertEquals(0, h.sled.pendingLaunches());
    }

    @Test
    void theViewShowsTheEntrysFloorAndNoFoldWhileTheNextEntryWaitsForTheWriter() throws Exception {
        SledHarness h = new SledHarness();
        List<Runnable> held = new ArrayList<>();
        h.bootHoldingWrites(held);
        SledRuntime.View v = h.sled.view().block();
        assertTrue(v.floor().isPresent(), "an unprovisioned sled's entry raised a floor");
        assertEquals(h.events(SledEvent.FloorRaised.class).get(0).version(), v.floor().get());
        assertNotNull(v.fold());
        h.migrate(2);
        assertNull(h.sled.view().block().fold(), "the entry left is folded no more while the writer drains");
        h.runHeld(held);
        assertNotNull(h.sled.view().block().fold());
    }

    @Test
    void anEntryWhoseWriterCannotDrainFailsTheSledClosed() throws Exception {
        SledHarness h = new SledHarness().provision();
        h.writerTime = Schedulers.fromExecutor(r -> {
            throw new RejectedExecutionException("the writer is gone");
        });
        h.boot(1);
        assertTrue(h.sled.failure().orElseThrow().startsWith("entry: "), h.sled.failure().toString());
        assertEquals("entry", h.events(SledEvent.Halted.class).get(0).stage());
        assertTrue(h.events(SledEvent.Entered.class).isEmpty());
    }

    @Test
    void thisLifesCommitsArePinnedInEveryEntrysFoldUntilTheyEnd() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "q", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        assertTrue(h.sled.view().block().fold().pins().containsKey(id(jobs.get(0))));
        h.migrate(2);
        assertEquals(Optional.of(Rack.session(1)),
                Optional.ofNullable(h.sled.view().block().fold().pins().get(id(jobs.get(0)))).map(p -> p.session()),
                "carried into the new universe's fold");
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        assertFalse(h.sled.view().block().fold().pins().containsKey(id(jobs.get(0))), "unpinned at its end");
        h.migrate(3);
        assertFalse(h.sled.view().block().fold().pins().containsKey(id(jobs.get(0))), "not carried once ended");
    }

    @Test
    void aJobWhoseCommitFailedIsNotPinned() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        h.b.arm(MemorySlot.Fault.NO_SPACE, true);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "f", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        assertEquals(1, h.events(SledEvent.Reserved.class).size());
        assertFalse(h.sled.view().block().fold().pins().containsKey(id(jobs.get(0))));
        h.migrate(2);
        assertFalse(h.sled.view().block().fold().pins().containsKey(id(jobs.get(0))));
    }

    @Test
    void aClockStampsAnEndingWithItsStartItsEndAndItsDuration() throws Exception {
        long[] wall = {1_000};
        long[] mono = {7_000_000_000L};
        SledClock clock = new SledClock() {
            @Override
            public long wallMillis() {
                return wall[0];
            }

            @Override
            public long monotonicNanos() {
                return mono[0];
            }
        };
        SledHarness h = new SledHarness().provision();
        h.configure = c -> new SledConfig(c.me(), c.trust(), c.software(), c.limits(), Optional.of(clock), c.api(),
                c.bounds(), c.disk(), c.settling());
        h.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "t", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        wall[0] = 4_500;
        mono[0] = 10_000_000_000L;
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        Message.JobStopped s = h.gossiped(Message.JobStopped.class).get(0);
        assertEquals(1_000L, s.startedAtMs());
        assertEquals(4_500L, s.endedAtMs());
        assertEquals(3_000L, s.durationMs(), "by the monotonic clock");
    }

    @Test
    void aStopWhileTheCommitIsStoredIsJournalledAsItsEnding(@TempDir Path dir) throws Exception {
        SledHarness h = new SledHarness().provision();
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(3)));
        List<Runnable> held = new ArrayList<>();
        h.bootHoldingWrites(held);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "w", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        h.operator(new Message.JobStop(id(jobs.get(0)), "operator"));
        h.sync();
        h.runHeld(held);
        h.journal.get().close();
        assertEquals(0, h.ledger.size());
        assertEquals(List.of(id(jobs.get(0)).codephrase()
                + ": cancelled before its launch: its starter's stop arrived while its commit was stored"),
                decisions(dir, JournalRecord.Decision.Kind.ENDING));
    }

    @Test
    void aJobRefusedForSpaceOrAFullQueueIsPassedMayHaveRunAndTheSledGoesOn(@TempDir Path dir) throws Exception {
        long[] free = {0};
        SledHarness h = new SledHarness().provision();
        h.disk = new DiskReserve(() -> free[0], 1L << 20, "/out");
        h.journal = Optional.of(Journal.open(dir.resolve("space"), Optional.empty(), Entropy.seeded(4)));
        h.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "s", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        h.journal.get().close();
        assertTrue(h.sled.failure().isEmpty(), h.sled.failure().toString());
        assertEquals(List.of(id(jobs.get(0)).codephrase() + " MAY_HAVE_RUN"), passes(dir.resolve("space")));

        SledHarness g = new SledHarness().provision();
        List<Runnable> held = new ArrayList<>();
        g.writerTime = Schedulers.fromExecutor(held::add);
        g.journal = Optional.of(Journal.open(dir.resolve("queue"), Optional.empty(), Entropy.seeded(5)));
        g.boot(1);
        g.runHeld(held);
        List<SignedJob> many = Rack.jobs(Rack.session(1), SledRuntime.MAX_PENDING_LAUNCHES + 1, "c", "*", true);
        g.operator(Rack.start(1));
        many.forEach(j -> g.operator(new Message.JobStart(j)));
        g.sync();
        g.journal.get().close();
        assertTrue(g.sled.failure().isEmpty(), g.sled.failure().toString());
        List<String> passed = passes(dir.resolve("queue"));
        assertEquals(many.get(many.size() - 1).request().job().codephrase() + " MAY_HAVE_RUN",
                passed.get(passed.size() - 1));
    }

    @Test
    void anErrorOfTheJvmIsNotJournalledButAnExceptionIs(@TempDir Path dir) throws Exception {
        for (Throwable fault : List.<Throwable>of(new InternalError("unsafe memory access"),
                new IllegalStateException("plain fault"))) {
            Path at = dir.resolve(fault.getClass().getSimpleName());
            SledHarness h = new SledHarness().provision();
            h.journal = Optional.of(Journal.open(at, Optional.empty(), Entropy.seeded(6)));
            boolean[] thrown = new boolean[1];
            h.beforeStart = sled -> sled.probe(s -> {
                if (s.equals("delivery") && !thrown[0]) {
                    thrown[0] = true;
                    if (fault instanceof Error) {
                        throw (Error) fault;
                    }
                    throw (RuntimeException) fault;
                }
            });
            h.boot(1);
            h.operator(Rack.start(1));
            h.sync();
            h.journal.get().close();
            assertTrue(h.sled.failure().isPresent());
            boolean journalled = decisions(at, JournalRecord.Decision.Kind.ERROR).stream()
                    .anyMatch(d -> d.contains("fail closed: delivery"));
            assertEquals(!(fault instanceof Error), journalled, fault.toString());
        }
    }

    @Test
    void aJournalThatCannotRecordTheFailureIsToldAsAnEvent(@TempDir Path dir) throws Exception {
        SledHarness h = new SledHarness().provision();
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(7)));
        h.journal.get().close();
        h.boot(1);
        assertTrue(h.sled.failure().isPresent());
        assertTrue(h.events(SledEvent.Failed.class).stream()
                .anyMatch(f -> f.what().startsWith("the journal could not record the failure: ")),
                h.events(SledEvent.Failed.class).toString());
    }

    @Test
    void aSendTheSetRefusesIsAnErrorEvent() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "r", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sendFault = new ReplicaException(ReplicaException.Kind.SET_FULL, "the set is full");
        h.sync();
        assertEquals(1, h.ledger.size());
        assertTrue(h.events(SledEvent.Failed.class).stream()
                .anyMatch(f -> f.what().equals("gossip send of JobStarted: SET_FULL: the set is full")),
                h.events(SledEvent.Failed.class).toString());
        assertTrue(h.events(SledEvent.Deferred.class).isEmpty());
    }

    @Test
    void closingReturnsFalseWhenTheLoopDoesNotAnswerInTime() throws Exception {
        SledHarness h = new SledHarness().provision();
        List<Runnable> stalled = new ArrayList<>();
        Locker<BoundaryRecord> locker = Locker.open(RecordFormat.CAUSAL, Rack.ME.baseboard(), List.of(h.a, h.b),
                Entropy.seeded(1));
        Gossip gossip = new Gossip() {
            @Override
            public Flux<Entry> entries() {
                return Flux.never();
            }

            @Override
            public void send(byte[] payload) {
            }
        };
        SledRuntime sled = new SledRuntime(new SledConfig(Rack.ME, h.trust, "0.1.0", Limits.DEFAULT), gossip, locker,
                new LedgerLauncher(Rack.ME.baseboard(), h.ledger, false), Optional.empty(),
                Schedulers.fromExecutor(stalled::add), h.time);
        assertFalse(sled.close(Duration.ofMillis(20)), "the loop ran nothing");
        locker.close();
    }
}
