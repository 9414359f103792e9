package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.Entropy;
import sush.pipeline.Rack;
import sush.pipeline.exec.Ending;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalRecord;
import sush.projections.fixtures.Signers;
import sush.projections.fold.ChainProjection;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * What the sled decides and what it leaves behind for each decision: the journal an engineer
 * replays, the events operators stream, the messages the rack sees. Issue 21's mutation run
 * showed these effects were reached by the suite but not checked; each test pins one family.
 */
class SledDecisionsTest {
    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    private static List<JobId> ledger(SledHarness h) {
        return h.ledger.stream().map(l -> l.job()).toList();
    }

    /** The journal's decisions and passes, as {@code KIND subject} lines in order. */
    private static List<String> decisions(Path dir) throws Exception {
        List<String> out = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> {
            if (r instanceof JournalRecord.Decision) {
                JournalRecord.Decision d = (JournalRecord.Decision) r;
                out.add(d.kind() + " " + d.subject());
            } else if (r instanceof JournalRecord.Passed) {
                JournalRecord.Passed p = (JournalRecord.Passed) r;
                out.add("PASSED " + p.job().codephrase() + " " + p.how());
            } else if (r instanceof JournalRecord.Resumed) {
                JournalRecord.Resumed p = (JournalRecord.Resumed) r;
                out.add("RESUMED " + p.committed().codephrase() + " " + p.successor().codephrase());
            } else if (r instanceof JournalRecord.Entered) {
                out.add("ENTERED " + ((JournalRecord.Entered) r).cause());
            }
        });
        return out;
    }

    private static List<JournalRecord.Signature> verdicts(Path dir) throws Exception {
        List<JournalRecord.Signature> out = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> {
            if (r instanceof JournalRecord.Delivered) {
                out.add(((JournalRecord.Delivered) r).signature());
            }
        });
        return out;
    }

    @Test
    void theJournalRecordsEveryDecisionOfALifeAndTheResumptionOfTheNext(@TempDir Path dir) throws Exception {
        SledHarness h = new SledHarness().provision();
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(1)));
        h.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "j", "*");
        String j0 = id(jobs.get(0)).codephrase();
        String j1 = id(jobs.get(1)).codephrase();
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        h.crash();
        h.boot(1);
        h.journal.get().close();
        assertEquals(List.of("ENTERED START",
                "VERDICT " + j0, "COMMIT " + j0, "PASSED " + j0 + " RAN", "LAUNCH " + j0,
                "ENDING " + j0,
                "VERDICT " + j1, "COMMIT " + j1, "PASSED " + j1 + " RAN", "LAUNCH " + j1,
                // The next life resumes after the committed job before anything is screened.
                "RESUMED " + j1 + " " + jobs.get(1).request().successor().codephrase(),
                "ENTERED START"), decisions(dir));
        assertEquals(2, h.ledger.size());
    }

    @Test
    void theJournalKeepsEachDeliveredRequestsSignatureVerdict(@TempDir Path dir) throws Exception {
        SledHarness h = new SledHarness().provision();
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(2)));
        h.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 3, "v", "7");
        SignedJob good = jobs.get(0);
        byte[] bad = jobs.get(1).signature();
        bad[3] ^= 1;
        SignedJob forged = new SignedJob(jobs.get(1).request(), jobs.get(1).key(), jobs.get(1).algorithm(), bad);
        SignedJob unknown = Signers.STRANGER.sign(jobs.get(2).request());
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(good));
        h.operator(new Message.JobStart(forged));
        h.operator(new Message.JobStart(unknown));
        h.sync();
        h.journal.get().close();
        List<JournalRecord.Signature> all = verdicts(dir);
        assertEquals(List.of(JournalRecord.Signature.GOOD, JournalRecord.Signature.BAD_SIGNATURE,
                JournalRecord.Signature.UNKNOWN_KEY), all.subList(all.size() - 3, all.size()));
        assertTrue(all.subList(0, all.size() - 3).stream().allMatch(v -> v == JournalRecord.Signature.UNCHECKED),
                "no verdict for what is not a job request: " + all);
    }

    @Test
    void aRaisedFloorAFailedCommitAndAFailClosedAreJournalledAsTheyHappen(@TempDir Path dir) throws Exception {
        SledHarness h = new SledHarness(); // unprovisioned: the no-history floor
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(3)));
        h.boot(1);
        assertTrue(decisions(dir).contains("FLOOR "), decisions(dir).toString());
        h.sled.slotsChanged("slot m2-a was replaced");
        h.settle();
        assertTrue(decisions(dir).contains("ERROR "), decisions(dir).toString());
        assertTrue(h.events(SledEvent.Failed.class).stream().anyMatch(f -> f.what().startsWith("slot m2-a was replaced;")),
                "the replaced slot is an error event at once");
        h.journal.get().close();

        Path second = dir.resolve("second");
        SledHarness g = new SledHarness().provision();
        g.journal = Optional.of(Journal.open(second, Optional.empty(), Entropy.seeded(4)));
        g.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "f", "*");
        g.b.arm(sush.locker.store.MemorySlot.Fault.NO_SPACE, true);
        g.operator(Rack.start(1));
        g.operator(new Message.JobStart(jobs.get(0)));
        g.sync();
        assertTrue(decisions(second).contains("ERROR " + id(jobs.get(0)).codephrase()), decisions(second).toString());
        assertTrue(g.events(SledEvent.Failed.class).stream().anyMatch(f -> f.what().contains("boundary")));
        assertEquals(0, g.sled.view().block().pendingLaunches(), "a failed commit leaves nothing pending");
        g.journal.get().close();
    }

    @Test
    void everyPendingLaunchIsCountedDownOnceLaunchedOrFailed() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 3, "p", "*", true);
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        assertEquals(3, h.ledger.size());
        assertEquals(0, h.sled.view().block().pendingLaunches());
        h.b.arm(sush.locker.store.MemorySlot.Fault.NO_SPACE, true);
        List<SignedJob> more = Rack.jobs(Rack.session(2), 2, "q", "*", true);
        h.operator(Rack.start(2));
        more.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        assertEquals(3, h.ledger.size());
        assertEquals(0, h.sled.view().block().pendingLaunches());
    }

    @Test
    void stopsCancelJobsAheadOfAndAtTheHeadOnlyFromTheirStarterAndOnlyHere() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 4, "c", "*");
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        assertEquals(List.of(id(jobs.get(0))), ledger(h));
        // Not the starter: no effect anywhere.
        h.operator(new Message.JobStop(id(jobs.get(1)), "someone-else"));
        h.operator(new Message.JobStop(id(jobs.get(0)), "someone-else"));
        h.sync();
        assertTrue(h.gossiped(Message.JobCancelled.class).isEmpty());
        assertTrue(h.launcher.isRunning(id(jobs.get(0))), "only the starter stops a job");
        // The starter: j1 waits at the head, j3 is ahead of it.
        h.operator(new Message.JobStop(id(jobs.get(1)), "operator"));
        h.operator(new Message.JobStop(id(jobs.get(3)), "operator"));
        h.sync();
        assertEquals(List.of(id(jobs.get(1)), id(jobs.get(3))),
                h.gossiped(Message.JobCancelled.class).stream().map(Message.JobCancelled::job).toList());
        assertTrue(h.launcher.isRunning(id(jobs.get(0))), "cancelling others leaves the running job alone");
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        assertEquals(List.of(id(jobs.get(0)), id(jobs.get(2))), ledger(h), "j1 passed without running; j2 ran");
        h.launcher.end(id(jobs.get(2)), 0);
        h.settle();
        assertEquals(2, h.ledger.size(), "j3 passed without running");
        assertEquals(jobs.get(3).request().successor(), h.sled.view().block().fold().chain().orElseThrow().head());
        assertTrue(h.gossiped(Message.JobSkipped.class).isEmpty(), "a cancelled job is not also skipped");
        // A stop of a finished job, or a second stop, cancels nothing more.
        h.operator(new Message.JobStop(id(jobs.get(0)), "operator"));
        h.operator(new Message.JobStop(id(jobs.get(3)), "operator"));
        h.sync();
        assertEquals(2, h.gossiped(Message.JobCancelled.class).size());
    }

    @Test
    void aStopFromTheStarterKillsTheRunningJobAndOnlyThatOne() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "k", "*", true);
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        assertEquals(2, h.ledger.size());
        h.operator(new Message.JobStop(id(jobs.get(1)), "operator"));
        h.sync();
        assertTrue(h.launcher.isRunning(id(jobs.get(0))));
        assertFalse(h.launcher.isRunning(id(jobs.get(1))));
        SledEvent.Ended ended = h.events(SledEvent.Ended.class).get(0);
        assertEquals(id(jobs.get(1)), ended.job());
        assertTrue(ended.ending() instanceof Ending.Killed);
        assertTrue(h.gossiped(Message.JobCancelled.class).isEmpty(), "a started job is stopped, not cancelled");
    }

    @Test
    void aStopForAnotherSledsJobCancelsNothingHere() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "o", "7");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStop(id(jobs.get(1)), "operator"));
        h.sync();
        assertTrue(h.gossiped(Message.JobCancelled.class).isEmpty(), "an unknown job: nothing to cancel");
        h.operator(new Message.JobStart(jobs.get(1)));
        h.operator(new Message.JobStop(id(jobs.get(1)), "operator"));
        h.sync();
        assertTrue(h.gossiped(Message.JobCancelled.class).isEmpty(), "not this sled's job");
    }

    @Test
    void aCancelledJobMetAtTheHeadInALaterLifeIsPassedWithoutRunning() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 3, "h", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.operator(new Message.JobStart(jobs.get(1)));
        h.sync();
        h.operator(new Message.JobStop(id(jobs.get(1)), "operator")); // j1 waits at the head for j0
        h.sync();
        h.sync();
        assertEquals(1, h.gossiped(Message.JobCancelled.class).size());
        // The life ends while j0 runs: the record resumes the next life at j1, which only the
        // sled's own Cancelled in gossip tells apart from a job to run.
        h.crash();
        h.operator(new Message.JobStart(jobs.get(2)));
        h.boot(1);
        h.sync();
        assertEquals(List.of(id(jobs.get(0)), id(jobs.get(2))), ledger(h), "j1 passed at the head, j2 ran");
        assertEquals(1, h.gossiped(Message.JobCancelled.class).size(), "not cancelled again");
        assertEquals(Message.JobError.INTERRUPTED, h.gossiped(Message.JobErrored.class).get(0).kind());
    }

    @Test
    void aJobThisLifeLaunchedIsNeverScreenedAgainWhenAnUntrustedEntryMeetsItAtTheHead(@TempDir Path dir)
            throws Exception {
        SledHarness h = new SledHarness().provision();
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(6)));
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "w", "*");
        h.operator0(1, Rack.start(1));
        h.operator0(1, new Message.JobStart(jobs.get(0)));
        h.boot(1); // j0 runs from the replayed request; its Started stays on this sled
        assertEquals(List.of(id(jobs.get(0))), ledger(h));
        // Something rewrites a slot: the store is untrusted for the rest of this life, so the
        // next entry has no snapshot to resume from and meets j0 at the head again. Its own
        // Started never reached the rack (no sync): only this life's memory knows it ran.
        h.a.setContents(Optional.of(new byte[] {1, 2, 3}));
        assertTrue(h.locker.verify().isPresent());
        h.migrate(1);
        assertEquals(List.of(id(jobs.get(0))), ledger(h), "never re-run");
        assertEquals(1, h.events(SledEvent.Screened.class).stream().filter(x -> x.job().equals(id(jobs.get(0)))).count(),
                "passed as already handled without being screened again");
        assertTrue(h.gossiped(Message.JobErrored.class).isEmpty(), "no refusal for a job that is running");
        // Section 2: passed as Skipped{AlreadyHandled}, and the head moved past it.
        List<Message.JobSkipped> skips = h.gossiped(Message.JobSkipped.class);
        assertEquals(1, skips.size(), skips.toString());
        assertEquals(Message.SkipReason.ALREADY_HANDLED, skips.get(0).reason());
        assertEquals(jobs.get(0).request().successor(), h.sled.view().block().fold().chain().orElseThrow().head());
        h.journal.get().close();
        String j0 = id(jobs.get(0)).codephrase();
        List<String> d = decisions(dir);
        assertEquals(List.of("VERDICT " + j0, "PASSED " + j0 + " RAN", "VERDICT " + j0, "PASSED " + j0 + " MAY_HAVE_RUN"),
                d.stream().filter(x -> x.startsWith("VERDICT") || x.startsWith("PASSED")).toList());
    }

    @Test
    void concurrentSessionsAreReportedOnceByTheAcceptorThatSortsFirstAndOnlyLive() throws Exception {
        for (String other : new String[] {"000-0000000:FIRST", "zzz-0000000:LAST"}) {
            SledHarness h = new SledHarness().provision();
            h.side(1, 1);
            h.boot(1, 0);
            h.operator(Rack.start(1));
            h.sync();
            h.operator0side(1, 1, startBy(other, 2));
            h.peers(1);
            h.sync();
            List<Message.RackError> errors = h.gossiped(Message.RackError.class).stream()
                    .filter(e -> e.kind() == Message.RackErrorKind.CONCURRENT_SESSIONS).toList();
            boolean mine = Rack.ME.baseboard().compareTo(other) < 0;
            assertEquals(mine ? 1 : 0, errors.size(), "reported by the acceptor sorting first: " + other);
            h.crash();
            h.boot(1, 1);
            h.sync();
            assertEquals(mine ? 1 : 0, h.gossiped(Message.RackError.class).stream()
                    .filter(e -> e.kind() == Message.RackErrorKind.CONCURRENT_SESSIONS).count(),
                    "a replayed pair is not reported again");
        }
    }

    private static Message.SessionStart startBy(String acceptor, int n) {
        byte[] nonce = new byte[SessionIds.NONCE_BYTES];
        nonce[0] = (byte) n;
        SessionId s = SessionIds.compute(acceptor, nonce, new byte[] {(byte) n});
        return new Message.SessionStart(s, acceptor, nonce, new byte[] {(byte) n}, "operator");
    }

    @Test
    void operatorKeyEventsReachSubscribersAndUnchangedStatusesAreNotRepeated() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        h.operator(new Message.OperatorRevoked(Signers.KEY.id(), "operator"));
        String other = "913-0000019:OTHER";
        JobId job = sush.projections.id.Chain.first(Rack.session(1));
        h.operator(new Message.JobStopped(other, job, 0, null, 0, new byte[32], 0, new byte[32]));
        h.operator(new Message.JobStarted(other, job)); // after its ending: changes nothing
        h.sync();
        assertEquals(1, h.events(SledEvent.Operator.class).size());
        List<SledEvent.StatusChanged> changes = h.events(SledEvent.StatusChanged.class);
        assertEquals(1, changes.size(), changes.toString());
        assertEquals(sush.projections.fold.JobStatus.STOPPED, changes.get(0).status());
    }

    @Test
    void replayDrainsAtItsLastDeliveryWithoutWaitingForALiveOne() throws Exception {
        SledHarness h = new SledHarness().provision();
        h.operator0(1, Rack.start(1));
        h.operator0(1, new Message.JobStarted("913-0000019:OTHER", sush.projections.id.Chain.first(Rack.session(1))));
        h.boot(1);
        assertEquals(1, h.events(SledEvent.Drained.class).size(), "drained after replaying the two messages");
    }

    @Test
    void aHaltedSledFollowsNothingMoreAndItsQueuedWriteNeverLands() throws Exception {
        SledHarness h = new SledHarness().provision();
        List<Runnable> held = new ArrayList<>();
        h.bootHoldingWrites(held); // the entry's drain
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "z", "*", true);
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        assertEquals(1, h.sled.view().block().pendingLaunches(), "committed, its write queued");
        h.sled.halt();
        h.settle();
        long writes = h.a.writes() + h.b.writes();
        h.runHeld(held);
        assertEquals(writes, h.a.writes() + h.b.writes(), "the halted writer stores nothing more");
        assertEquals(0, h.ledger.size(), "and launches nothing");
        int events = h.events.size();
        h.operator(new Message.JobStart(jobs.get(1)));
        h.sync();
        h.migrate(2);
        assertEquals(events, h.events.size(), "no delivery and no entry reaches a halted sled");
    }

    /**
     * Issue 38 (the nemesis): a daemon closing its journal while the loop still ran a delivery
     * failed the sled closed on its way out. {@code close} returns once the loop finished its
     * stage, and no stage runs after it.
     */
    @Test
    void aClosedSledRunsNoStageAfterCloseReturns() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        h.operator(Rack.start(1));
        h.sync();
        assertTrue(h.sled.close(Duration.ofSeconds(5)), "the loop said it finished its stage");
        int events = h.events.size();
        h.operator(new Message.JobStart(Rack.jobs(Rack.session(1), 1, "z", "*", true).get(0)));
        h.sync();
        h.sled.slotsChanged("changed by a test");
        h.settle();
        assertEquals(0, h.ledger.size(), "nothing launched");
        assertEquals(1, h.events.size() - events, "only the slots' finding is said: " + h.events.subList(events,
                h.events.size()));
    }

    @Test
    void theChainsOverflowIsReportedOnceAsAnErrorEvent() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        h.operator(Rack.start(1));
        // Burns far ahead of the head: each is a remembered position.
        for (int i = 0; i <= ChainProjection.MAX_POSITIONS; i++) {
            h.operator(new Message.JobSkip(Rack.session(1), fake(i), "operator"));
        }
        h.sync();
        long reports = h.events(SledEvent.Failed.class).stream().filter(f -> f.what().contains("past its bound")).count();
        assertEquals(1, reports, "one error event for the overflow, not one per message");
    }

    /**
     * Issue 39: the chain's bound is a safety net a healthy rack never reaches, so the sled says
     * when it nears it (80%), once per session, before the overflow above; a gauge reads the fill.
     */
    @Test
    void theChainsFillIsReportedAtEightyAndAHundredPercentOncePerSession() throws Exception {
        SledHarness h = new SledHarness();
        h.bounds = new sush.projections.fold.FoldBounds(1024, 256, 256, 10, 16, 16, 16);
        h.provision().boot(1);
        h.operator(Rack.start(1));
        for (int i = 0; i < 7; i++) {
            h.operator(new Message.JobSkip(Rack.session(1), fake(i), "operator"));
        }
        h.sync();
        assertEquals(List.of(), h.events(SledEvent.ChainFill.class), "70% is said by the gauge only");
        assertEquals(0.7, h.sled.chainFill(), 1e-9);
        for (int i = 7; i < 12; i++) {
            h.operator(new Message.JobSkip(Rack.session(1), fake(i), "operator"));
        }
        h.sync();
        List<SledEvent.ChainFill> fills = h.events(SledEvent.ChainFill.class);
        assertEquals(List.of(80, 100), fills.stream().map(SledEvent.ChainFill::percent).toList(),
                "80% said before the bound, then 100%, each once: " + fills);
        assertEquals(Rack.session(1), fills.get(0).session());
        assertEquals(8, fills.get(0).positions());
        assertEquals(10, fills.get(1).capacity());
        assertEquals(1.0, h.sled.chainFill(), 1e-9);
    }

    private static JobId fake(int i) {
        byte[] b = new byte[11];
        b[0] = (byte) i;
        b[1] = (byte) (i >> 8);
        b[2] = (byte) (i >> 16);
        b[3] = 1;
        return new JobId(b);
    }


    /** What the rack heard of j0 before the life ended: nothing, its start, or its start and end. */
    private enum Heard { NOTHING, STARTED, ENDED }

    /** One life runs j0 to exit code 3 (recorded) and ends; the next life reports what the rack lacks. */
    private static SledHarness adjudicated(Heard heard) throws Exception {
        SledHarness h = new SledHarness().provision();
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "a", "*");
        h.operator0(1, Rack.start(1));
        h.operator0(1, new Message.JobStart(jobs.get(0)));
        h.boot(1); // the job runs from the replayed request; nothing goes back to the rack yet
        if (heard != Heard.NOTHING) {
            h.sync();
        }
        h.launcher.end(id(jobs.get(0)), 3);
        h.settle();
        assertTrue(h.locker.newest().orElseThrow().committed().orElseThrow().outcome().isEnded(),
                "the ending is recorded");
        if (heard == Heard.ENDED) {
            h.sync();
        }
        h.crash();
        h.events.clear();
        h.boot(1);
        h.sync();
        return h;
    }

    @Test
    void adjudicationAnnouncesExactlyWhatTheRackNeverHeard() throws Exception {
        SledHarness none = adjudicated(Heard.NOTHING);
        List<Message> told = none.gossiped().stream().filter(m -> !(m instanceof Message.Announcement)).toList();
        assertEquals(2, told.size(), told.toString());
        assertTrue(told.get(0) instanceof Message.JobStarted);
        assertEquals(3, ((Message.JobStopped) told.get(1)).exitCode().intValue());

        SledHarness started = adjudicated(Heard.STARTED);
        told = started.gossiped().stream().filter(m -> !(m instanceof Message.Announcement)).toList();
        assertEquals(1, told.size(), "its Started is not repeated, and it is no zombie: " + told);
        assertEquals(3, ((Message.JobStopped) told.get(0)).exitCode().intValue());

        SledHarness ended = adjudicated(Heard.ENDED);
        told = ended.gossiped().stream().filter(m -> !(m instanceof Message.Announcement)).toList();
        assertEquals(List.of(), told, "the rack knows the ending: nothing to announce");
        for (SledHarness h : List.of(none, started, ended)) {
            assertEquals(1, h.ledger.size());
        }
    }

    @Test
    void anInterruptedJobIsAnnouncedOnceWhetherTheRackHeardItsStartOrNot() throws Exception {
        for (boolean heard : new boolean[] {false, true}) {
            SledHarness h = new SledHarness().provision();
            List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "i", "*");
            h.operator0(1, Rack.start(1));
            h.operator0(1, new Message.JobStart(jobs.get(0)));
            h.boot(1);
            if (heard) {
                h.sync();
            }
            h.crash();
            h.events.clear();
            h.boot(1);
            h.sync();
            List<Message> told = h.gossiped().stream().filter(m -> !(m instanceof Message.Announcement)).toList();
            assertEquals(1, told.size(), told.toString());
            assertEquals(Message.JobError.INTERRUPTED, ((Message.JobErrored) told.get(0)).kind());
            h.migrate(1); // another entry into the same universe in this life: nothing new to say
            h.sync();
            assertEquals(1, h.gossiped().stream().filter(m -> m instanceof Message.JobErrored).count());
        }
    }

    @Test
    void anEndingIsRecordedOnlyInATrustedStoreAndAFailedOutcomeWriteIsAnErrorEvent() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "e", "*", true);
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        h.b.arm(sush.locker.store.MemorySlot.Fault.NO_SPACE, true);
        h.launcher.end(id(jobs.get(1)), 0);
        h.settle();
        assertTrue(h.events(SledEvent.Failed.class).stream().anyMatch(f -> f.what().startsWith("outcome write for")),
                h.events(SledEvent.Failed.class).toString());
        assertEquals(1, h.gossiped(Message.JobStopped.class).size(), "the ending is still gossiped");
        h.b.heal();
        h.a.setContents(Optional.of(new byte[] {9}));
        assertTrue(h.locker.verify().isPresent());
        long writes = h.a.writes() + h.b.writes();
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        assertEquals(writes, h.a.writes() + h.b.writes(), "an untrusted store is not written");
        assertEquals(2, h.gossiped(Message.JobStopped.class).size());
    }
}
