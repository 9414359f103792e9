package sush.locker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.fold.ChainProjection;
import sush.projections.fold.FoldBounds;
import sush.projections.fold.JobStatus;
import sush.projections.fold.SledProjection;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.JobRequest;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.targets.Sled;

/**
 * The head rules' answers to a starter's stop at every point of a job's life (issue 34,
 * ordered-sessions.md section 9): killed while it runs, kept through its commit and applied at
 * the launch, cancelled only where this sled provably never started it, kept until its place or
 * its request is known, never a stranger's. Also what the head does with a job (screen it, let
 * it wait, say it was handled or cancelled), the waiting job, which jobs behind the head are
 * judged, and what a new entry forgets; the chain check that also drives these rules is not part
 * of the mutation run (issue 37), so each rule is pinned here.
 */
class HeadRulesTest {
    private static final Sled ME = new Sled("913-0000019:HEAD0", 0);
    private static final SessionId S = SessionIds.compute(ME.baseboard(), new byte[SessionIds.NONCE_BYTES],
            new byte[] {3});
    private static final Version V = Version.ZERO.tick(Id.ONE);
    private final SledProjection fold = new SledProjection(ME, Signers.UNCHECKED);
    private final HeadRules head = new HeadRules(ME);

    HeadRulesTest() {
        head.enter(fold);
    }

    private static SignedJob[] chain(int n) {
        String[] targets = new String[n];
        Arrays.fill(targets, "0");
        return chain(targets);
    }

    /** Session S's first jobs, sequential, one per target in order. */
    private static SignedJob[] chain(String... targets) {
        SignedJob[] jobs = new SignedJob[targets.length];
        JobId at = Chain.first(S);
        for (int i = 0; i < targets.length; i++) {
            jobs[i] = job(S, at, "job " + i, targets[i]);
            at = jobs[i].request().successor();
        }
        return jobs;
    }

    private static SignedJob job(SessionId session, JobId at, String command, String target) {
        return Jobs.unsigned(new JobRequest(session, at, command, target, false));
    }

    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    /** The requests {@code jobs} arrive: each is folded. */
    private void arrive(SignedJob... jobs) {
        for (SignedJob j : jobs) {
            fold.apply(V, new Message.JobStart(j));
        }
    }

    /** The job at the head is committed, launched and passed as run: a sequential job after it waits for its end. */
    private void ran(SignedJob j) {
        head.committed(id(j));
        assertTrue(head.launch(id(j)));
        fold.passHead(id(j), ChainProjection.Passed.RAN);
    }

    /** {@code j}, launched here, ended: its status is folded and the rules are told. */
    private void ends(SignedJob j) {
        byte[] none = new byte[32];
        fold.apply(V, new Message.JobStopped(ME.baseboard(), id(j), 0, null, 0, none, 0, none));
        head.ended(id(j));
    }

    private void start() {
        fold.apply(V, new Message.SessionStart(S, ME.baseboard(), new byte[SessionIds.NONCE_BYTES], new byte[] {3},
                "operator"));
    }

    private static Message.JobStop stop(SignedJob j, String by) {
        return new Message.JobStop(j.request().job(), by);
    }

    @Test
    void aRunningJobIsKilledAndACommittedOneKeepsItsStopForItsLaunch() {
        start();
        SignedJob[] j = chain(2);
        fold.apply(V, new Message.JobStart(j[0]));
        fold.apply(V, new Message.JobStart(j[1]));
        head.committed(j[0].request().job());
        fold.passHead(j[0].request().job(), ChainProjection.Passed.RAN);
        assertEquals(HeadRules.OnStop.KEPT_FOR_LAUNCH, head.onStop(stop(j[0], "operator"), x -> true));
        assertFalse(head.launch(j[0].request().job()), "the stop kept through the commit: never spawned");
        head.committed(j[1].request().job());
        assertTrue(head.launch(j[1].request().job()));
        assertEquals(HeadRules.OnStop.KILL, head.onStop(stop(j[1], "operator"), x -> true));
        assertEquals(HeadRules.OnStop.NONE, head.onStop(stop(j[1], "stranger"), x -> true), "only the starter stops");
    }

