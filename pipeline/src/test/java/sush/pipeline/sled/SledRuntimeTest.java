package sush.pipeline.sled;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.locker.admission.FloorCause;
import sush.pipeline.Rack;
import sush.projections.fixtures.Signers;
import sush.projections.id.JobId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

class SledRuntimeTest {
    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    @Test
    void aProvisionedSledAnnouncesFirstRaisesNoFloorAndRunsJobsInChainOrder() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        assertInstanceOf(Message.Announcement.class, h.gossiped().get(0), "the entry's first send");
        SledEvent.Entered entered = h.events(SledEvent.Entered.class).get(0);
        assertEquals(Optional.empty(), entered.floor());
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 3, "echo", "*");
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        assertEquals(List.of(id(jobs.get(0))), h.ledger.stream().map(l -> l.job()).toList(),
                "sequential: the second waits for the first to end");
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        h.sync();
        assertEquals(2, h.ledger.size());
        h.launcher.end(id(jobs.get(1)), 0);
        h.settle();
        h.launcher.end(id(jobs.get(2)), 0);
        h.settle();
        assertEquals(jobs.stream().map(SledRuntimeTest::id).toList(), h.ledger.stream().map(l -> l.job()).toList());
        assertEquals(3, h.gossiped(Message.JobStarted.class).size());
        assertEquals(3, h.gossiped(Message.JobStopped.class).size());
    }

    /**
     * D-031: a job asking a limit above this sled's maximum never runs here and says why; the
     * chain moves past it, so the job after it runs. A job within the maxima runs with them.
     */
    @Test
    void aJobAskingMoreThanTheSledsMaximumIsRefusedAndTheChainMovesOn() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        sush.projections.id.SessionId s = Rack.session(1);
        long hourAndOne = sush.pipeline.exec.Limits.DEFAULT.wallTime().toMillis() + 1;
        sush.projections.job.JobLimits[] asked = {new sush.projections.job.JobLimits(1_000, 0, 5, 0, 0),
            new sush.projections.job.JobLimits(hourAndOne, 0, 0, 0, 0), sush.projections.job.JobLimits.NONE};
        List<SignedJob> jobs = new java.util.ArrayList<>();
        JobId at = sush.projections.id.Chain.first(s);
        for (int i = 0; i < asked.length; i++) {
            sush.projections.job.JobRequest r = new sush.projections.job.JobRequest(s, at, "job " + i, "*", true,
                    asked[i]);
            jobs.add(Signers.KEY.sign(r));
            at = r.successor();
        }
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        assertEquals(List.of(id(jobs.get(0)), id(jobs.get(2))), h.ledger.stream().map(l -> l.job()).toList());
        Message.JobErrored refused = h.gossiped(Message.JobErrored.class).get(0);
        assertEquals(id(jobs.get(1)), refused.job());
        assertEquals(Message.JobError.INVALID_JOB, refused.kind());
        assertEquals("limit above this sled's maximum: wall-time " + hourAndOne + " ms is above this sled's maximum "
                + (hourAndOne - 1) + " ms", refused.detail());
    }

    @Test
    void anUnprovisionedSledRaisesTheNoHistoryFloorWithoutAnErrorAndSkipsTheLiveSession() throws Exception {
        SledHarness h = new SledHarness();
        h.rack(1);
        h.operator0(1, Rack.start(1));
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "echo", "*");
        h.boot(1);
        assertEquals(Optional.of(FloorCause.NO_TRUSTWORTHY_HISTORY), h.events(SledEvent.Entered.class).get(0).floor());
        assertTrue(h.gossiped(Message.RackError.class).isEmpty(), "cause 2 has no error event");
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        assertEquals(0, h.ledger.size());
        assertEquals(Message.SkipReason.BELOW_FLOOR, h.gossiped(Message.JobSkipped.class).get(0).reason());
    }

    @Test
    void replayingTheJournalReproducesTheLiveFoldExactly(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        byte[] key = new byte[32];
        key[7] = 7;
        SledHarness h = new SledHarness().provision();
        h.journal = Optional.of(sush.pipeline.journal.Journal.open(dir, Optional.of(key), sush.gossip.Entropy.seeded(5)));
        h.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 3, "j", "*");
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        h.sync();
        h.journal.get().close();
        String live = h.sled.view().block().fold().digest();
        sush.pipeline.journal.Replay.Result r = sush.pipeline.journal.Replay.run(dir, Optional.of(key), Rack.ME,
                Signers.TRUST, -1);
        assertEquals(live, r.state().orElseThrow().digest());
        assertTrue(r.timeline().stream().anyMatch(s -> s.record() instanceof sush.pipeline.journal.JournalRecord.Passed));
    }

    @Test
    void aLateSubscriberGetsTheBoundedRecentHistoryOfEvents() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        int reports = SledRuntime.MAX_EVENT_HISTORY + 100;
        for (int i = 0; i < reports; i++) {
            h.operator(new Message.JobStarted("913-0000019:OTHER" + i, sush.projections.id.Chain.first(Rack.session(i))));
        }
        h.sync();
        List<SledEvent> late = new java.util.ArrayList<>();
        h.sled.events().subscribe(late::add).dispose();
        assertEquals(SledRuntime.MAX_EVENT_HISTORY, late.size(), "bounded");
        SledEvent.StatusChanged last = (SledEvent.StatusChanged) late.get(late.size() - 1);
        assertEquals("913-0000019:OTHER" + (reports - 1), last.baseboard(), "the newest events are the ones kept");
    }

    /**
     * The daemon reads and checks deliveries on parallel workers ahead of the loop: the sled
     * still folds them in delivery order (jobs launch in chain order), checks every signature
     * (a forged job is refused and reported), and the verdicts it needed were already known.
     */
    @Test
    void aParallelIngressStageKeepsDeliveryOrderAndStillRefusesForgedJobs() throws Exception {
        reactor.core.scheduler.Scheduler workers = reactor.core.scheduler.Schedulers.newParallel("test-ingress", 4);
        try {
            SledHarness h = new SledHarness();
            h.ingress = workers;
            h.trust = Signers.trust(Signers.KEY);
            h.provision().boot(1);
            List<SignedJob> chain = Rack.jobs(Rack.session(1), 41, "echo", "*", true);
            List<SignedJob> jobs = chain.subList(0, 40);
            SignedJob last = chain.get(40);
            byte[] bad = last.signature();
            bad[5] ^= 1;
            SignedJob forged = new SignedJob(last.request(), last.key(), last.algorithm(), bad);
            h.operator(Rack.start(1));
            String other = "913-0000019:OTHER";
            List<SignedJob> reported = new java.util.ArrayList<>(jobs);
            java.util.Collections.shuffle(reported, new java.util.Random(3));
            for (int i = 0; i < jobs.size(); i++) {
                h.operator(new Message.JobStart(jobs.get(i)));
                // Another sled's report about a job, in a shuffled order: the fold turns each
                // into a status change, so their order shows the order the loop folded in.
                h.operator(new Message.JobStarted(other, id(reported.get(i))));
            }
            h.operator(new Message.JobStart(forged));
            h.sync();
            // Polled on this thread, the harness's time settled between polls.
            await("every job launched and the forged one refused").atMost(Duration.ofSeconds(20)).pollInSameThread()
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5)).until(() -> {
                        if (h.ledger.size() >= jobs.size() && !h.gossiped(Message.JobErrored.class).isEmpty()) {
                            return true;
                        }
                        h.settle();
                        return false;
                    });
            assertEquals(jobs.stream().map(SledRuntimeTest::id).toList(), h.ledger.stream().map(l -> l.job()).toList(),
                    "launched in chain order");
            List<Message.JobErrored> errors = h.gossiped(Message.JobErrored.class);
            assertEquals(1, errors.size());
            assertEquals(id(forged), errors.get(0).job());
            assertEquals(Message.JobError.INVALID_JOB, errors.get(0).kind());
            assertEquals(jobs.size() + 1, h.trust.remembered(), "every signature was checked once");
            List<JobId> delivered = new java.util.ArrayList<>();
            h.replica.deliveries(0).take(h.replica.size()).toStream().forEach(d -> {
                try {
                    Message m = sush.projections.message.MessageCodec.decode(d.payload());
                    if (m instanceof Message.JobStarted && ((Message.JobStarted) m).baseboard().equals(other)) {
                        delivered.add(((Message.JobStarted) m).job());
                    }
                } catch (sush.projections.message.MessageException e) {
                    throw new AssertionError(e);
                }
            });
            List<JobId> folded = h.events(SledEvent.StatusChanged.class).stream()
                    .filter(e -> e.baseboard().equals(other)).map(SledEvent.StatusChanged::job).toList();
            assertEquals(jobs.size(), delivered.size());
            assertEquals(delivered, folded, "folded in delivery order");
        } finally {
            workers.dispose();
        }
    }
}
