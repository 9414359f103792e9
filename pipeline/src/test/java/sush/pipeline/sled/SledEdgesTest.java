package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import sush.gossip.set.ReplicaException;
import sush.pipeline.Rack;
import sush.pipeline.exec.Ending;
import sush.pipeline.exec.Launcher;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * The sled's edges (issue 21's mutation run found them reached but unchecked): failures of its
 * streams and sends, graceful stops, bursts of burns, entries that end before their replay,
 * resumption from universes left behind, requests it cannot parse.
 */
class SledEdgesTest {
    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    private static List<JobId> ledger(SledHarness h) {
        return h.ledger.stream().map(l -> l.job()).toList();
    }

    private static long skipsOf(SledHarness h, SignedJob j) {
        return h.gossiped(Message.JobSkipped.class).stream().filter(s -> s.job().equals(id(j))).count();
    }


    @Test
    void aBehindTheHeadRequestInAnUntrustedStoreEndsWithTheStoresErrorOnce() throws Exception {
        SledHarness h = new SledHarness().garbled();
        h.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "u", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobSkip(Rack.session(1), id(jobs.get(0)), "operator"));
        h.sync();
        h.operator(new Message.JobStart(jobs.get(0))); // its position was burnt before it came
        h.sync();
        assertEquals(1, h.gossiped(Message.JobErrored.class).size(), "ended with the store's error at once");
        h.operator(new Message.JobStart(jobs.get(0))); // and again
        h.sync();
        List<Message.JobErrored> errors = h.gossiped(Message.JobErrored.class).stream()
                .filter(e -> e.job().equals(id(jobs.get(0)))).toList();
        assertEquals(1, errors.size(), errors.toString());
        assertEquals(Message.JobError.IO, errors.get(0).kind());
        assertEquals(0, h.ledger.size());
    }

    @Test
    void aFailureInTheLoopIsJournalledAndAStackOverflowFailsClosedToo(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        SledHarness h = new SledHarness().provision();
        h.journal = Optional.of(sush.pipeline.journal.Journal.open(dir, Optional.empty(), sush.gossip.Entropy.seeded(1)));
        boolean[] thrown = {false};
        h.beforeStart = sled -> sled.probe(stage -> {
            if (stage.equals("delivery") && !thrown[0]) {
                thrown[0] = true;
                throw new StackOverflowError();
            }
        });
        h.boot(1);
        assertTrue(h.sled.failure().orElseThrow().startsWith("delivery: java.lang.StackOverflowError"),
                h.sled.failure().toString());
        h.journal.get().close();
        List<String> errors = new ArrayList<>();
        sush.pipeline.journal.Journal.read(dir, Optional.empty(), r -> {
            if (r instanceof sush.pipeline.journal.JournalRecord.Decision
                    && ((sush.pipeline.journal.JournalRecord.Decision) r).kind()
                            == sush.pipeline.journal.JournalRecord.Decision.Kind.ERROR) {
                errors.add(((sush.pipeline.journal.JournalRecord.Decision) r).detail());
            }
        });
        assertEquals(1, errors.size());
        assertTrue(errors.get(0).startsWith("fail closed: delivery"), errors.get(0));
    }

    @Test
    void aFailedEntryStreamOrEndingStreamFailsTheSledClosedNamingTheStage() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        h.entriesFail(new IllegalStateException("the gossip node stopped"));
        assertTrue(h.sled.failure().orElseThrow().startsWith("entry: "), h.sled.failure().toString());

        SledHarness g = new SledHarness().provision();
        g.launchers = ledger -> request -> {
            ledger.add(new sush.pipeline.exec.LedgerLauncher.Launch(Rack.ME.baseboard(), request.job()));
            return new Launcher.Running() {
                @Override
                public JobId job() {
                    return request.job();
                }

                @Override
                public Mono<Ending> ending() {
                    return Mono.error(new IllegalStateException("the launcher lost the process"));
                }

                @Override
                public void stop() {
                }
            };
        };
        g.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "e", "*");
        g.operator(Rack.start(1));
        g.operator(new Message.JobStart(jobs.get(0)));
        g.sync();
        assertEquals(1, g.ledger.size());
        assertTrue(g.sled.failure().orElseThrow().startsWith("ending: "), g.sled.failure().toString());
    }

    @Test
    void aGossipSendThatFailsIsAnErrorEventAndTheSledGoesOn() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "g", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sendFault = new IllegalStateException("the universe changed");
        h.sync();
        assertEquals(1, h.ledger.size());
        assertTrue(h.events(SledEvent.Failed.class).stream()
                .anyMatch(f -> f.what().equals("gossip send of JobStarted: the universe changed")),
                h.events(SledEvent.Failed.class).toString());
        assertTrue(h.sled.failure().isEmpty());
    }

    @Test
    void aSendRefusedWhileBootstrappingIsDeferredNotAFailure() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "d", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sendFault = new ReplicaException(ReplicaException.Kind.NO_IDENTITY, "bootstrapping; cannot send yet");
        h.sync();
        assertEquals(1, h.ledger.size());
        assertTrue(h.events(SledEvent.Failed.class).isEmpty(), "expected after a restart, not a failure: "
                + h.events(SledEvent.Failed.class));
        assertTrue(h.events(SledEvent.Deferred.class).stream()
                .anyMatch(d -> d.message() instanceof Message.JobStarted), h.events(SledEvent.Deferred.class).toString());
        assertTrue(h.sled.failure().isEmpty());
    }

    @Test
    void burningTheWaitingJobSkipsItButBurningAJobCommittedThisLifeDoesNot() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 3, "b", "*");
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        h.operator(new Message.JobSkip(Rack.session(1), id(jobs.get(1)), "operator")); // j1 waits at the head
        h.sync();
        assertEquals(1, skipsOf(h, jobs.get(1)));
        assertEquals(Message.SkipReason.ALREADY_HANDLED, h.gossiped(Message.JobSkipped.class).get(0).reason());
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        assertEquals(List.of(id(jobs.get(0))), ledger(h), "the burnt j1 never runs (j2 was never next: a burn skips to its own position)");

        // A burn of the job whose commit is still being written: it runs; no skip contradicts it.
        SledHarness g = new SledHarness().provision();
        List<Runnable> held = new ArrayList<>();
        g.bootHoldingWrites(held);
        List<SignedJob> k = Rack.jobs(Rack.session(1), 1, "k", "*");
        g.operator(Rack.start(1));
        g.operator(new Message.JobStart(k.get(0)));
        g.sync();
        g.operator(new Message.JobSkip(Rack.session(1), id(k.get(0)), "operator"));
        g.sync();
        g.runHeld(held);
        assertEquals(List.of(id(k.get(0))), ledger(g));
        assertEquals(0, skipsOf(g, k.get(0)), g.gossiped().toString());
    }

    @Test
    void aSkipLostWithItsUniverseIsReportedAgainInTheNextEntry() throws Exception {
        SledHarness h = new SledHarness(); // unprovisioned: every entry raises the no-history floor
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "l", "*");
        h.operator0(1, Rack.start(1));
        h.operator0(1, new Message.JobStart(jobs.get(0)));
        h.boot(1);
        assertEquals(1, skipsOf(h, jobs.get(0)));
        h.migrate(1); // a new replica of the same universe, without the unsynced skip
        assertEquals(2, skipsOf(h, jobs.get(0)), "the rack never heard the first");
        h.sync();
        h.migrate(1);
        assertEquals(2, skipsOf(h, jobs.get(0)), "the rack has it now: not repeated");
    }

    @Test
    void aSkipDeferredByAnEntryThatEndsBeforeItsReplayIsNotCarriedIntoTheNext() throws Exception {
        SledHarness h = new SledHarness();
        List<Runnable> held = new ArrayList<>();
        h.ingress = reactor.core.scheduler.Schedulers.fromExecutor(held::add);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "d", "*");
        h.operator0(1, Rack.start(1));
        h.operator0(1, new Message.JobStart(jobs.get(0)));
        h.operator0(1, new Message.JobStarted("913-0000019:OTHER", id(jobs.get(0))));
        h.boot(1);
        // Replay the session start and the request only: the skip is deferred, replay not drained.
        for (int i = 0; i < 2; i++) {
            held.remove(0).run();
            h.settle();
        }
        assertTrue(h.events(SledEvent.Drained.class).isEmpty());
        assertEquals(0, skipsOf(h, jobs.get(0)));
        held.clear(); // the rest of this entry's reads never happen
        h.migrate(1);
        h.runHeld(held);
        assertEquals(1, skipsOf(h, jobs.get(0)), "reported once, by the entry that drained");
    }

    @Test
    void aSessionCommittedInAUniverseLeftBehindResumesInAThird() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> s1 = Rack.jobs(Rack.session(1), 2, "one", "*", true);
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(s1.get(0)));
        h.sync();
        h.launcher.end(id(s1.get(0)), 0);
        h.settle();
        // Universe 2: another session commits, so universe 1 moves to the record's recent list.
        List<SignedJob> s2 = Rack.jobs(Rack.session(2), 1, "two", "*");
        h.operator0(2, Rack.start(2));
        h.operator0(2, new Message.JobStart(s2.get(0)));
        h.migrate(2);
        h.launcher.end(id(s2.get(0)), 0);
        h.settle();
        assertEquals(1, h.locker.newest().orElseThrow().recent().size());
        // A new life boots into universe 3, which holds session 1 again (its messages carried
        // over): only the record's recent list knows j0 ran, and the session resumes after it.
        h.crash();
        h.operator0(3, Rack.start(1));
        h.operator0(3, new Message.JobStart(s1.get(0)));
        h.operator0(3, new Message.JobStart(s1.get(1)));
        h.boot(3);
        assertEquals(List.of(id(s1.get(0)), id(s2.get(0)), id(s1.get(1))), ledger(h), "j0 never re-run");
    }

    @Test
    void aMigrationSurvivorThatEndedElsewhereReAnnouncesItsEndingOnReturn() throws Exception {
        SledHarness h = new SledHarness().provision().boot(2);
        List<SignedJob> c = Rack.jobs(Rack.session(3), 1, "c", "*");
        h.operator(Rack.start(3));
        h.operator(new Message.JobStart(c.get(0)));
        h.sync();
        h.migrate(1);
        h.launcher.end(id(c.get(0)), 5);
        h.settle();
        assertEquals(1, h.gossiped(Message.JobStopped.class).size());
        h.migrate(2); // universe 2 knows only its Started
        List<Message.JobStopped> stopped = h.gossiped(Message.JobStopped.class);
        assertEquals(2, stopped.size(), "its real ending told where it started");
        assertEquals(5, stopped.get(1).exitCode().intValue());
        assertTrue(h.gossiped(Message.JobErrored.class).isEmpty(), "no zombie");
    }

    @Test
    void aGracefulStopKillsRunningJobsAsTheShutdownsAndQueriesSeeThem() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "s", "*", true);
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        assertEquals(java.util.Set.of(id(jobs.get(0)), id(jobs.get(1))), h.sled.query(v -> v.running()).block());
        h.sled.stop();
        h.settle();
        assertFalse(h.launcher.isRunning(id(jobs.get(0))));
        assertFalse(h.launcher.isRunning(id(jobs.get(1))));
        List<Message.JobErrored> killed = h.gossiped(Message.JobErrored.class);
        assertEquals(2, killed.size());
        assertTrue(killed.stream().allMatch(k -> k.detail().startsWith("the sled's daemon shut down")), killed.toString());
        assertEquals(java.util.Set.of(), h.sled.query(v -> v.running()).block());
    }

    @Test
    void anUndecodableDeliveryIsCountedNotFatal() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        h.rack().send(new byte[] {(byte) 0xff, 0x01, 0x02});
        h.sync();
        assertTrue(h.sled.failure().isEmpty(), h.sled.failure().toString());
        assertEquals(1, h.sled.view().block().fold().malformed());
    }

    @Test
    void anInvalidJobIsReportedOnlyByTheSledsItTargets() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> mine = Rack.jobs(Rack.session(1), 1, "i", "*");
        List<SignedJob> unparsable = Rack.jobs(Rack.session(1), 2, "i", "7,,8").subList(1, 2); // another position
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(forged(unparsable.get(0))));
        h.operator(new Message.JobStart(forged(mine.get(0))));
        h.sync();
        List<Message.JobErrored> errors = h.gossiped(Message.JobErrored.class);
        assertEquals(List.of(Message.JobError.INVALID_JOB), errors.stream().map(Message.JobErrored::kind).toList(),
                "one report, for the job whose target names this sled: " + errors);
        assertEquals(0, h.ledger.size());
    }

    private static SignedJob forged(SignedJob j) {
        byte[] bad = j.signature();
        bad[0] ^= 1;
        return new SignedJob(j.request(), j.key(), j.algorithm(), bad);
    }

    @Test
    void burningTheRunningJobMovesTheHeadOffItsWaitingSuccessorWhichNeverRuns() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "r", "*");
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync(); // j0 runs; j1 waits at the head for it
        h.operator(new Message.JobSkip(Rack.session(1), id(jobs.get(0)), "operator"));
        h.sync(); // the last job started, with the head still its successor: the head moves past the burn
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        h.sync();
        assertEquals(List.of(id(jobs.get(0))), ledger(h), "j1 is off the chain now and never runs");
        SignedJob next = Jobs.at(Signers.KEY, Rack.session(1), Chain.afterBurn(id(jobs.get(0))), "k", "*", false);
        h.operator(new Message.JobStart(next));
        h.sync();
        assertEquals(List.of(id(jobs.get(0)), id(next)), ledger(h), "the job after the burn runs");
    }

    @Test
    void aStopReplayedBeforeItsJobStillKeepsTheCancelledJobFromRunning(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) throws Exception {
        SledHarness h = new SledHarness().provision();
        h.operator0(1, Rack.start(1));
        h.side(1, 1); // side 1 forks holding only the session start
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 3, "x", "*");
        h.operator0(1, new Message.JobStart(jobs.get(0)));
        h.operator0(1, new Message.JobStart(jobs.get(1)));
        h.boot(1, 0);
        h.sync(); // j0 runs, j1 waits
        // Side 1 stops j1 concurrently with its request (it never saw the request).
        h.operator0side(1, 1, new Message.JobStop(id(jobs.get(1)), "operator"));
        h.peers(1);
        h.sync();
        assertEquals(1, h.gossiped(Message.JobCancelled.class).size());
        h.crash();
        // The next life replays side 1's log: the stop before the request, so the stop cancels
        // nothing then; only this sled's own Cancelled, later in the log, keeps j1 from running.
        h.operator0side(1, 1, new Message.JobStart(jobs.get(2)));
        h.journal = Optional.of(sush.pipeline.journal.Journal.open(dir, Optional.empty(), sush.gossip.Entropy.seeded(7)));
        h.boot(1, 1);
        h.sync();
        assertEquals(List.of(id(jobs.get(0)), id(jobs.get(2))), ledger(h), "the cancelled j1 never runs");
        h.journal.get().close();
        List<sush.projections.fold.ChainProjection.Passed> passes = new ArrayList<>();
        sush.pipeline.journal.Journal.read(dir, Optional.empty(), r -> {
            if (r instanceof sush.pipeline.journal.JournalRecord.Passed
                    && ((sush.pipeline.journal.JournalRecord.Passed) r).job().equals(id(jobs.get(1)))) {
                passes.add(((sush.pipeline.journal.JournalRecord.Passed) r).how());
            }
        });
        assertEquals(List.of(sush.projections.fold.ChainProjection.Passed.NEVER_RAN), passes,
                "passed as never run (a later burn may still move the head back over it), not as may have run");
    }

    @Test
    void aRequestNamingAnotherSessionAtAPositionBehindTheHeadIsNotThisSessionsJob() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "a", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        h.sync();
        // Session 9 never started.
        SignedJob stray = Jobs.at(Signers.KEY, Rack.session(9), id(jobs.get(0)), "stray", "*", false);
        h.operator(new Message.JobStart(stray));
        h.sync();
        assertTrue(h.gossiped(Message.JobSkipped.class).isEmpty(), h.gossiped().toString());
        assertEquals(1, h.ledger.size());
    }

    @Test
    void replayDrainsAtItsLastDeliveryEvenWhenTheEntrysAnnouncementWasNotSent() throws Exception {
        SledHarness h = new SledHarness().provision();
        h.operator0(1, Rack.start(1));
        h.operator0(1, new Message.JobStarted("913-0000019:OTHER", sush.projections.id.Chain.first(Rack.session(1))));
        h.sendFault = new IllegalStateException("no universe yet");
        h.boot(1);
        assertEquals(1, h.events(SledEvent.Drained.class).size());
    }

    @Test
    void theGossipSetFillIsReportedAtEightyAndAtAHundredPercent() {
        assertEquals(0, SledRuntime.fillThreshold(799, 1000));
        assertEquals(80, SledRuntime.fillThreshold(800, 1000));
        assertEquals(80, SledRuntime.fillThreshold(999, 1000));
        assertEquals(100, SledRuntime.fillThreshold(1000, 1000));
        assertEquals(0, SledRuntime.fillThreshold(838_859, sush.gossip.set.Replica.MAX_MESSAGES), "just under 80%");
        assertEquals(80, SledRuntime.fillThreshold(838_861, sush.gossip.set.Replica.MAX_MESSAGES));
    }
}
