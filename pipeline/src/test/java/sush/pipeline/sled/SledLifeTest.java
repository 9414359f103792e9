package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.gossip.Entropy;
import sush.gossip.clock.Version;
import sush.locker.admission.FloorCause;
import sush.locker.record.RecordFormat;
import sush.locker.record.Bloom;
import sush.locker.record.BoundaryRecord;
import sush.locker.store.Locker;
import sush.locker.store.MemorySlot;
import sush.pipeline.Rack;
import sush.projections.id.JobId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/** The sled across entries, restarts and failures (issue 6's list), on virtual time. */
class SledLifeTest {
    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    private static List<JobId> ids(List<SignedJob> jobs) {
        return jobs.stream().map(SledLifeTest::id).toList();
    }

    @Test
    void aUniverseFlipFlopRaisesTheFloorAndGossipsItsError() throws Exception {
        SledHarness h = new SledHarness();
        BoundaryRecord left = new BoundaryRecord(Rack.ME.baseboard(), SledHarness.universe(9), Version.ZERO,
                Optional.empty(), List.of(), Bloom.EMPTY.with(SledHarness.universe(1)), false);
        try (Locker<BoundaryRecord> l = Locker.open(RecordFormat.CAUSAL, Rack.ME.baseboard(), List.of(h.a, h.b), Entropy.seeded(99))) {
            l.store(l.reserve(none -> left));
        }
        h.boot(1);
        assertTrue(h.gossiped().get(0) instanceof Message.Announcement);
        Message.RackError e = (Message.RackError) h.gossiped().get(1);
        assertEquals(Message.RackErrorKind.UNIVERSE_FLIP_FLOP, e.kind());
        assertEquals(FloorCause.UNIVERSE_FLIP_FLOP, h.events(SledEvent.FloorRaised.class).get(0).cause());
    }

    @Test
    void aHopRefusesTheOtherSidesSessionThenServesANewerOne() throws Exception {
        SledHarness h = new SledHarness().provision();
        // Side 1 never heard of A; it started B concurrently.
        SignedJob a = h.hopToAConcurrentSide();
        assertEquals(Message.RackErrorKind.SESSION_HOP, h.gossiped(Message.RackError.class).get(0).kind());
        assertEquals(FloorCause.SESSION_HOP, h.events(SledEvent.FloorRaised.class).get(0).cause());
        assertEquals(Message.SkipReason.BELOW_FLOOR, h.gossiped(Message.JobSkipped.class).get(0).reason());
        assertEquals(1, h.ledger.size(), "B never ran");
        // A session started on this side after the sled's floor is served.
        List<SignedJob> d = Rack.jobs(Rack.session(4), 1, "d", "*");
        h.operator(Rack.start(4));
        h.operator(new Message.JobStart(d.get(0)));
        h.sync();
        assertEquals(List.of(id(a), id(d.get(0))), h.ledger.stream().map(l -> l.job()).toList());
    }