    @Test
    void aJobAheadOfTheHeadIsCancelledOnlyWhereAdmissionWouldRunIt() {
        start();
        SignedJob[] j = chain(3);
        for (SignedJob x : j) {
            fold.apply(V, new Message.JobStart(x));
        }
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(stop(j[2], "operator"), x -> false),
                "admission would refuse it: not provably never started, so no Cancelled");
        assertEquals(HeadRules.OnStop.CANCEL, head.onStop(stop(j[1], "operator"), x -> true));
        assertEquals(HeadRules.AtHead.CANCELLED, head.atHead(j[1]));
    }

    @Test
    void afterAResumptionAJobInAHoleKeepsItsStopAndIsNeverSaidCancelled() {
        // Jobs 0 to 2 ran in an earlier life; the record resumes the head after job 2. Job 1 is
        // sent again alone: nothing links it to the head, so it is neither ahead nor behind.
        SignedJob[] j = chain(3);
        fold.resume(new SledProjection.Resumption(S, j[2].request().job(), j[2].request().successor()));
        start();
        fold.apply(V, new Message.JobStart(j[1]));
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(stop(j[1], "operator"), x -> true));
        assertTrue(head.stopKept(j[1].request().job()));
        // Job 2 arrives: job 1 now leads to the head; it ran or may have run.
        fold.apply(V, new Message.JobStart(j[2]));
        assertEquals(HeadRules.OnStop.BEHIND_HEAD, head.onStop(stop(j[1], "operator"), x -> true));
    }

    @Test
    void aStopThatOutranItsRequestWaitsForIt() {
        start();
        SignedJob[] j = chain(1);
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(stop(j[0], "operator"), x -> true));
        fold.apply(V, new Message.JobStart(j[0]));
        Optional<Message.JobStop> kept = head.stopFor(j[0].request().job());
        assertTrue(kept.isPresent());
        assertEquals(HeadRules.OnStop.CANCEL, head.onStop(kept.get(), x -> true));
        assertTrue(head.stopFor(j[0].request().job()).isEmpty(), "applied once");
    }

    @Test
    void aKeptStopAtTheHeadCancelsWhatAdmissionAdmitsAndDoesNotWaitForThePreviousJob() {
        start();
        SignedJob[] j = chain(2);
        fold.apply(V, new Message.JobStart(j[0]));
        head.committed(j[0].request().job());
        fold.passHead(j[0].request().job(), ChainProjection.Passed.RAN);
        head.launch(j[0].request().job());
        // Job 1 is sequential: it would wait for job 0, still running. Its stop comes first.
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(new Message.JobStop(j[1].request().job(), "operator"),
                x -> false));
        fold.apply(V, new Message.JobStart(j[1]));
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(head.stopFor(j[1].request().job()).orElseThrow(),
                x -> false), "admission would not run it now: kept until it reaches the head");
        assertEquals(HeadRules.AtHead.SCREEN, head.atHead(j[1]), "a stopped job is screened at once");
        assertEquals(HeadRules.Admitted.CANCEL, head.admitted(j[1].request().job()));
    }

    @Test
    void aConflictReportIsNotASignThatTheJobRanHere() {
        start();
        SignedJob[] j = chain(1);
        fold.apply(V, new Message.JobConflict(ME.baseboard(), j[0].request().job(), j[0].request().successor(),
                Chain.afterBurn(j[0].request().job())));
        fold.apply(V, new Message.JobStart(j[0]));
        assertTrue(head.ownStatus(j[0].request().job()).isEmpty());
        assertEquals(HeadRules.AtHead.SCREEN, head.atHead(j[0]));
    }

    /** Issue 37: the at-most-once invariant of a life is asserted, never thrown away. */
    @Test
    void aSecondCommitOrLaunchOfAJobInOneLifeIsRefused() {
        HeadRules head = new HeadRules(ME);
        JobId job = Chain.first(S);
        head.committed(job);
        assertThrows(IllegalStateException.class, () -> head.committed(job));
        assertTrue(head.launch(job));
        assertThrows(IllegalStateException.class, () -> head.launch(job));
    }

    @Test
    void theHeadScreensAJobThenKnowsItWasCommittedAndMakesTheNextOneWait() {
        start();
        SignedJob[] j = chain(2);
        arrive(j);
        assertTrue(head.atHead(id(j[0])));
        assertFalse(head.atHead(id(j[1])));
        assertEquals(HeadRules.AtHead.SCREEN, head.atHead(j[0]), "the first job waits for nothing");
        assertEquals(HeadRules.Admitted.RUN, head.admitted(id(j[0])), "no stop is kept for it");
        assertFalse(head.committedThisLife(id(j[0])));
        head.committed(id(j[0]));
        assertTrue(head.committedThisLife(id(j[0])));
        assertFalse(head.launchedThisLife(id(j[0])));
        assertEquals(HeadRules.AtHead.ALREADY_HANDLED, head.atHead(j[0]), "committed in this life: it may have run");
        assertTrue(head.launch(id(j[0])));
        assertTrue(head.launchedThisLife(id(j[0])));
        assertFalse(head.committedThisLife(id(j[1])));
        assertFalse(head.launchedThisLife(id(j[1])));
        fold.passHead(id(j[0]), ChainProjection.Passed.RAN);
        assertFalse(head.atHead(id(j[0])));
        assertTrue(head.atHead(id(j[1])));
        assertEquals(HeadRules.AtHead.WAIT, head.atHead(j[1]), "sequential: it waits until job 0 ended here");
    }

    @Test
    void thisSledsOwnStatusSaysAJobWasHandledOrCancelledAndAnotherSledsSaysNothing() {
        start();
        SignedJob[] j = chain(3);
        arrive(j);
        fold.apply(V, new Message.JobStarted(ME.baseboard(), id(j[0])));
        fold.apply(V, new Message.JobCancelled(ME.baseboard(), id(j[1])));
        fold.apply(V, new Message.JobStarted("913-0000020:OTHER", id(j[2])));
        assertEquals(JobStatus.STARTED, head.ownStatus(id(j[0])).orElseThrow().status());
        assertEquals(HeadRules.AtHead.ALREADY_HANDLED, head.atHead(j[0]), "it started here, in some life");
        assertEquals(HeadRules.AtHead.CANCELLED, head.atHead(j[1]));
        assertTrue(head.ownStatus(id(j[2])).isEmpty());
        assertEquals(HeadRules.AtHead.SCREEN, head.atHead(j[2]));
    }

    @Test
    void theWaitingJobIsOfferedAgainOnceThePreviousOneEndedAndOnlyOnce() {
        start();
        SignedJob[] j = chain(2);
        arrive(j);
        assertTrue(head.retry().isEmpty(), "nothing waits");
        ran(j[0]);
        assertEquals(HeadRules.AtHead.WAIT, head.atHead(j[1]));
        assertTrue(head.retry().isEmpty(), "job 0 still runs");
        ends(j[0]);
        assertEquals(Optional.of(j[1]), head.retry());
        assertTrue(head.retry().isEmpty(), "offered once");
    }

    @Test
    void aWaitingJobWhoseStopIsKeptIsOfferedAgainWithoutWaiting() {
        start();
        SignedJob[] j = chain(2);
        arrive(j);
        ran(j[0]);
        assertEquals(HeadRules.AtHead.WAIT, head.atHead(j[1]));
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(stop(j[1], "operator"), x -> false));
        assertEquals(Optional.of(j[1]), head.retry(), "job 0 still runs, but a stopped job never runs");
        assertEquals(HeadRules.AtHead.SCREEN, head.atHead(j[1]));
        assertEquals(HeadRules.Admitted.CANCEL, head.admitted(id(j[1])));
    }

    @Test
    void aBurnThatMovesTheHeadOffTheWaitingJobDropsIt() {
        start();
        SignedJob[] j = chain(2);
        arrive(j);
        ran(j[0]);
        assertEquals(HeadRules.AtHead.WAIT, head.atHead(j[1]));
        fold.apply(V, new Message.JobSkip(S, id(j[1]), "operator"));
        assertFalse(head.atHead(id(j[1])));
        ends(j[0]);
        assertTrue(head.retry().isEmpty(), "screened only while it stands at the head");
    }

    @Test
    void unwaitDropsTheWaitingJobOnlyIfItIsTheNamedJobOrOfTheNamedSession() {
        start();
        SignedJob[] j = chain(3);
        arrive(j);
        ran(j[0]);
        assertEquals(HeadRules.AtHead.WAIT, head.atHead(j[1]));
        HeadRules others = head.copy(fold);
        others.unwait(id(j[2]));
        others.unwaitSession(SessionIds.compute(ME.baseboard(), new byte[SessionIds.NONCE_BYTES], new byte[] {4}));
        HeadRules byJob = head.copy(fold);
        byJob.unwait(id(j[1]));
        HeadRules bySession = head.copy(fold);
        bySession.unwaitSession(S);
        ends(j[0]);
        assertEquals(Optional.of(j[1]), others.retry());
        assertTrue(byJob.retry().isEmpty());
        assertTrue(bySession.retry().isEmpty());
    }

    @Test
    void aStopThatCancelsTheWaitingJobEndsItsWait() {
        start();
        SignedJob[] j = chain(2);
        arrive(j);
        ran(j[0]);
        assertEquals(HeadRules.AtHead.WAIT, head.atHead(j[1]));
        assertEquals(HeadRules.OnStop.CANCEL, head.onStop(stop(j[1], "operator"), x -> true));
        ends(j[0]);
        assertTrue(head.retry().isEmpty(), "cancelled: never offered again");
        assertEquals(HeadRules.AtHead.CANCELLED, head.atHead(j[1]));
    }

    @Test
    void aJobBehindTheHeadIsJudgedUnlessItIsAnotherSessionsOrSledsOrItsFateIsKnownHere() {
        start();
        SignedJob[] j = chain(2);
        arrive(j);
        fold.passHead(id(j[0]), ChainProjection.Passed.MAY_HAVE_RUN);
        assertTrue(head.behindHead(j[0]), "it ran or may have run here");
        assertFalse(head.behindHead(j[1]), "at the head, not behind it");
        SessionId other = SessionIds.compute(ME.baseboard(), new byte[SessionIds.NONCE_BYTES], new byte[] {4});
        assertFalse(head.behindHead(job(other, id(j[0]), "job 0", "0")), "a request of another session");
        assertFalse(head.behindHead(job(S, id(j[0]), "job 0", "1")), "a request for another sled");
        HeadRules committed = head.copy(fold);
        committed.committed(id(j[0]));
        assertFalse(committed.behindHead(j[0]), "this life's commit reports its real status");
        head.passed(id(j[0]));
        assertFalse(head.behindHead(j[0]), "judged at the head in this entry");
        head.enter(fold);
        assertTrue(head.behindHead(j[0]), "a new entry judges it again");
        fold.apply(V, new Message.JobStarted(ME.baseboard(), id(j[0])));
        assertFalse(head.behindHead(j[0]), "its own status reports it");
    }

    @Test
    void onlyAParsableTargetNamingThisSledTargetsIt() {
        JobId at = Chain.first(S);
        assertTrue(head.targetsMe(job(S, at, "job", "0")));
        assertTrue(head.targetsMe(job(S, at, "job", ME.baseboard())));
        assertFalse(head.targetsMe(job(S, at, "job", "1")));
        assertFalse(head.targetsMe(job(S, at, "job", "")), "an unparsable target targets no one");
    }

    @Test
    void aCopyHasTheSameMemoryAndKeyAndThenGoesItsOwnWay() {
        start();
        SignedJob[] j = chain(3);
        arrive(j[0], j[1]);
        ran(j[0]);
        assertEquals(HeadRules.AtHead.WAIT, head.atHead(j[1]));
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(stop(j[2], "operator"), x -> true), "its request is not here");
        String key = head.key();
        assertTrue(key.contains(id(j[1]).toString()), "the waiting job is part of the key");
        HeadRules copy = head.copy(fold);
        assertEquals(key, copy.key());
        assertTrue(copy.stopKept(id(j[2])), "the stop that outran its request is copied");
        copy.unwait(id(j[1]));
        assertNotEquals(key, copy.key());
        HeadRules committed = head.copy(fold);
        committed.committed(id(j[2]));
        assertNotEquals(key, committed.key(), "this life's commits are part of the key");
        assertEquals(key, head.key(), "the copies are independent");
    }

    @Test
    void aNewEntryForgetsThisEntrysStopsAndCancellationsButNotThisLifesCommits() {
        start();
        SignedJob[] j = chain(4);
        arrive(j[0], j[1], j[2]);
        assertFalse(head.stopKept(id(j[0])), "no stop");
        assertEquals(HeadRules.OnStop.CANCEL, head.onStop(stop(j[0], "operator"), x -> true));
        head.committed(id(j[1]));
        assertEquals(HeadRules.OnStop.KEPT_FOR_LAUNCH, head.onStop(stop(j[1], "operator"), x -> true));
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(stop(j[2], "operator"), x -> false), "its place is ahead");
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(stop(j[3], "operator"), x -> true), "its request is not here");
        assertEquals(HeadRules.AtHead.CANCELLED, head.atHead(j[0]));
        for (SignedJob x : new SignedJob[] {j[1], j[2], j[3]}) {
            assertTrue(head.stopKept(id(x)));
        }
        head.enter(fold);
        assertEquals(HeadRules.AtHead.SCREEN, head.atHead(j[0]), "the cancellation was this entry's");
        assertFalse(head.stopKept(id(j[2])));
        assertEquals(HeadRules.Admitted.RUN, head.admitted(id(j[2])));
        assertFalse(head.stopKept(id(j[3])));
        assertTrue(head.stopFor(id(j[3])).isEmpty());
        assertTrue(head.committedThisLife(id(j[1])));
        assertTrue(head.stopKept(id(j[1])), "a stop kept for a launch is this life's");
        assertFalse(head.launch(id(j[1])));
    }

    @Test
    void stopsThatOutranTheirRequestsAreBoundedTheOldestForgottenAndCounted() {
        FoldBounds d = FoldBounds.DEFAULTS;
        HeadRules small = new HeadRules(ME, new FoldBounds(d.jobSessions(), d.sessions(), d.sessionEndings(),
                d.chainPositions(), d.earlyMessages(), d.sessionStops(), 2));
        small.enter(fold);
        start();
        SignedJob[] j = chain(3);
        assertEquals(HeadRules.OnStop.KEPT, small.onStop(stop(j[0], "operator"), x -> true));
        assertEquals(HeadRules.OnStop.KEPT, small.onStop(stop(j[1], "operator"), x -> true));
        assertEquals(HeadRules.OnStop.KEPT, small.onStop(stop(j[0], "operator"), x -> true), "sent again");
        assertEquals(0, small.evictedStops(), "two stops within a bound of two");
        assertTrue(small.stopKept(id(j[0])));
        assertTrue(small.stopKept(id(j[1])));
        assertEquals(HeadRules.OnStop.KEPT, small.onStop(stop(j[2], "operator"), x -> true));
        assertEquals(1, small.evictedStops());
        assertFalse(small.stopKept(id(j[0])), "the oldest is forgotten");
        assertTrue(small.stopKept(id(j[1])));
        assertTrue(small.stopKept(id(j[2])));
        small.enter(fold);
        assertEquals(0, small.evictedStops(), "counted per entry");
        assertFalse(small.stopKept(id(j[1])));
    }

    @Test
    void aStopOfAnEndedUnlaunchableForeignOrReportedJobDoesNothing() {
        start();
        SignedJob[] j = chain("0", "0", "1", "0");
        arrive(j);
        ran(j[0]);
        ends(j[0]);
        assertEquals(HeadRules.OnStop.NONE, head.onStop(stop(j[0], "operator"), x -> true),
                "it ended: its ending stands");
        head.committed(id(j[1]));
        head.commitFailed(id(j[1]));
        assertEquals(HeadRules.OnStop.NONE, head.onStop(stop(j[1], "operator"), x -> true), "its commit failed");
        assertEquals(HeadRules.OnStop.NONE, head.onStop(stop(j[2], "operator"), x -> true), "another sled's job");
        fold.apply(V, new Message.JobCancelled(ME.baseboard(), id(j[3])));
        assertEquals(HeadRules.OnStop.NONE, head.onStop(stop(j[3], "operator"), x -> true), "it has a status here");
        for (SignedJob x : j) {
            assertFalse(head.stopKept(id(x)));
        }
    }

    /** Issue 39: what this life remembers of a settled job goes, unless it still runs here. */
    @Test
    void aSettledJobIsForgottenUnlessItStillRuns() {
        start();
        SignedJob[] j = chain(2);
        arrive(j);
        ran(j[0]);
        ends(j[0]);
        head.committed(id(j[1]));
        assertTrue(head.launch(id(j[1])));
        head.forgetSettled(List.of(id(j[0]), id(j[1])));
        assertFalse(head.committedThisLife(id(j[0])), "ended and settled: forgotten");
        assertFalse(head.launchedThisLife(id(j[0])));
        assertTrue(head.committedThisLife(id(j[1])), "still running: kept");
        assertTrue(head.launchedThisLife(id(j[1])));
        assertEquals(HeadRules.OnStop.KILL, head.onStop(stop(j[1], "operator"), x -> true));
    }
}