    @Test
    void queuedJobsBeforeARestartRunAfterIt() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 3, "q", "*");
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        h.sync();
        assertEquals(2, h.ledger.size(), "job 1 runs, job 2 is queued behind it");
        h.crash(); // job 1 was running
        h.boot(1);
        h.sync();
        assertEquals(ids(jobs), h.ledger.stream().map(l -> l.job()).toList(), "job 2 ran after the restart");
        assertEquals(Message.JobError.INTERRUPTED, h.gossiped(Message.JobErrored.class).get(0).kind());
        assertEquals(id(jobs.get(1)), h.gossiped(Message.JobErrored.class).get(0).job(), "the running job was reaped");
    }

    @Test
    void aMigrationSurvivorIsNotReapedAndReportsItsRealEnding() throws Exception {
        SledHarness h = new SledHarness().provision().boot(2);
        List<SignedJob> c = Rack.jobs(Rack.session(3), 1, "c", "*");
        h.operator(Rack.start(3));
        h.operator(new Message.JobStart(c.get(0)));
        h.sync();
        assertEquals(1, h.ledger.size());
        h.migrate(1);
        h.migrate(2); // back where this life's own start of c0 is, still running
        assertTrue(h.gossiped(Message.JobErrored.class).isEmpty(), "a survivor is no zombie");
        h.launcher.end(id(c.get(0)), 7);
        h.settle();
        Message.JobStopped stopped = h.gossiped(Message.JobStopped.class).get(0);
        assertEquals(7, stopped.exitCode().intValue());
    }

    @Test
    void adjudicationAnnouncesTheRecordedEndingOrInterrupted() throws Exception {
        for (int ending : new int[] {-1, 3}) {
            SledHarness h = new SledHarness().provision().boot(1);
            List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "x", "*");
            h.operator(Rack.start(1));
            h.operator(new Message.JobStart(jobs.get(0)));
            h.sync(); // the rack never hears of the start: no sync after the launch
            if (ending >= 0) {
                h.launcher.end(id(jobs.get(0)), ending);
                h.settle();
            }
            h.crash();
            h.boot(1);
            List<Message> out = h.gossiped();
            if (ending < 0) {
                Message.JobErrored e = h.gossiped(Message.JobErrored.class).get(0);
                assertEquals(Message.JobError.INTERRUPTED, e.kind());
            } else {
                assertTrue(out.stream().anyMatch(m -> m instanceof Message.JobStarted));
                assertEquals(ending, h.gossiped(Message.JobStopped.class).get(0).exitCode().intValue());
            }
            assertEquals(1, h.ledger.size(), "never re-run");
        }
    }

    @Test
    void aReplayedRequestsSkipWaitsForReplayAndIsNotRepeated() throws Exception {
        SledHarness h = new SledHarness();
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "r", "*");
        h.operator0(1, Rack.start(1));
        h.operator0(1, new Message.JobStart(jobs.get(0)));
        h.boot(1); // unprovisioned: the floor refuses the replayed session
        List<Message.JobSkipped> skips = h.gossiped(Message.JobSkipped.class);
        assertEquals(1, skips.size());
        assertEquals(Message.SkipReason.BELOW_FLOOR, skips.get(0).reason());
        int drainedAt = h.events.indexOf(h.events(SledEvent.Drained.class).get(0));
        int skippedAt = h.events.indexOf(h.events.stream().filter(e -> e instanceof SledEvent.Gossiped
                && ((SledEvent.Gossiped) e).message() instanceof Message.JobSkipped).findFirst().orElseThrow());
        assertTrue(skippedAt < drainedAt && skippedAt > h.events.indexOf(h.events(SledEvent.Entered.class).get(0)),
                "reported as replay drained");
        h.sync();
        h.crash();
        h.boot(1);
        h.sync();
        assertEquals(1, h.gossiped(Message.JobSkipped.class).size() + 0, "the new life sees its status: no repeat");
    }

    @Test
    void aStoppedSessionTurnsQueuedTargetedJobsIntoSessionEnded() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "s", "*");
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        h.operator(new Message.SessionStop(Rack.session(1), "operator"));
        h.sync();
        Message.JobSkipped s = h.gossiped(Message.JobSkipped.class).get(0);
        assertEquals(id(jobs.get(1)), s.job());
        assertEquals(Message.SkipReason.SESSION_ENDED, s.reason());
        assertEquals(1, h.ledger.size());
    }

    @Test
    void aFailedBoundaryWriteMeansNoLaunch() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        h.b.arm(MemorySlot.Fault.NO_SPACE, true);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "f", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        assertEquals(0, h.ledger.size());
        Message.JobErrored e = h.gossiped(Message.JobErrored.class).get(0);
        assertEquals(Message.JobError.IO, e.kind());
        assertTrue(e.detail().contains("execution boundary"), e.detail());
    }

    @Test
    void anUntrustedStoreRefusesEveryTargetedJob() throws Exception {
        SledHarness h = new SledHarness().garbled();
        h.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "u", "*");
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        assertEquals(0, h.ledger.size());
        List<Message.JobErrored> errors = h.gossiped(Message.JobErrored.class);
        assertEquals(2, errors.size());
        assertTrue(errors.stream().allMatch(e -> e.kind() == Message.JobError.IO));
        assertFalse(h.a.writes() + h.b.writes() > 0, "an untrusted store is never written");
    }

    @Test
    void jobsForOtherSledsPassWithoutRunning() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "o", "7");
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        assertEquals(0, h.ledger.size());
        assertTrue(h.gossiped(Message.JobSkipped.class).isEmpty(), "not targeted: nothing to report");
        assertEquals(jobs.get(1).request().successor(), h.sled.view().block().fold().chain().orElseThrow().head(),
                "the head walked past both");
    }

    @Test
    void aFullLaunchQueueRefusesWithAClearErrorInsteadOfBlocking() throws Exception {
        SledHarness h = new SledHarness().provision();
        java.util.List<Runnable> held = new java.util.ArrayList<>();
        h.writerTime = reactor.core.scheduler.Schedulers.fromExecutor(held::add);
        h.boot(1);
        // The writer's drain at entry needs the writer once; let it through, then hold it.
        h.runHeld(held);
        int n = SledRuntime.MAX_PENDING_LAUNCHES + 2;
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), n, "c", "*", true);
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        List<Message.JobErrored> full = h.gossiped(Message.JobErrored.class);
        assertEquals(2, full.size());
        assertTrue(full.get(0).detail().contains("launch queue full"), full.get(0).detail());
        assertEquals(0, h.ledger.size(), "nothing launched while the writer is stalled");
        h.runHeld(held);
        assertEquals(SledRuntime.MAX_PENDING_LAUNCHES, h.ledger.size(), "every reserved commit launched once stored");
    }

    @Test
    void aRequestArrivingBehindTheHeadIsAlreadyHandledAndARunningOneIsNot() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "b", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        h.operator(new Message.JobStart(jobs.get(0))); // re-sent while it runs: not reported
        h.sync();
        assertTrue(h.gossiped(Message.JobSkipped.class).isEmpty());
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        h.operator(new Message.JobSkip(Rack.session(1), id(jobs.get(1)), "operator"));
        h.sync();
        h.operator(new Message.JobStart(jobs.get(1))); // its position was burnt before it arrived
        h.sync();
        Message.JobSkipped s = h.gossiped(Message.JobSkipped.class).get(0);
        assertEquals(id(jobs.get(1)), s.job());
        assertEquals(Message.SkipReason.ALREADY_HANDLED, s.reason());
        assertEquals(1, h.ledger.size());
    }


}
